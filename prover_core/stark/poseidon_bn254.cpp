#include "prover_core/stark/poseidon_bn254.hpp"

#include <array>
#include <cstdlib>
#include <vector>

#include "prover_core/stark/poseidon_grain.hpp"
#include "prover_core/stark/poseidon_sparse.hpp"

namespace provd::stark {
namespace {

// circomlib's N_ROUNDS_P, for t = 2 .. 17: the paper's secure numbers rounded up.
constexpr std::array<size_t, kPoseidonBn254MaxWidth - 1> kPartialRounds = {
    56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68};

Bn254Fr Pow5(const Bn254Fr& x) {
  const Bn254Fr x2 = x * x;
  return x2 * x2 * x;
}

struct Parameters {
  GrainPoseidonParameters<Bn254Fr> plain;
  SparsePartialRoundsOf<Bn254Fr> sparse;
};

const Parameters& ParametersFor(size_t width) {
  // All widths at once, on first use (some 0.1 s): a thread-safe static.
  static const std::vector<Parameters> all = [] {
    std::vector<Parameters> p;
    for (size_t t = 2; t <= kPoseidonBn254MaxWidth; ++t) {
      Parameters q;
      q.plain = DeriveGrainPoseidon<Bn254Fr>(static_cast<unsigned>(t), kPoseidonBn254FullRounds,
                                             static_cast<unsigned>(kPartialRounds[t - 2]));
      q.sparse =
          DeriveSparsePartialRounds<Bn254Fr>(q.plain.mds, q.plain.round_constants,
                                             kPoseidonBn254FullRounds / 2, kPartialRounds[t - 2]);
      p.push_back(std::move(q));
    }
    return p;
  }();
  return all[width - 2];
}

void AddConstantsSboxAndMix(std::span<Bn254Fr> state, const Parameters& p, size_t round,
                            bool full) {
  const size_t t = state.size();
  for (size_t i = 0; i < t; ++i) state[i] += p.plain.round_constants[round * t + i];
  if (full) {
    for (size_t i = 0; i < t; ++i) state[i] = Pow5(state[i]);
  } else {
    state[0] = Pow5(state[0]);
  }
  std::array<Bn254Fr, kPoseidonBn254MaxWidth> mixed;
  for (size_t i = 0; i < t; ++i) {
    Bn254Fr acc = Bn254Fr::Zero();
    for (size_t j = 0; j < t; ++j) acc += p.plain.mds[i][j] * state[j];
    mixed[i] = acc;
  }
  std::copy_n(mixed.begin(), t, state.begin());
}

}  // namespace

size_t PoseidonBn254PartialRounds(size_t width) {
  if (width < 2 || width > kPoseidonBn254MaxWidth) std::abort();
  return kPartialRounds[width - 2];
}

void PoseidonBn254PermuteReference(std::span<Bn254Fr> state) {
  const size_t partial = PoseidonBn254PartialRounds(state.size());
  const Parameters& p = ParametersFor(state.size());
  const size_t half_full = kPoseidonBn254FullRounds / 2;
  for (size_t r = 0; r < kPoseidonBn254FullRounds + partial; ++r) {
    AddConstantsSboxAndMix(state, p, r, r < half_full || r >= half_full + partial);
  }
}

void PoseidonBn254Permute(std::span<Bn254Fr> state) {
  const size_t t = state.size();
  const size_t partial = PoseidonBn254PartialRounds(t);
  const Parameters& p = ParametersFor(t);
  const SparsePartialRoundsOf<Bn254Fr>& sp = p.sparse;
  const size_t half_full = kPoseidonBn254FullRounds / 2;
  for (size_t r = 0; r < half_full; ++r) AddConstantsSboxAndMix(state, p, r, true);
  for (size_t i = 0; i < t; ++i) state[i] += sp.first_constants[i];
  std::array<Bn254Fr, kPoseidonBn254MaxWidth> rest;
  for (size_t i = 0; i + 1 < t; ++i) {
    Bn254Fr acc = Bn254Fr::Zero();
    for (size_t j = 0; j + 1 < t; ++j) acc += sp.init[i][j] * state[j + 1];
    rest[i] = acc;
  }
  std::copy_n(rest.begin(), t - 1, state.begin() + 1);
  const Bn254Fr m00 = p.plain.mds[0][0];
  for (size_t k = 0; k < partial; ++k) {
    const Bn254Fr x0 = Pow5(state[0]) + sp.post_sbox[k];
    Bn254Fr out0 = m00 * x0;
    for (size_t j = 0; j + 1 < t; ++j) out0 += sp.w_hat[k][j] * state[j + 1];
    for (size_t i = 0; i + 1 < t; ++i) state[i + 1] += sp.v[k][i] * x0;
    state[0] = out0;
  }
  for (size_t r = half_full + partial; r < kPoseidonBn254FullRounds + partial; ++r) {
    AddConstantsSboxAndMix(state, p, r, true);
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
