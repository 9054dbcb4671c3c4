// pil-stark's Merkle trees over the rows of an extended trace, in pil-stark's own node layout
// (so a tree can be written as its `writeToFile` writes it and opened by its tools), with either
// of its hashes:
//
// MerkleHashGL (Poseidon over Goldilocks, binary): leaf r is the LinearHash of row r: its
// elements zero-padded to 4 when there are at most 4, otherwise a sponge that absorbs 8 elements
// at a time into a 4-element capacity (the last block zero-padded) and outputs that capacity's
// Poseidon digest. A node is the Poseidon hash of its two children's digests (8 elements,
// capacity zero).
//
// MerkleHashBN128 (circomlib's Poseidon over the BN254 scalar field, `arity` children a node,
// 16 by default): a row of at most 4 elements is the leaf as one 256-bit integer (element k its
// k-th u64 limb, reduced); a longer row is packed 3 elements to a field element (element k of a
// group at bit 64 k) and absorbed `arity` field elements at a time, the previous digest as the
// initial state, the last group of inputs as short as it is. A node is the Poseidon hash of its
// `arity` children, initial state zero.
//
// A digest is 4 u64 words either way: 4 Goldilocks elements, or a BN254 element's Montgomery
// limbs (R = 2^256, as pil-stark's wasm keeps them and writes them to the tree file). `nodes`
// holds the leaf digests, then each level above them, bottom up; a level is padded with zero
// digests to a multiple of the arity, and the root is the last digest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "prover_core/stark/poseidon_goldilocks.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

enum class MerkleHash {
  kPoseidonGoldilocks,  // pil-stark's MerkleHashGL
  kPoseidonBn128,       // pil-stark's MerkleHashBN128
};

inline constexpr size_t kDefaultBn128Arity = 16;  // pil-stark's merkleTreeArity default
inline constexpr size_t kMaxMerkleArity = 16;     // circomlib's Poseidon takes up to 16 inputs

struct MerkleScheme {
  MerkleHash hash = MerkleHash::kPoseidonGoldilocks;
  size_t arity = 2;  // 2 for Goldilocks; 2, 4, 8 or 16 for BN128
};

// The scheme of `hash` with `arity` children a node, 0 meaning the hash's default (2 for
// Goldilocks, kDefaultBn128Arity for BN128), as requests and the command line state it; not
// validated.
MerkleScheme SchemeWithArity(MerkleHash hash, size_t arity);

// INVALID_ARGUMENT naming the arity when the hash does not take it.
absl::Status ValidateScheme(const MerkleScheme& scheme);

inline constexpr size_t kDigestWords = 4;
using RootWords = std::array<uint64_t, kDigestWords>;

// One level above the leaves: `hashes` digests written from word `output_offset`, each of its
// `arity` children from `input_offset + arity * 4 k`.
struct MerkleLevel {
  size_t input_offset = 0;
  size_t output_offset = 0;
  size_t hashes = 0;
  size_t arity = 2;
};

// Words of `nodes` for a tree of `height` leaves (pil-stark's _getNNodes, times 4).
size_t MerkleNodeWords(size_t height, size_t arity);

// The levels above `height` leaves, bottom up; empty for a single leaf.
std::vector<MerkleLevel> MerkleLevels(size_t height, size_t arity);

// MerkleHashGL's leaf of one row.
Digest LinearHash(std::span<const Goldilocks> row);

// Leaves [first_row, first_row + row_count) of the row-major `rows` (`width` elements a row) into
// nodes[4 first_row ...]. INVALID_ARGUMENT when the ranges do not fit.
absl::Status HashLeaves(const MerkleScheme& scheme, std::span<const Goldilocks> rows, size_t width,
                        size_t first_row, size_t row_count, std::span<uint64_t> nodes,
                        ThreadPool& pool);

// INVALID_ARGUMENT unless HashLeaves / HashLevel could run on these ranges (what every backend
// checks before it touches anything).
absl::Status CheckLeafRange(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                            size_t row_count, std::span<const uint64_t> nodes);
absl::Status CheckLevelRange(const MerkleLevel& level, size_t first, size_t count,
                             std::span<const uint64_t> nodes);

// Hashes [first, first + count) of `level`, whose inputs must be complete.
absl::Status HashLevel(const MerkleScheme& scheme, const MerkleLevel& level, size_t first,
                       size_t count, std::span<uint64_t> nodes, ThreadPool& pool);

// The last digest of `nodes`, as words.
RootWords MerkleRoot(std::span<const uint64_t> nodes);

}  // namespace provd::stark
