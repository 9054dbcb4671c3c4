// Poseidon over the BN254 scalar field as circomlib defines it (circomlibjs's `poseidon`, the
// hash of pil-stark's BN128 Merkle tree and of circom circuits): a state of t = 2 to 17
// elements [initial state, inputs...], the S-box x^5, 8 full rounds and circomlib's number of
// partial rounds for t (56 to 70), each round adding t constants, applying the S-box (to
// element 0 only in a partial round) and multiplying by a t x t MDS matrix. The constants and
// matrices are derived at first use (poseidon_grain.hpp), not copied.
//
// PoseidonBn254Permute runs the partial rounds in the sparse form (poseidon_sparse.hpp, as
// circomlib's poseidon_opt does): 2t products a partial round instead of t^2.
// PoseidonBn254PermuteReference is the plain form, every round a dense matrix product. Not
// constant-time (field inversion at set-up; Fp's carries); what it hashes here are public
// commitments.
#pragma once

#include <cstddef>
#include <span>

#include "prover_core/field/bn254.hpp"

namespace provd::stark {

using field::Bn254Fr;

inline constexpr size_t kPoseidonBn254MaxWidth = 17;
inline constexpr size_t kPoseidonBn254FullRounds = 8;

// circomlib's partial rounds for width t (2 <= t <= 17).
size_t PoseidonBn254PartialRounds(size_t width);

// Permutes `state` in place; its size is the width t, 2 to 17 (anything else aborts: a caller
// bug, never input).
void PoseidonBn254Permute(std::span<Bn254Fr> state);
void PoseidonBn254PermuteReference(std::span<Bn254Fr> state);

// circomlib's poseidon(inputs, init_state): element 0 of the permuted [init_state, inputs...];
// 1 to 16 inputs.
Bn254Fr PoseidonBn254Hash(std::span<const Bn254Fr> inputs, const Bn254Fr& init_state);

}  // namespace provd::stark
