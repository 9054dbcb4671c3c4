// SparsePartialRounds for Goldilocks's width 12, from the generic derivation (poseidon_sparse.hpp)
// in the fixed-size words the scalar and AVX-512 rounds read.
#include <array>
#include <cstdlib>
#include <span>
#include <vector>

#include "prover_core/stark/poseidon_goldilocks_internal.hpp"
#include "prover_core/stark/poseidon_sparse.hpp"

namespace provd::stark::poseidon_internal {
namespace {

void Copy(const std::vector<Goldilocks>& from, std::span<uint64_t> to) {
  if (from.size() != to.size()) std::abort();
  for (size_t i = 0; i < to.size(); ++i) to[i] = from[i].value();
}

SparsePartialRounds Derive() {
  constexpr size_t kW = kPoseidonWidth;
  PoseidonMatrix<Goldilocks> mds(kW, std::vector<Goldilocks>(kW));
  for (size_t r = 0; r < kW; ++r) {
    for (size_t j = 0; j < kW; ++j) mds[r][j] = Goldilocks::FromUint64(kMds[r][j]);
  }
  std::vector<Goldilocks> constants;
  for (uint64_t c : kPoseidonRoundConstants) constants.push_back(Goldilocks::FromUint64(c));
  const SparsePartialRoundsOf<Goldilocks> d = DeriveSparsePartialRounds<Goldilocks>(
      mds, constants, kHalfFullRounds, kPoseidonPartialRounds);
  SparsePartialRounds out{};
  Copy(d.first_constants, out.first_constants);
  Copy(d.post_sbox, out.post_sbox);
  for (size_t i = 0; i < kRest; ++i) Copy(d.init[i], out.init[i]);
  for (size_t k = 0; k < kPoseidonPartialRounds; ++k) {
    Copy(d.w_hat[k], out.w_hat[k]);
    Copy(d.v[k], out.v[k]);
  }
  return out;
}

}  // namespace

const SparsePartialRounds& GetSparsePartialRounds() {
  static const SparsePartialRounds rounds = Derive();
  return rounds;
}

}  // namespace provd::stark::poseidon_internal
