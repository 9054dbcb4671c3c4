// Eight elements of a prime field at once, in AVX-512 IFMA (vpmadd52luq / vpmadd52huq: eight
// 52x52-bit products per instruction, low or high half added into 64-bit lanes).
//
// Why: the MSM is bound by field products, and a 64x64-bit mulx sustains one product per ~2.5
// cycles on the development VM (docs/performance.md), so the 4-limb product cannot go below
// ~25 ns. Eight lanes of radix-2^52 Montgomery products measured 2.6 ns per product there,
// against 16-18 ns for the assembly mulx form with the same number of independent chains. The
// batch-affine bucket accumulation (msm/batch_affine_ifma.hpp) has eight independent additions
// at a time, which is what the lanes need.
//
// Representation. An element a is held as K limbs of 52 bits (one __m512i per limb, lane l of
// every limb belonging to element l) of a value congruent to a * 2^(52K) mod p and below 2p:
// the Montgomery radix is 2^(52K), not the scalar code's 2^(64N), so values cross over by one
// product with a constant (ToLanes / FromLanes below). K is chosen with 16p <= 2^(52K) (5 limbs
// for BN254, 8 for BLS12-381), so the product of two values below 4p is below 2p with no final
// subtraction (ab / 2^(52K) + p < 16p^2 / 2^(52K) + p <= 2p); sums and differences are brought
// back below 2p by one conditional subtraction of 2p, or left below 4p (SubLazy) where they
// only feed a product. Canonical() gives the value below p, which equality tests and storage
// use.
//
// Selected at run time (CpuHasIfma), like the mulx product: one binary serves every x86-64 CPU.
// Only compiled for optimizing x86-64 host builds, as x86_64_field.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "prover_core/cpu_features.hpp"
#include "prover_core/field/bigint.hpp"
#include "prover_core/field/montgomery_field.hpp"

#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__CUDACC__) && defined(__GNUC__)
#define PROVD_HAVE_IFMA 1
#include <immintrin.h>
#else
#define PROVD_HAVE_IFMA 0
#endif

namespace provd::field::ifma {

inline constexpr uint64_t kLimbMask = (uint64_t{1} << 52) - 1;

// Repacks the low 52K bits of `v` into K limbs of 52 bits.
template <size_t K, size_t M>
constexpr std::array<uint64_t, K> ToRadix52(const BigInt<M>& v) {
  std::array<uint64_t, K> r{};
  for (size_t j = 0; j < K; ++j) {
    const size_t limb = 52 * j / 64;
    const size_t shift = 52 * j % 64;
    if (limb >= M) break;
    uint64_t x = v.limbs[limb] >> shift;
    if (shift > 12 && limb + 1 < M) x |= v.limbs[limb + 1] << (64 - shift);
    r[j] = x & kLimbMask;
  }
  return r;
}

// The inverse of ToRadix52 for values below 2^(64M).
template <size_t M, size_t K>
constexpr BigInt<M> FromRadix52(const uint64_t* limbs) {
  BigInt<M> r;
  for (size_t j = 0; j < K; ++j) {
    const size_t limb = 52 * j / 64;
    const size_t shift = 52 * j % 64;
    if (limb >= M) break;
    r.limbs[limb] |= limbs[j] << shift;
    if (shift > 12 && limb + 1 < M) r.limbs[limb + 1] |= limbs[j] >> (64 - shift);
  }
  return r;
}

// The radix-2^52 constants of the prime field F (an Fp<P> of montgomery_field.hpp).
template <typename F>
struct Radix52 {
  using C = typename F::Constants;
  using Int = typename F::Int;
  static constexpr size_t N = F::kLimbs;
  static constexpr size_t K = (C::kModulus.BitLength() + 4 + 51) / 52;  // 16p <= 2^(52K)
  using Limbs = std::array<uint64_t, K>;

  static constexpr Int TwoP() {
    Int v = C::kModulus;
    v.AddInPlace(C::kModulus);  // no carry: p < 2^(64N - 1)
    return v;
  }

