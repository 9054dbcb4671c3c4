// pil-stark's MerkleHashGL over the rows of an extended trace, in pil-stark's own node layout
// (so a tree can be written as its `writeToFile` writes it and opened by its tools).
//
// Leaf r is the LinearHash of row r: its elements zero-padded to 4 when there are at most 4,
// otherwise a sponge that absorbs 8 elements at a time into a 4-element capacity (the last block
// zero-padded) and outputs that capacity's Poseidon digest. A node is the Poseidon hash of its
// two children's digests (8 elements, capacity zero). `nodes` holds the leaf digests, then each
// level above them, bottom up, 4 elements per digest; a level with an odd number of digests is
// padded with a zero digest, and the root is the last 4 elements.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "prover_core/stark/poseidon_goldilocks.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

// One level above the leaves: `hashes` digests written from element `output_offset`, each of
// the two digests from `input_offset + 8 k`.
struct MerkleLevel {
  size_t input_offset = 0;
  size_t output_offset = 0;
  size_t hashes = 0;
};

// Elements of `nodes` for a tree of `height` leaves (pil-stark's _getNNodes(height * 4)).
size_t MerkleNodeElements(size_t height);

// The levels above `height` leaves, bottom up; empty for a single leaf.
std::vector<MerkleLevel> MerkleLevels(size_t height);

Digest LinearHash(std::span<const Goldilocks> row);

// Leaves [first_row, first_row + row_count) of the row-major `rows` (`width` elements a row) into
// nodes[4 first_row ...]. INVALID_ARGUMENT when the ranges do not fit.
absl::Status HashLeaves(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                        size_t row_count, std::span<Goldilocks> nodes, ThreadPool& pool);

// INVALID_ARGUMENT unless HashLeaves / HashLevel could run on these ranges (what every backend
// checks before it touches anything).
absl::Status CheckLeafRange(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                            size_t row_count, std::span<const Goldilocks> nodes);
absl::Status CheckLevelRange(const MerkleLevel& level, size_t first, size_t count,
                             std::span<const Goldilocks> nodes);

// Hashes [first, first + count) of `level`, whose inputs must be complete.
absl::Status HashLevel(const MerkleLevel& level, size_t first, size_t count,
                       std::span<Goldilocks> nodes, ThreadPool& pool);

// The last digest of `nodes`.
Digest MerkleRoot(std::span<const Goldilocks> nodes);

}  // namespace provd::stark
