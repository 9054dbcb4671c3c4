// pil-stark's MerkleHashBN128 (merkle_tree.hpp describes it): the kernels behind HashLeaves and
// HashLevel for MerkleHash::kPoseidonBn128, on ranges those have checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

// The leaf of one row (pil-stark's linearHash in merklehash_bn128_worker.js).
field::Bn254Fr LinearHashBn128(std::span<const field::Goldilocks> row, size_t arity);

void HashLeavesBn128(std::span<const field::Goldilocks> rows, size_t width, size_t first_row,
                     size_t row_count, size_t arity, std::span<uint64_t> nodes, ThreadPool& pool);

struct MerkleLevel;
void HashLevelBn128(const MerkleLevel& level, size_t first, size_t count, std::span<uint64_t> nodes,
                    ThreadPool& pool);

// A digest's words: the element's Montgomery limbs, as pil-stark's tree holds them.
void StoreBn128Digest(const field::Bn254Fr& x, std::span<uint64_t> words);
field::Bn254Fr LoadBn128Digest(std::span<const uint64_t> words);

// The root's integer (its canonical limbs, little-endian) from its words.
std::array<uint64_t, 4> Bn128RootInteger(std::span<const uint64_t, 4> words);

}  // namespace provd::stark
