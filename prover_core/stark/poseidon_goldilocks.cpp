#include "prover_core/stark/poseidon_goldilocks.hpp"

#include <algorithm>

#include "prover_core/stark/poseidon_goldilocks_avx512.hpp"
#include "prover_core/stark/poseidon_goldilocks_internal.hpp"

namespace provd::stark {
namespace {

using field::u128;
using poseidon_internal::kHalfFullRounds;
using poseidon_internal::kMds;
using poseidon_internal::kRest;

inline Goldilocks Pow7(Goldilocks x) {
  const Goldilocks x2 = x.Square();
  const Goldilocks x3 = x2 * x;
  return x3 * x2.Square();
}

inline void AddRoundConstants(PoseidonState& state, size_t round) {
  const uint64_t* c = &kPoseidonRoundConstants[round * kPoseidonWidth];
  // The constants are canonical (< p): FromUint64 leaves them as they are.
  for (size_t i = 0; i < kPoseidonWidth; ++i) state[i] += Goldilocks::FromUint64(c[i]);
}

// --- The plain form -----------------------------------------------------------------------

// Twelve products below 2^70 sum to less than 2^74: one reduction per output.
inline void MultiplyByMdsReference(PoseidonState& state) {
  std::array<uint64_t, kPoseidonWidth> in;
  for (size_t j = 0; j < kPoseidonWidth; ++j) in[j] = state[j].value();
  for (size_t r = 0; r < kPoseidonWidth; ++r) {
    u128 sum = 0;
    for (size_t j = 0; j < kPoseidonWidth; ++j) sum += static_cast<u128>(in[j]) * kMds[r][j];
    state[r] = Goldilocks::FromUint128(sum);
  }
}

// --- The fast form ------------------------------------------------------------------------
//
// On raw words, any 64-bit representative of an element, made canonical once at the end; and
// without branches: Goldilocks' operators branch on carries, which random states mispredict
// (that alone made the plain rounds as slow as the reference).

constexpr uint64_t kEpsilon = Goldilocks::kEpsilon;  // 2^64 mod p
using Words = std::array<uint64_t, kPoseidonWidth>;

inline uint64_t IfSet(bool c, uint64_t v) { return (uint64_t{0} - static_cast<uint64_t>(c)) & v; }

// a + b for b <= p - 1: a wrapped sum is below b, so adding its 2^64 = 2^32 - 1 cannot wrap.
inline uint64_t AddW(uint64_t a, uint64_t b) {
  uint64_t s;
  const bool carry = __builtin_add_overflow(a, b, &s);
  return s + IfSet(carry, kEpsilon);
}

// As Goldilocks::Reduce128, without the final subtraction of p.
inline uint64_t ReduceW(u128 x) {
  const uint64_t lo = static_cast<uint64_t>(x);
  const uint64_t hi = static_cast<uint64_t>(x >> 64);
  uint64_t t0;
  const bool borrow = __builtin_sub_overflow(lo, hi >> 32, &t0);
  t0 -= IfSet(borrow, kEpsilon);  // t0 wrapped to at least 2^64 - 2^32: no second borrow
  return AddW(t0, (hi & kEpsilon) * kEpsilon);  // (2^32 - 1)^2 < p
}

inline uint64_t MulW(uint64_t a, uint64_t b) { return ReduceW(static_cast<u128>(a) * b); }

inline uint64_t CanonicalW(uint64_t x) { return x - IfSet(x >= Goldilocks::kP, Goldilocks::kP); }

inline uint64_t Pow7W(uint64_t x) {
  const uint64_t x2 = MulW(x, x);
  return MulW(MulW(x2, x), MulW(x2, x2));
}

// lo + hi 2^32 mod p for lo, hi below 2^41: hi = h1 2^32 + h0 with h1 below 2^9, and
// h1 2^64 = h1 (2^32 - 1).
inline uint64_t ReduceSplitW(uint64_t lo, uint64_t hi) {
  return AddW(lo + (hi >> 32) * kEpsilon, hi << 32);  // hi << 32 <= p - 1
}

// Plonky2's mds_row_shf idea: products of 32-bit halves with the entries (below 2^6) summed in
// 64 bits, one reduction per output. The unrolled loops make every entry a constant.
inline void MultiplyByMdsFast(Words& state) {
  Words lo;
  Words hi;
#pragma GCC unroll 12
  for (size_t j = 0; j < kPoseidonWidth; ++j) {
    lo[j] = state[j] & kEpsilon;
    hi[j] = state[j] >> 32;
  }
#pragma GCC unroll 12
  for (size_t r = 0; r < kPoseidonWidth; ++r) {
    uint64_t sum_lo = 0;
    uint64_t sum_hi = 0;
#pragma GCC unroll 12
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      sum_lo += kMds[r][j] * lo[j];
      sum_hi += kMds[r][j] * hi[j];
    }
    state[r] = ReduceSplitW(sum_lo, sum_hi);
  }
}

// sum_i c[i] x[i] with one reduction: each carry out of the 128-bit sum is worth
// 2^128 = (2^32 - 1)^2 = 2^64 - 2^33 + 1 = -2^32 (mod p). Below p.
template <size_t N>
inline uint64_t DotProductW(const uint64_t* c, const uint64_t* x) {
  u128 sum = 0;
  uint64_t carries = 0;
#pragma GCC unroll 12
  for (size_t i = 0; i < N; ++i) {
    const u128 p = static_cast<u128>(c[i]) * x[i];
    sum += p;
    carries += sum < p ? 1 : 0;
  }
  static_assert(N < (uint64_t{1} << 31));  // carries 2^32 stays below p
  const uint64_t r = CanonicalW(ReduceW(sum));
  const uint64_t d = carries << 32;
  uint64_t out;
  const bool borrow = __builtin_sub_overflow(r, d, &out);
  return out + IfSet(borrow, Goldilocks::kP);
}

inline void FullRoundFast(Words& state, size_t round) {
  const uint64_t* c = &kPoseidonRoundConstants[round * kPoseidonWidth];
#pragma GCC unroll 12
  for (size_t i = 0; i < kPoseidonWidth; ++i) state[i] = Pow7W(AddW(state[i], c[i]));
  MultiplyByMdsFast(state);
}

inline void PartialRoundsFast(Words& state) {
  const poseidon_internal::SparsePartialRounds& sp = poseidon_internal::GetSparsePartialRounds();
#pragma GCC unroll 12
  for (size_t i = 0; i < kPoseidonWidth; ++i) state[i] = AddW(state[i], sp.first_constants[i]);
  std::array<uint64_t, kRest> rest;
  for (size_t i = 0; i < kRest; ++i) rest[i] = DotProductW<kRest>(sp.init[i].data(), &state[1]);
  for (size_t i = 0; i < kRest; ++i) state[i + 1] = rest[i];
  for (size_t k = 0; k < kPoseidonPartialRounds; ++k) {
    const uint64_t x0 = AddW(Pow7W(state[0]), sp.post_sbox[k]);
    const uint64_t out0 =
        AddW(MulW(kMds[0][0], x0), DotProductW<kRest>(sp.w_hat[k].data(), &state[1]));
#pragma GCC unroll 11
    for (size_t i = 0; i < kRest; ++i) {
      state[i + 1] = AddW(state[i + 1], CanonicalW(MulW(sp.v[k][i], x0)));
    }
    state[0] = out0;
  }
}

}  // namespace