  static constexpr Limbs kP = ToRadix52<K>(C::kModulus);
  static constexpr Limbs k2P = ToRadix52<K>(TwoP());
  static constexpr uint64_t kInv = C::kInv & kLimbMask;  // -p^-1 mod 2^52
  static constexpr Limbs kOne = ToRadix52<K>(C::PowerOfTwoMod(52 * K));
  // Lane product with these moves a value between the two Montgomery radixes: a * 2^(64N)
  // times 2^(104K - 64N) / 2^(52K) is a * 2^(52K), and a * 2^(52K) times 2^(64N) / 2^(52K)
  // is a * 2^(64N).
  static constexpr Limbs kToLanes = ToRadix52<K>(C::PowerOfTwoMod(104 * K - 64 * N));
  static constexpr Limbs kFromLanes = ToRadix52<K>(C::PowerOfTwoMod(64 * N));
  // The same moves for one element with the scalar product (raw Montgomery integers):
  // a * 2^(64N) times 2^(52K) / 2^(64N), and a * 2^(52K) times 2^(128N - 52K) / 2^(64N).
  static constexpr Int kScalarToLanes = C::PowerOfTwoMod(52 * K);
  static constexpr Int kScalarFromLanes = C::PowerOfTwoMod(128 * N - 52 * K);

  static_assert(104 * K >= 64 * N && 128 * N >= 52 * K);
};

// One element between the scalar Fp and its canonical lane form (52-bit limbs of a * 2^(52K)
// mod p, below p). For the rare paths; bulk conversion goes through the lanes.
template <typename F>
std::array<uint64_t, Radix52<F>::K> ScalarToLaneLimbs(const F& a) {
  using R = Radix52<F>;
  const F moved = a * F::FromMontgomery(R::kScalarToLanes);
  return ToRadix52<R::K>(moved.Montgomery());
}
template <typename F>
F LaneLimbsToScalar(const uint64_t* limbs) {
  using R = Radix52<F>;
  return F::FromMontgomery(FromRadix52<R::N, R::K>(limbs)) * F::FromMontgomery(R::kScalarFromLanes);
}

// -a for a canonical lane-form element (also canonical).
template <typename F>
void NegateLaneLimbs(const uint64_t* a, uint64_t* out) {
  using R = Radix52<F>;
  uint64_t any = 0;
  for (size_t j = 0; j < R::K; ++j) any |= a[j];
  int64_t borrow = 0;
  for (size_t j = 0; j < R::K; ++j) {
    const int64_t d =
        static_cast<int64_t>(any != 0 ? R::kP[j] : 0) - static_cast<int64_t>(a[j]) + borrow;
    out[j] = static_cast<uint64_t>(d) & kLimbMask;
    borrow = d >> 52;
  }
}

#if PROVD_HAVE_IFMA

// AVX-512 Foundation and IFMA, and an OS that saves the 512-bit registers (XCR0: SSE, AVX,
// opmask, ZMM_Hi256, Hi16_ZMM). PROVD_DISABLE_AVX512_IFMA=1 turns the lanes off, for
// comparisons on the same machine.
inline bool CpuHasIfma() { return !SwitchedOff("PROVD_DISABLE_AVX512_IFMA") && CpuHasAvx512Ifma(); }

inline const bool kIfmaAvailable = CpuHasIfma();

#define PROVD_IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#define PROVD_IFMA_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline

// Eight elements of F: limb[j] holds limb j of every lane.
template <typename F>
struct Lanes {
  static constexpr size_t K = Radix52<F>::K;
  __m512i limb[K];
};

// Eight elements of F in memory, as Lanes keeps them in registers (64-byte aligned rows).
template <typename F>
struct alignas(64) LaneBlock {
  uint64_t limb[Radix52<F>::K][8];
};

// Shifts through GCC's vector extensions rather than _mm512_srli_epi64 / _mm512_srai_epi64,
// whose GCC 12 definitions trip -Wmaybe-uninitialized (a self-initialized placeholder).
using U64x8 = uint64_t __attribute__((vector_size(64)));
using I64x8 = int64_t __attribute__((vector_size(64)));
PROVD_IFMA_INLINE __m512i ShiftRightLogical52(__m512i x) {
  return reinterpret_cast<__m512i>(reinterpret_cast<U64x8>(x) >> 52);
}
PROVD_IFMA_INLINE __m512i ShiftRightArithmetic52(__m512i x) {
  return reinterpret_cast<__m512i>(reinterpret_cast<I64x8>(x) >> 52);
}

template <typename F>
struct LaneOps {
  using R = Radix52<F>;
  using V = Lanes<F>;
  using Block = LaneBlock<F>;
  static constexpr size_t K = R::K;
  static constexpr size_t kElementLimbs = K;  // in memory: K limbs per element

