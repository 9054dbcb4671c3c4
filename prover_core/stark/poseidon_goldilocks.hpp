// Poseidon over Goldilocks as Plonky2 and pil-stark define it (pil-stark's `poseidon`, its
// MerkleHashGL's hash): a state of 12 elements, 8 of rate and 4 of capacity; the S-box x^7;
// 4 full rounds, 22 partial rounds (S-box on element 0 only), 4 full rounds; each round adds its
// 12 constants, applies the S-box and multiplies by the MDS matrix circ(17, 15, 41, 16, 2, 28,
// 13, 13, 39, 18, 34, 20) with 8 added to its (0, 0) entry.
//
// pil-stark evaluates the partial rounds in a sparse-matrix form (filecoin's neptune
// optimisation) that computes exactly the same permutation; this is the plain form, fast here
// because the MDS entries are below 2^6: a row of the product is one 128-bit sum of twelve
// 64 x 6-bit products and one reduction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "prover_core/field/goldilocks.hpp"

namespace provd::stark {

using field::Goldilocks;

inline constexpr size_t kPoseidonWidth = 12;
inline constexpr size_t kPoseidonRate = 8;
inline constexpr size_t kDigestElements = 4;  // the capacity, and what a hash returns
inline constexpr size_t kPoseidonFullRounds = 8;
inline constexpr size_t kPoseidonPartialRounds = 22;
inline constexpr size_t kPoseidonRounds = kPoseidonFullRounds + kPoseidonPartialRounds;

using PoseidonState = std::array<Goldilocks, kPoseidonWidth>;
using Digest = std::array<Goldilocks, kDigestElements>;

// kPoseidonRounds rows of kPoseidonWidth round constants (poseidon_goldilocks_constants.cpp).
extern const std::array<uint64_t, kPoseidonRounds * kPoseidonWidth> kPoseidonRoundConstants;

void PoseidonPermute(PoseidonState& state);

// pil-stark's poseidon(inputs, capacity): the first 4 elements of the permuted state
// [inputs..., capacity...].
Digest PoseidonHash(std::span<const Goldilocks, kPoseidonRate> inputs, const Digest& capacity);

}  // namespace provd::stark
