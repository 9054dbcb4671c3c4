// Poseidon over Goldilocks as Plonky2 and pil-stark define it (pil-stark's `poseidon`, its
// MerkleHashGL's hash): a state of 12 elements, 8 of rate and 4 of capacity; the S-box x^7;
// 4 full rounds, 22 partial rounds (S-box on element 0 only), 4 full rounds; each round adds its
// 12 constants, applies the S-box and multiplies by the MDS matrix circ(17, 15, 41, 16, 2, 28,
// 13, 13, 39, 18, 34, 20) with 8 added to its (0, 0) entry.
//
// PoseidonPermuteReference is the plain form. PoseidonPermute computes the same permutation
// faster: the MDS product on 32-bit halves (entries below 2^6, so a row's sums fit in 64 bits
// and take one reduction) and the partial rounds in the sparse-matrix form that pil-stark also
// uses (filecoin's neptune optimisation; poseidon_goldilocks_internal.hpp). PoseidonPermuteBatch
// permutes eight states at a time in AVX-512 lanes where the CPU has AVX-512F
// (poseidon_goldilocks_avx512.hpp). Not constant-time: the scalar paths branch on carries, as
// Goldilocks' operators do; no table index depends on the data.
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

// Elements must be canonical (below p), as Goldilocks keeps them; so are the results.
void PoseidonPermute(PoseidonState& state);
void PoseidonPermuteReference(PoseidonState& state);

// PoseidonPermute on every state, eight at a time in AVX-512 lanes when available.
void PoseidonPermuteBatch(std::span<PoseidonState> states);

// Whether PoseidonPermuteBatch uses the AVX-512 lanes: the CPU has AVX-512F, this is an
// optimizing x86-64 build, and PROVD_DISABLE_AVX512_POSEIDON is not 1.
bool PoseidonBatchUsesAvx512();

// pil-stark's poseidon(inputs, capacity): the first 4 elements of the permuted state
// [inputs..., capacity...].
Digest PoseidonHash(std::span<const Goldilocks, kPoseidonRate> inputs, const Digest& capacity);

}  // namespace provd::stark