  PROVD_IFMA_INLINE static V Broadcast(const typename R::Limbs& l) {
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) r.limb[j] = _mm512_set1_epi64(static_cast<int64_t>(l[j]));
    return r;
  }
  PROVD_IFMA_INLINE static V Zero() {
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) r.limb[j] = _mm512_setzero_si512();
    return r;
  }
  PROVD_IFMA_INLINE static V One() { return Broadcast(R::kOne); }

  PROVD_IFMA_INLINE static V Load(const LaneBlock<F>& block) {
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) r.limb[j] = _mm512_load_si512(block.limb[j]);
    return r;
  }
  PROVD_IFMA_INLINE static void Store(LaneBlock<F>& block, const V& a) {
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) _mm512_store_si512(block.limb[j], a.limb[j]);
  }

  // Lane l reads the K limbs at base + index[l] (in uint64 units); lanes outside `mask` keep
  // `fallback`. Gather/Scatter move whole elements stored as K consecutive limbs.
  PROVD_IFMA_INLINE static V Gather(const uint64_t* base, __m512i index, __mmask8 mask,
                                    const V& fallback) {
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) {
      r.limb[j] = _mm512_mask_i64gather_epi64(fallback.limb[j], mask, index, base + j, 8);
    }
    return r;
  }
  PROVD_IFMA_INLINE static void Scatter(uint64_t* base, __m512i index, __mmask8 mask, const V& a) {
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j)
      _mm512_mask_i64scatter_epi64(base + j, mask, index, a.limb[j], 8);
  }

  // Lane `lane` of a block as an element's K limbs, and back.
  static void ReadLane(const Block& block, size_t lane, uint64_t* limbs) {
    for (size_t j = 0; j < K; ++j) limbs[j] = block.limb[j][lane];
  }
  static void WriteLane(Block& block, size_t lane, const uint64_t* limbs) {
    for (size_t j = 0; j < K; ++j) block.limb[j][lane] = limbs[j];
  }

  // The lanes whose value is zero mod p (0 or p: values below 2p).
  PROVD_IFMA_INLINE static __mmask8 IsZero(const V& a) {
    const V c = Canonical(a);
    __m512i any = c.limb[0];
#pragma GCC unroll 16
    for (size_t j = 1; j < K; ++j) any = _mm512_or_si512(any, c.limb[j]);
    return _mm512_cmpeq_epi64_mask(any, _mm512_setzero_si512());
  }

  PROVD_IFMA_INLINE static V Select(__mmask8 mask, const V& if_set, const V& otherwise) {
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) {
      r.limb[j] = _mm512_mask_blend_epi64(mask, otherwise.limb[j], if_set.limb[j]);
    }
    return r;
  }

  // Montgomery product a * b / 2^(52K) for operands below 4p, below 2p. Operand scanning: per limb
  // b_i, t += a * b_i (low halves into t_j, high halves into t_(j+1)), m = t_0 * (-p^-1) mod 2^52,
  // t += m * p, and the zeroed t_0 leaves (its carry goes into t_1). Limbs are normalized once, at
  // the end: each gathers at most 4K terms below 2^52, well inside 64 bits.
  PROVD_IFMA_INLINE static V Mul(const V& a, const V& b) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i inv = _mm512_set1_epi64(static_cast<int64_t>(R::kInv));
    __m512i p[K];
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) p[j] = _mm512_set1_epi64(static_cast<int64_t>(R::kP[j]));
    __m512i t[K + 1];
#pragma GCC unroll 16
    for (size_t j = 0; j <= K; ++j) t[j] = zero;
#pragma GCC unroll 16
    for (size_t i = 0; i < K; ++i) {
      const __m512i bi = b.limb[i];
#pragma GCC unroll 16
      for (size_t j = 0; j < K; ++j) t[j] = _mm512_madd52lo_epu64(t[j], a.limb[j], bi);
#pragma GCC unroll 16
      for (size_t j = 0; j < K; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.limb[j], bi);
      const __m512i m = _mm512_madd52lo_epu64(zero, t[0], inv);
#pragma GCC unroll 16
      for (size_t j = 0; j < K; ++j) t[j] = _mm512_madd52lo_epu64(t[j], m, p[j]);
#pragma GCC unroll 16
      for (size_t j = 0; j < K; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p[j]);
      t[1] = _mm512_add_epi64(t[1], ShiftRightLogical52(t[0]));
#pragma GCC unroll 16
      for (size_t j = 0; j < K; ++j) t[j] = t[j + 1];
      t[K] = zero;
    }
    const __m512i mask = _mm512_set1_epi64(static_cast<int64_t>(kLimbMask));
    V r;
