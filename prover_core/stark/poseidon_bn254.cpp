#include "prover_core/stark/poseidon_bn254.hpp"

#include <array>
#include <cstdlib>
#include <vector>

#include "prover_core/stark/poseidon_grain.hpp"

namespace provd::stark {
namespace {

// circomlib's N_ROUNDS_P, for t = 2 .. 17: the paper's secure numbers rounded up.
constexpr std::array<size_t, kPoseidonBn254MaxWidth - 1> kPartialRounds = {
    56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68};

using Parameters = GrainPoseidonParameters<Bn254Fr>;

const Parameters& ParametersFor(size_t width) {
  // All widths at once, on first use (some 50 ms): a thread-safe static.
  static const std::vector<Parameters> all = [] {
    std::vector<Parameters> p;
    for (size_t t = 2; t <= kPoseidonBn254MaxWidth; ++t) {
      p.push_back(DeriveGrainPoseidon<Bn254Fr>(static_cast<unsigned>(t), kPoseidonBn254FullRounds,
                                               static_cast<unsigned>(kPartialRounds[t - 2])));
    }
    return p;
  }();
  return all[width - 2];
}

Bn254Fr Pow5(const Bn254Fr& x) {
  const Bn254Fr x2 = x * x;
  return x2 * x2 * x;
}

}  // namespace

size_t PoseidonBn254PartialRounds(size_t width) {
  if (width < 2 || width > kPoseidonBn254MaxWidth) std::abort();
  return kPartialRounds[width - 2];
}

void PoseidonBn254Permute(std::span<Bn254Fr> state) {
  const size_t t = state.size();
  const size_t partial = PoseidonBn254PartialRounds(t);
  const Parameters& p = ParametersFor(t);
  const size_t half_full = kPoseidonBn254FullRounds / 2;
  std::array<Bn254Fr, kPoseidonBn254MaxWidth> mixed;
  for (size_t r = 0; r < kPoseidonBn254FullRounds + partial; ++r) {
    for (size_t i = 0; i < t; ++i) state[i] += p.round_constants[r * t + i];
    if (r < half_full || r >= half_full + partial) {
      for (size_t i = 0; i < t; ++i) state[i] = Pow5(state[i]);
    } else {
      state[0] = Pow5(state[0]);
    }
    for (size_t i = 0; i < t; ++i) {
      Bn254Fr acc = Bn254Fr::Zero();
      for (size_t j = 0; j < t; ++j) acc += p.mds[i][j] * state[j];
      mixed[i] = acc;
    }
    std::copy_n(mixed.begin(), t, state.begin());
  }
}

Bn254Fr PoseidonBn254Hash(std::span<const Bn254Fr> inputs, const Bn254Fr& init_state) {
  if (inputs.empty() || inputs.size() >= kPoseidonBn254MaxWidth) std::abort();
  std::array<Bn254Fr, kPoseidonBn254MaxWidth> state;
  state[0] = init_state;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  PoseidonBn254Permute(std::span(state).first(inputs.size() + 1));
  return state[0];
}

}  // namespace provd::stark