void PoseidonPermuteReference(PoseidonState& state) {
  for (size_t round = 0; round < kPoseidonRounds; ++round) {
    AddRoundConstants(state, round);
    const bool full = round < kHalfFullRounds || round >= kHalfFullRounds + kPoseidonPartialRounds;
    if (full) {
      for (Goldilocks& x : state) x = Pow7(x);
    } else {
      state[0] = Pow7(state[0]);
    }
    MultiplyByMdsReference(state);
  }
}

void PoseidonPermute(PoseidonState& state) {
  Words w;
  for (size_t i = 0; i < kPoseidonWidth; ++i) w[i] = state[i].value();
  size_t round = 0;
  for (; round < kHalfFullRounds; ++round) FullRoundFast(w, round);
  PartialRoundsFast(w);
  round += kPoseidonPartialRounds;
  for (; round < kPoseidonRounds; ++round) FullRoundFast(w, round);
  for (size_t i = 0; i < kPoseidonWidth; ++i) state[i] = Goldilocks::FromUint64(w[i]);
}

bool PoseidonBatchUsesAvx512() { return poseidon_internal::Avx512Available(); }

void PoseidonPermuteBatch(std::span<PoseidonState> states) {
  size_t i = 0;
  if (poseidon_internal::Avx512Available()) {
    constexpr size_t kLanes = poseidon_internal::kAvx512Lanes;
    for (; i + kLanes <= states.size(); i += kLanes) {
      poseidon_internal::PermuteLanesAvx512(states.subspan(i).first<kLanes>());
    }
    // A short tail in padded lanes: eight lanes cost less than a few scalar permutations.
    if (states.size() - i >= poseidon_internal::kAvx512MinTail) {
      std::array<PoseidonState, kLanes> padded{};
      std::copy(states.begin() + static_cast<std::ptrdiff_t>(i), states.end(), padded.begin());
      poseidon_internal::PermuteLanesAvx512(padded);
      std::copy_n(padded.begin(), states.size() - i,
                  states.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  for (; i < states.size(); ++i) PoseidonPermute(states[i]);
}

Digest PoseidonHash(std::span<const Goldilocks, kPoseidonRate> inputs, const Digest& capacity) {
  PoseidonState state;
  for (size_t i = 0; i < kPoseidonRate; ++i) state[i] = inputs[i];
  for (size_t i = 0; i < kDigestElements; ++i) state[kPoseidonRate + i] = capacity[i];
  PoseidonPermute(state);
  Digest out;
  for (size_t i = 0; i < kDigestElements; ++i) out[i] = state[i];
  return out;
}

}  // namespace provd::stark
