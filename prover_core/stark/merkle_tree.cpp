#include "prover_core/stark/merkle_tree.hpp"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "prover_core/stark/merkle_tree_bn128.hpp"

namespace provd::stark {
namespace {

// Digests above a level of `digests` digests once padded to a multiple of the arity.
size_t ParentCount(size_t digests, size_t arity) { return (digests + arity - 1) / arity; }

// Rows per task: enough hashing that the pool's hand-off is noise.
constexpr size_t kRowsPerTask = 256;

// Rows or nodes hashed side by side through PoseidonPermuteBatch: a multiple of its eight
// AVX-512 lanes, small enough that the states stay in L1.
constexpr size_t kHashBatch = 16;
using BatchStates = std::array<PoseidonState, kHashBatch>;

// The first 4 elements of `digest` (a digest, or the state whose first elements are one) into
// nodes[at ...], as words (Goldilocks keeps them canonical).
void StoreDigest(std::span<const Goldilocks> digest, std::span<uint64_t> nodes, size_t at) {
  for (size_t j = 0; j < kDigestWords; ++j) nodes[at + j] = digest[j].value();
}

void HashLeavesGoldilocks(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                          size_t row_count, std::span<uint64_t> nodes, ThreadPool& pool);
void HashLevelGoldilocks(const MerkleLevel& level, size_t first, size_t count,
                         std::span<uint64_t> nodes, ThreadPool& pool);

// LinearHash of `count` rows of `width` > 4 elements from `first`, into nodes[4 first ...]. The
// capacity of each block's permutation is the previous one's first 4 elements (its digest).
void HashLongRows(std::span<const Goldilocks> rows, size_t width, size_t first, size_t count,
                  std::span<uint64_t> nodes, BatchStates& states) {
  for (size_t i = 0; i < count; ++i) states[i].fill(Goldilocks::Zero());
  for (size_t start = 0; start < width; start += kPoseidonRate) {
    const size_t take = std::min(kPoseidonRate, width - start);
    for (size_t i = 0; i < count; ++i) {
      PoseidonState& s = states[i];
      std::copy_n(s.begin(), kDigestElements, s.begin() + kPoseidonRate);
      const auto block = rows.subspan((first + i) * width + start, take);
      std::copy(block.begin(), block.end(), s.begin());
      std::fill(s.begin() + static_cast<std::ptrdiff_t>(take),
                s.begin() + static_cast<std::ptrdiff_t>(kPoseidonRate), Goldilocks::Zero());
    }
    PoseidonPermuteBatch(std::span(states).first(count));
  }
  for (size_t i = 0; i < count; ++i) StoreDigest(states[i], nodes, (first + i) * kDigestWords);
}

}  // namespace

std::vector<MerkleLevel> MerkleLevels(size_t height, size_t arity) {
  std::vector<MerkleLevel> levels;
  size_t digests = height;
  size_t input = 0;
  while (digests > 1) {
    const size_t parents = ParentCount(digests, arity);
    // The input level takes arity * parents digests, zero-padded past `digests`.
    const size_t output = input + arity * parents * kDigestWords;
    levels.push_back({input, output, parents, arity});
    input = output;
    digests = parents;
  }
  return levels;
}

size_t MerkleNodeWords(size_t height, size_t arity) {
  if (height <= 1) return arity * kDigestWords;  // pil-stark's layout for one leaf
  const std::vector<MerkleLevel> levels = MerkleLevels(height, arity);
  return levels.back().output_offset + kDigestWords;
}

MerkleScheme SchemeWithArity(MerkleHash hash, size_t arity) {
  if (arity != 0) return {hash, arity};
  return {hash, hash == MerkleHash::kPoseidonBn128 ? kDefaultBn128Arity : size_t{2}};
}

absl::Status ValidateScheme(const MerkleScheme& scheme) {
  switch (scheme.hash) {
    case MerkleHash::kPoseidonGoldilocks:
      if (scheme.arity == 2) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(
          "merkle arity ", scheme.arity, ": the Goldilocks Poseidon tree is binary (arity 2)"));
    case MerkleHash::kPoseidonBn128:
      if (scheme.arity >= 2 && scheme.arity <= kMaxMerkleArity &&
          (scheme.arity & (scheme.arity - 1)) == 0) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "merkle arity ", scheme.arity, ": the BN128 Poseidon tree takes 2, 4, 8 or 16"));
  }
  return absl::InvalidArgumentError("unknown Merkle hash");
}

Digest LinearHash(std::span<const Goldilocks> row) {
  Digest state{};
  if (row.size() <= kDigestElements) {
    std::copy(row.begin(), row.end(), state.begin());
    return state;
  }
  std::array<Goldilocks, kPoseidonRate> block;
  for (size_t start = 0; start < row.size(); start += kPoseidonRate) {
    const size_t take = std::min(kPoseidonRate, row.size() - start);
    std::copy_n(row.begin() + static_cast<std::ptrdiff_t>(start), take, block.begin());
    std::fill(block.begin() + static_cast<std::ptrdiff_t>(take), block.end(), Goldilocks::Zero());
    state = PoseidonHash(block, state);
  }
  return state;
}

