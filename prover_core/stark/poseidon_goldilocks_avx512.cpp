// Lane values are any 64-bit representative of their element (not necessarily below p): a
// product reduces any 128-bit value into 64 bits, and a sum only needs one operand at most p - 1
// for its carry of 2^64 = 2^32 - 1 (mod p) to fit. Only the stored results are made canonical.
#include "prover_core/stark/poseidon_goldilocks_avx512.hpp"

#include <cstdint>
#include <cstdlib>

#include "prover_core/cpu_features.hpp"
#include "prover_core/field/avx512_words.hpp"
#include "prover_core/stark/poseidon_goldilocks_internal.hpp"

#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__CUDACC__) && defined(__GNUC__)
#define PROVD_HAVE_POSEIDON_AVX512 1
#include <immintrin.h>
#else
#define PROVD_HAVE_POSEIDON_AVX512 0
#endif

namespace provd::stark::poseidon_internal {

#if PROVD_HAVE_POSEIDON_AVX512
namespace {

// PROVD_DISABLE_AVX512_POSEIDON=1 takes the scalar path, and PROVD_DISABLE_AVX512_IFMA=1
// (field/ifma_field.hpp's switch) keeps the AVX-512F-only rounds, so that one machine tests all.
bool CpuHasAvx512F() {
  return !SwitchedOff("PROVD_DISABLE_AVX512_POSEIDON") && provd::CpuHasAvx512F();
}
bool CpuHasIfma() { return !SwitchedOff("PROVD_DISABLE_AVX512_IFMA") && CpuHasAvx512Ifma(); }

#define PROVD_AVX512_TARGET __attribute__((target("avx512f")))
#define PROVD_AVX512_INLINE __attribute__((target("avx512f"), always_inline)) inline

constexpr uint64_t kP = Goldilocks::kP;
constexpr uint64_t kEpsilon = Goldilocks::kEpsilon;

using field::avx512::High32;
using field::avx512::Low32ToHigh;
using field::avx512::MulLow32;
PROVD_AVX512_INLINE __m512i Splat(uint64_t v) { return _mm512_set1_epi64(static_cast<int64_t>(v)); }

// a + b for b <= p - 1: a wrapped sum is below b, so adding its 2^32 - 1 cannot wrap again.
PROVD_AVX512_INLINE __m512i Add(__m512i a, __m512i b) {
  const __m512i s = _mm512_add_epi64(a, b);
  return _mm512_mask_add_epi64(s, _mm512_cmplt_epu64_mask(s, b), s, Splat(kEpsilon));
}

PROVD_AVX512_INLINE __m512i Canonical(__m512i x) {
  const __m512i p = Splat(kP);
  return _mm512_mask_sub_epi64(x, _mm512_cmpge_epu64_mask(x, p), x, p);
}

// hi 2^64 + lo = lo - hh + hl (2^32 - 1) (mod p) for hi = hh 2^32 + hl (2^96 = -1); as
// Goldilocks::Reduce128, without the final subtraction of p.
PROVD_AVX512_INLINE __m512i Reduce(__m512i hi, __m512i lo) {
  const __m512i eps = Splat(kEpsilon);
  const __m512i hh = High32(hi);
  __m512i t0 = _mm512_sub_epi64(lo, hh);
  t0 = _mm512_mask_sub_epi64(t0, _mm512_cmplt_epu64_mask(lo, hh), t0, eps);
  return Add(t0, MulLow32(hi, eps));  // hl (2^32 - 1) < p
}

// The 128-bit product from four 32 x 32-bit products. t0 = hl + ll / 2^32 and t1 = lh + t0 mod
// 2^32 are below 2^64; the low word is t1's low half over ll's low half.
PROVD_AVX512_INLINE __m512i Mul(__m512i a, __m512i b) {
  const __m512i a_hi = High32(a);
  const __m512i b_hi = High32(b);
  const __m512i ll = MulLow32(a, b);
  const __m512i lh = MulLow32(a, b_hi);
  const __m512i hl = MulLow32(a_hi, b);
  const __m512i hh = MulLow32(a_hi, b_hi);
  const __m512i t0 = _mm512_add_epi64(hl, High32(ll));
  const __m512i t1 = _mm512_add_epi64(lh, _mm512_and_si512(t0, Splat(kEpsilon)));
  const __m512i hi = _mm512_add_epi64(hh, _mm512_add_epi64(High32(t0), High32(t1)));
  const __m512i lo = _mm512_mask_shuffle_epi32(ll, 0xaaaa, t1, _MM_PERM_CCAA);
  return Reduce(hi, lo);
}

PROVD_AVX512_INLINE __m512i Square(__m512i a) {
  const __m512i a_hi = High32(a);
  const __m512i ll = MulLow32(a, a);
  const __m512i hl = MulLow32(a_hi, a);
  const __m512i hh = MulLow32(a_hi, a_hi);
  const __m512i t0 = _mm512_add_epi64(hl, High32(ll));
  const __m512i t1 = _mm512_add_epi64(hl, _mm512_and_si512(t0, Splat(kEpsilon)));
  const __m512i hi = _mm512_add_epi64(hh, _mm512_add_epi64(High32(t0), High32(t1)));
  const __m512i lo = _mm512_mask_shuffle_epi32(ll, 0xaaaa, t1, _MM_PERM_CCAA);
  return Reduce(hi, lo);
}

PROVD_AVX512_INLINE __m512i Pow7(__m512i x) {
  const __m512i x2 = Square(x);
  return Mul(Mul(x2, x), Square(x2));
}

// acc + a * entry for a below 2^32 and entry below 2^6: vpmadd52luq's product of the low 52
// bits is exact. In inline assembly so that the AVX-512F-only build of the same rounds needs no
// IFMA target (callers check CpuHasIfma); the entry is a broadcast memory operand.
PROVD_AVX512_INLINE __m512i MulAddEntryIfma(__m512i acc, __m512i a, const uint64_t& entry) {
  __asm__("vpmadd52luq %2%{1to8%}, %1, %0" : "+v"(acc) : "v"(a), "m"(entry));
  return acc;
}

// As the scalar MultiplyByMdsFast: 32-bit halves times the entries, summed in 64 bits (below
// 2^41), then lo + hi 2^32 = lo + h1 (2^32 - 1) + h0 2^32 for hi = h1 2^32 + h0. With IFMA
// each term is one fused vpmadd52luq instead of vpmuludq and vpaddq: 10-15% of the whole
// permutation on Zen 4.
template <bool kIfma>
PROVD_AVX512_INLINE void MultiplyByMds(__m512i (&s)[kPoseidonWidth]) {
  __m512i lo[kPoseidonWidth];
  __m512i hi[kPoseidonWidth];
#pragma GCC unroll 12
  for (size_t j = 0; j < kPoseidonWidth; ++j) {
    hi[j] = High32(s[j]);
    // vpmuludq reads the low halves by itself; vpmadd52luq would read 52 bits.
    lo[j] = kIfma ? _mm512_and_si512(s[j], Splat(kEpsilon)) : s[j];
  }
  __m512i out[kPoseidonWidth];
#pragma GCC unroll 12
  for (size_t r = 0; r < kPoseidonWidth; ++r) {
    __m512i sum_lo;
    __m512i sum_hi;
    if constexpr (kIfma) {
      sum_lo = _mm512_setzero_si512();
      sum_hi = _mm512_setzero_si512();
#pragma GCC unroll 12
      for (size_t j = 0; j < kPoseidonWidth; ++j) {
        sum_lo = MulAddEntryIfma(sum_lo, lo[j], kMds[r][j]);
        sum_hi = MulAddEntryIfma(sum_hi, hi[j], kMds[r][j]);
      }
    } else {
      sum_lo = MulLow32(lo[0], Splat(kMds[r][0]));
      sum_hi = MulLow32(hi[0], Splat(kMds[r][0]));
#pragma GCC unroll 12
      for (size_t j = 1; j < kPoseidonWidth; ++j) {
        sum_lo = _mm512_add_epi64(sum_lo, MulLow32(lo[j], Splat(kMds[r][j])));
        sum_hi = _mm512_add_epi64(sum_hi, MulLow32(hi[j], Splat(kMds[r][j])));
      }
    }
    const __m512i t = _mm512_add_epi64(sum_lo, MulLow32(High32(sum_hi), Splat(kEpsilon)));
    out[r] = Add(t, Low32ToHigh(sum_hi));  // h0 2^32 <= p - 1
  }
#pragma GCC unroll 12
  for (size_t r = 0; r < kPoseidonWidth; ++r) s[r] = out[r];
}

template <bool kIfma>
PROVD_AVX512_INLINE void FullRound(__m512i (&s)[kPoseidonWidth], size_t round) {
  const uint64_t* c = &kPoseidonRoundConstants[round * kPoseidonWidth];
#pragma GCC unroll 12
  for (size_t i = 0; i < kPoseidonWidth; ++i) s[i] = Pow7(Add(s[i], Splat(c[i])));
  MultiplyByMds<kIfma>(s);
}

// The partial rounds with the constants moved (SparsePartialRounds) and the dense MDS product:
// on Zen 4 the sparse matrices' 22 full products a round cost about what the dense product's 288
// small ones do, and the dense form needs no 11 x 11 initial matrix.
template <bool kIfma>
PROVD_AVX512_INLINE void PartialRounds(__m512i (&s)[kPoseidonWidth],
                                       const SparsePartialRounds& sp) {
#pragma GCC unroll 12
  for (size_t i = 0; i < kPoseidonWidth; ++i) s[i] = Add(s[i], Splat(sp.first_constants[i]));
  for (size_t k = 0; k < kPoseidonPartialRounds; ++k) {
    s[0] = Add(Pow7(s[0]), Splat(sp.post_sbox[k]));
    MultiplyByMds<kIfma>(s);
  }
}

template <bool kIfma>
PROVD_AVX512_TARGET void Permute(std::span<PoseidonState, kAvx512Lanes> states) {
  const SparsePartialRounds& sp = GetSparsePartialRounds();
  alignas(64) uint64_t lanes[kPoseidonWidth][kAvx512Lanes];
  for (size_t l = 0; l < kAvx512Lanes; ++l) {
    for (size_t j = 0; j < kPoseidonWidth; ++j) lanes[j][l] = states[l][j].value();
  }
  __m512i s[kPoseidonWidth];
#pragma GCC unroll 12
  for (size_t j = 0; j < kPoseidonWidth; ++j) s[j] = _mm512_load_si512(lanes[j]);
  size_t round = 0;
  for (; round < kHalfFullRounds; ++round) FullRound<kIfma>(s, round);
  PartialRounds<kIfma>(s, sp);
  round += kPoseidonPartialRounds;
  for (; round < kPoseidonRounds; ++round) FullRound<kIfma>(s, round);
#pragma GCC unroll 12
  for (size_t j = 0; j < kPoseidonWidth; ++j) _mm512_store_si512(lanes[j], Canonical(s[j]));
  for (size_t l = 0; l < kAvx512Lanes; ++l) {
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      states[l][j] = Goldilocks::FromUint64(lanes[j][l]);  // already canonical
    }
  }
}

}  // namespace

bool Avx512Available() {
  static const bool available = CpuHasAvx512F();
  return available;
}

void PermuteLanesAvx512(std::span<PoseidonState, kAvx512Lanes> states) {
  static const bool ifma = CpuHasIfma();
  if (ifma) {
    Permute<true>(states);
  } else {
    Permute<false>(states);
  }
}

#else  // !PROVD_HAVE_POSEIDON_AVX512

bool Avx512Available() { return false; }

void PermuteLanesAvx512(std::span<PoseidonState, kAvx512Lanes> states) {
  for (PoseidonState& s : states) PoseidonPermute(s);
}

#endif  // PROVD_HAVE_POSEIDON_AVX512

}  // namespace provd::stark::poseidon_internal
