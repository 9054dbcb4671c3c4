#include "prover_core/stark/poseidon_goldilocks.hpp"

namespace provd::stark {
namespace {

// The first row of the circulant MDS matrix: output r takes kMdsCirculant[(j - r) mod 12]
// times input j, plus kMdsDiagonal0 times input 0 for r = 0.
using field::u128;

constexpr std::array<uint64_t, kPoseidonWidth> kMdsCirculant = {17, 15, 41, 16, 2,  28,
                                                                13, 13, 39, 18, 34, 20};
constexpr uint64_t kMdsDiagonal0 = 8;

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

// Twelve products below 2^70 sum to less than 2^74: one reduction per output.
inline void MultiplyByMds(PoseidonState& state) {
  std::array<uint64_t, kPoseidonWidth> in;
  for (size_t j = 0; j < kPoseidonWidth; ++j) in[j] = state[j].value();
  for (size_t r = 0; r < kPoseidonWidth; ++r) {
    u128 sum = 0;
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      sum += static_cast<u128>(in[j]) * kMdsCirculant[(j + kPoseidonWidth - r) % kPoseidonWidth];
    }
    if (r == 0) sum += static_cast<u128>(in[0]) * kMdsDiagonal0;
    state[r] = Goldilocks::FromUint128(sum);
  }
}

inline void FullRound(PoseidonState& state, size_t round) {
  AddRoundConstants(state, round);
  for (Goldilocks& x : state) x = Pow7(x);
  MultiplyByMds(state);
}

inline void PartialRound(PoseidonState& state, size_t round) {
  AddRoundConstants(state, round);
  state[0] = Pow7(state[0]);
  MultiplyByMds(state);
}

}  // namespace

void PoseidonPermute(PoseidonState& state) {
  constexpr size_t kHalfFull = kPoseidonFullRounds / 2;
  size_t round = 0;
  for (; round < kHalfFull; ++round) FullRound(state, round);
  for (; round < kHalfFull + kPoseidonPartialRounds; ++round) PartialRound(state, round);
  for (; round < kPoseidonRounds; ++round) FullRound(state, round);
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