absl::Status CheckLeafRange(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                            size_t row_count, std::span<const uint64_t> nodes) {
  if (width == 0 || rows.size() % width != 0 || first_row > rows.size() / width ||
      row_count > rows.size() / width - first_row ||
      (first_row + row_count) * kDigestWords > nodes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("leaves [", first_row, ", ", first_row + row_count, ") of ", rows.size(),
                     " elements in rows of ", width, " into ", nodes.size(), " node words"));
  }
  return absl::OkStatus();
}

absl::Status CheckLevelRange(const MerkleLevel& level, size_t first, size_t count,
                             std::span<const uint64_t> nodes) {
  if (level.arity < 2 || level.arity > kMaxMerkleArity || first > level.hashes ||
      count > level.hashes - first ||
      level.output_offset + level.hashes * kDigestWords > nodes.size() ||
      level.input_offset + level.arity * level.hashes * kDigestWords > level.output_offset) {
    return absl::InvalidArgumentError(absl::StrCat("hashes [", first, ", ", first + count,
                                                   ") of a Merkle level of ", level.hashes, " in ",
                                                   nodes.size(), " node words"));
  }
  return absl::OkStatus();
}

absl::Status HashLeaves(const MerkleScheme& scheme, std::span<const Goldilocks> rows, size_t width,
                        size_t first_row, size_t row_count, std::span<uint64_t> nodes,
                        ThreadPool& pool) {
  if (absl::Status s = ValidateScheme(scheme); !s.ok()) return s;
  if (absl::Status s = CheckLeafRange(rows, width, first_row, row_count, nodes); !s.ok()) {
    return s;
  }
  if (scheme.hash == MerkleHash::kPoseidonBn128) {
    HashLeavesBn128(rows, width, first_row, row_count, scheme.arity, nodes, pool);
  } else {
    HashLeavesGoldilocks(rows, width, first_row, row_count, nodes, pool);
  }
  return absl::OkStatus();
}

absl::Status HashLevel(const MerkleScheme& scheme, const MerkleLevel& level, size_t first,
                       size_t count, std::span<uint64_t> nodes, ThreadPool& pool) {
  if (absl::Status s = ValidateScheme(scheme); !s.ok()) return s;
  if (absl::Status s = CheckLevelRange(level, first, count, nodes); !s.ok()) return s;
  if (level.arity != scheme.arity) {
    return absl::InvalidArgumentError(
        absl::StrCat("a level of arity ", level.arity, " in a tree of arity ", scheme.arity));
  }
  if (scheme.hash == MerkleHash::kPoseidonBn128) {
    HashLevelBn128(level, first, count, nodes, pool);
  } else {
    HashLevelGoldilocks(level, first, count, nodes, pool);
  }
  return absl::OkStatus();
}

RootWords MerkleRoot(std::span<const uint64_t> nodes) {
  RootWords root{};
  if (nodes.size() >= kDigestWords)
    std::copy(nodes.end() - kDigestWords, nodes.end(), root.begin());
  return root;
}

namespace {

void HashLeavesGoldilocks(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                          size_t row_count, std::span<uint64_t> nodes, ThreadPool& pool) {
  pool.ParallelForRange(row_count, kRowsPerTask, [&](size_t begin, size_t end) {
    if (width <= kDigestElements) {
      for (size_t r = first_row + begin; r < first_row + end; ++r) {
        StoreDigest(LinearHash(rows.subspan(r * width, width)), nodes,  // a copy, no hash
                    r * kDigestWords);
      }
      return;
    }
    BatchStates states;
    for (size_t r = first_row + begin; r < first_row + end; r += kHashBatch) {
      HashLongRows(rows, width, r, std::min(kHashBatch, first_row + end - r), nodes, states);
    }
  });
}

void HashLevelGoldilocks(const MerkleLevel& level, size_t first, size_t count,
                         std::span<uint64_t> nodes, ThreadPool& pool) {
  pool.ParallelForRange(count, kRowsPerTask, [&](size_t begin, size_t end) {
    // A node is the permutation of [left digest, right digest, zero capacity]: its children's
    // 8 elements are contiguous in `nodes`.
    BatchStates states;
    for (size_t k0 = first + begin; k0 < first + end; k0 += kHashBatch) {
      const size_t n = std::min(kHashBatch, first + end - k0);
      for (size_t i = 0; i < n; ++i) {
        const size_t children = level.input_offset + (k0 + i) * kPoseidonRate;
        for (size_t j = 0; j < kPoseidonRate; ++j) {
          states[i][j] = Goldilocks::FromUint64(nodes[children + j]);
        }
        std::fill(states[i].begin() + static_cast<std::ptrdiff_t>(kPoseidonRate), states[i].end(),
                  Goldilocks::Zero());
      }
      PoseidonPermuteBatch(std::span(states).first(n));
      for (size_t i = 0; i < n; ++i) {
        StoreDigest(states[i], nodes, level.output_offset + (k0 + i) * kDigestWords);
      }
    }
  });
}

}  // namespace

}  // namespace provd::stark