#pragma GCC unroll 16
    for (size_t j = 0; j + 1 < K; ++j) {
      t[j + 1] = _mm512_add_epi64(t[j + 1], ShiftRightLogical52(t[j]));
      r.limb[j] = _mm512_and_si512(t[j], mask);
    }
    r.limb[K - 1] = t[K - 1];
    return r;
  }
  PROVD_IFMA_INLINE static V Square(const V& a) { return Mul(a, a); }

  PROVD_IFMA_INLINE static V Add(const V& a, const V& b) {
    V s;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) s.limb[j] = _mm512_add_epi64(a.limb[j], b.limb[j]);
    return SubtractIfAtLeast(s, R::k2P);
  }
  // a - b + 2p, in (0, 4p), then below 2p.
  PROVD_IFMA_INLINE static V Sub(const V& a, const V& b) {
    V s;
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) {
      s.limb[j] = _mm512_sub_epi64(
          _mm512_add_epi64(a.limb[j], _mm512_set1_epi64(static_cast<int64_t>(R::k2P[j]))),
          b.limb[j]);
    }
    return SubtractIfAtLeast(s, R::k2P);
  }
  // a - b + 2p with normalized limbs but not reduced: below 4p, so only a product's operand.
  PROVD_IFMA_INLINE static V SubLazy(const V& a, const V& b) {
    const __m512i mask = _mm512_set1_epi64(static_cast<int64_t>(kLimbMask));
    V r;
    __m512i carry = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) {
      const __m512i x = _mm512_add_epi64(
          _mm512_sub_epi64(
              _mm512_add_epi64(a.limb[j], _mm512_set1_epi64(static_cast<int64_t>(R::k2P[j]))),
              b.limb[j]),
          carry);
      carry = ShiftRightArithmetic52(x);
      r.limb[j] = _mm512_and_si512(x, mask);
    }
    return r;
  }
  PROVD_IFMA_INLINE static V Neg(const V& a) { return Sub(Zero(), a); }
  // The value below p.
  PROVD_IFMA_INLINE static V Canonical(const V& a) { return SubtractIfAtLeast(a, R::kP); }

  // a^(p-2) = a^-1 (zero lanes stay zero), left to right over the bits of p - 2.
  PROVD_IFMA_TARGET static V Inverse(const V& a) {
    constexpr auto e = R::C::kPMinus2;
    V r = a;  // the top bit of p - 2 is set
    for (size_t i = e.BitLength() - 1; i-- > 0;) {
      r = Square(r);
      if (e.Bit(i)) r = Mul(r, a);
    }
    return r;
  }

 private:
  // Normalizes the limbs of s (signed, unnormalized, of a value in [0, 2m)) and subtracts m
  // where the value is at least m.
  PROVD_IFMA_INLINE static V SubtractIfAtLeast(const V& s, const typename R::Limbs& m) {
    const __m512i mask = _mm512_set1_epi64(static_cast<int64_t>(kLimbMask));
    V n;
    V d;
    __m512i carry_n = _mm512_setzero_si512();
    __m512i carry_d = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (size_t j = 0; j < K; ++j) {
      const __m512i x = _mm512_add_epi64(s.limb[j], carry_n);
      carry_n = ShiftRightArithmetic52(x);
      n.limb[j] = _mm512_and_si512(x, mask);
      const __m512i y = _mm512_add_epi64(
          _mm512_sub_epi64(n.limb[j], _mm512_set1_epi64(static_cast<int64_t>(m[j]))), carry_d);
      carry_d = ShiftRightArithmetic52(y);
      d.limb[j] = _mm512_and_si512(y, mask);
    }
    // The value minus m, and its borrow out of the top limb: keep n where it borrowed.
    const __mmask8 below = _mm512_cmplt_epi64_mask(carry_d, _mm512_setzero_si512());
    return Select(below, n, d);
  }
};

#endif  // PROVD_HAVE_IFMA

}  // namespace provd::field::ifma
