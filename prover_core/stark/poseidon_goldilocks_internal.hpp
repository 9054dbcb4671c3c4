// What the scalar and the AVX-512 Poseidon permutations share: the MDS matrix, and the partial
// rounds rewritten in the sparse form of the Poseidon paper's appendix B (filecoin's neptune,
// Plonky2), derived at first use from that matrix and kPoseidonRoundConstants.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "prover_core/stark/poseidon_goldilocks.hpp"

namespace provd::stark::poseidon_internal {

inline constexpr size_t kHalfFullRounds = kPoseidonFullRounds / 2;
inline constexpr size_t kRest = kPoseidonWidth - 1;  // the elements a partial S-box skips

// The MDS matrix: output r is the sum over j of kMds[r][j] times input j.
constexpr std::array<std::array<uint64_t, kPoseidonWidth>, kPoseidonWidth> MdsMatrix() {
  constexpr std::array<uint64_t, kPoseidonWidth> circulant = {17, 15, 41, 16, 2,  28,
                                                              13, 13, 39, 18, 34, 20};
  std::array<std::array<uint64_t, kPoseidonWidth>, kPoseidonWidth> m{};
  for (size_t r = 0; r < kPoseidonWidth; ++r) {
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      m[r][j] = circulant[(j + kPoseidonWidth - r) % kPoseidonWidth];
    }
  }
  m[0][0] += 8;
  return m;
}
inline constexpr auto kMds = MdsMatrix();

// Every sum of a row's products with 32-bit halves stays below 2^41: the split MDS product
// accumulates in 64 bits.
constexpr bool MdsRowsAreSmall() {
  for (const auto& row : kMds) {
    uint64_t sum = 0;
    for (uint64_t c : row) sum += c;
    if (sum >= (uint64_t{1} << 9)) return false;
  }
  return true;
}
static_assert(MdsRowsAreSmall());

// The 22 partial rounds as
//   x += first_constants; x[1..] = init x[1..];
//   per round k: x0 = x0^7 + post_sbox[k]; x = A_k x,
// where A_k is sparse: out0 = kMds[0][0] x0 + sum_j w_hat[k][j] x[j + 1] and
// out[i + 1] = x[i + 1] + v[k][i] x0. The constants are moved backwards through the MDS matrix
// (each round's 12 constants become 11 added one round earlier before its S-box and 1 after it);
// the matrices come from factoring each MDS product as A_k diag(1, N_k) and moving diag(1, N_k),
// which commutes with the partial S-box, into the previous round. Without `init` and the A_k,
// `first_constants` and `post_sbox` also hold for the dense MDS product in every round.
struct SparsePartialRounds {
  std::array<uint64_t, kPoseidonWidth> first_constants;
  std::array<std::array<uint64_t, kRest>, kRest> init;
  std::array<uint64_t, kPoseidonPartialRounds> post_sbox;  // the last is 0
  std::array<std::array<uint64_t, kRest>, kPoseidonPartialRounds> w_hat;
  std::array<std::array<uint64_t, kRest>, kPoseidonPartialRounds> v;
};

// Derived once (thread-safe static), all entries canonical.
const SparsePartialRounds& GetSparsePartialRounds();

}  // namespace provd::stark::poseidon_internal
