#include "prover_core/stark/merkle_tree.hpp"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"

namespace provd::stark {
namespace {

// Digests of a level of `digests` digests once padded to an even count: ceil(digests / 2).
size_t ParentCount(size_t digests) { return (digests + 1) / 2; }

// Rows per task: enough hashing that the pool's hand-off is noise.
constexpr size_t kRowsPerTask = 256;

// Rows or nodes hashed side by side through PoseidonPermuteBatch: a multiple of its eight
// AVX-512 lanes, small enough that the states stay in L1.
constexpr size_t kHashBatch = 16;
using BatchStates = std::array<PoseidonState, kHashBatch>;

// LinearHash of `count` rows of `width` > 4 elements from `first`, into nodes[4 first ...]. The
// capacity of each block's permutation is the previous one's first 4 elements (its digest).
void HashLongRows(std::span<const Goldilocks> rows, size_t width, size_t first, size_t count,
                  std::span<Goldilocks> nodes, BatchStates& states) {
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
  for (size_t i = 0; i < count; ++i) {
    std::copy_n(states[i].begin(), kDigestElements,
                nodes.begin() + static_cast<std::ptrdiff_t>((first + i) * kDigestElements));
  }
}

}  // namespace

std::vector<MerkleLevel> MerkleLevels(size_t height) {
  std::vector<MerkleLevel> levels;
  size_t digests = height;
  size_t input = 0;
  while (digests > 1) {
    const size_t parents = ParentCount(digests);
    // The input level takes 2 * parents digests, zero-padded when `digests` is odd.
    const size_t output = input + 2 * parents * kDigestElements;
    levels.push_back({input, output, parents});
    input = output;
    digests = parents;
  }
  return levels;
}

size_t MerkleNodeElements(size_t height) {
  if (height <= 1) return 2 * kDigestElements;  // pil-stark's layout for one leaf
  const std::vector<MerkleLevel> levels = MerkleLevels(height);
  return levels.back().output_offset + kDigestElements;
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
                            size_t row_count, std::span<const Goldilocks> nodes) {
  if (width == 0 || rows.size() % width != 0 || first_row > rows.size() / width ||
      row_count > rows.size() / width - first_row ||
      (first_row + row_count) * kDigestElements > nodes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("leaves [", first_row, ", ", first_row + row_count, ") of ", rows.size(),
                     " elements in rows of ", width, " into ", nodes.size(), " node elements"));
  }
  return absl::OkStatus();
}

absl::Status CheckLevelRange(const MerkleLevel& level, size_t first, size_t count,
                             std::span<const Goldilocks> nodes) {
  if (first > level.hashes || count > level.hashes - first ||
      level.output_offset + level.hashes * kDigestElements > nodes.size() ||
      level.input_offset + 2 * level.hashes * kDigestElements > level.output_offset) {
    return absl::InvalidArgumentError(absl::StrCat("hashes [", first, ", ", first + count,
                                                   ") of a Merkle level of ", level.hashes, " in ",
                                                   nodes.size(), " node elements"));
  }
  return absl::OkStatus();
}

absl::Status HashLeaves(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                        size_t row_count, std::span<Goldilocks> nodes, ThreadPool& pool) {
  if (absl::Status s = CheckLeafRange(rows, width, first_row, row_count, nodes); !s.ok()) {
    return s;
  }
  pool.ParallelForRange(row_count, kRowsPerTask, [&](size_t begin, size_t end) {
    if (width <= kDigestElements) {
      for (size_t r = first_row + begin; r < first_row + end; ++r) {
        const Digest d = LinearHash(rows.subspan(r * width, width));  // a copy, no hash
        std::copy(d.begin(), d.end(),
                  nodes.begin() + static_cast<std::ptrdiff_t>(r * kDigestElements));
      }
      return;
    }
    BatchStates states;
    for (size_t r = first_row + begin; r < first_row + end; r += kHashBatch) {
      HashLongRows(rows, width, r, std::min(kHashBatch, first_row + end - r), nodes, states);
    }
  });
  return absl::OkStatus();
}

absl::Status HashLevel(const MerkleLevel& level, size_t first, size_t count,
                       std::span<Goldilocks> nodes, ThreadPool& pool) {
  if (absl::Status s = CheckLevelRange(level, first, count, nodes); !s.ok()) return s;
  pool.ParallelForRange(count, kRowsPerTask, [&](size_t begin, size_t end) {
    // A node is the permutation of [left digest, right digest, zero capacity]: its children's
    // 8 elements are contiguous in `nodes`.
    BatchStates states;
    for (size_t k0 = first + begin; k0 < first + end; k0 += kHashBatch) {
      const size_t n = std::min(kHashBatch, first + end - k0);
      for (size_t i = 0; i < n; ++i) {
        const auto children =
            nodes.subspan(level.input_offset + (k0 + i) * kPoseidonRate, kPoseidonRate);
        std::copy(children.begin(), children.end(), states[i].begin());
        std::fill(states[i].begin() + static_cast<std::ptrdiff_t>(kPoseidonRate), states[i].end(),
                  Goldilocks::Zero());
      }
      PoseidonPermuteBatch(std::span(states).first(n));
      for (size_t i = 0; i < n; ++i) {
        std::copy_n(states[i].begin(), kDigestElements,
                    nodes.begin() + static_cast<std::ptrdiff_t>(level.output_offset +
                                                                (k0 + i) * kDigestElements));
      }
    }
  });
  return absl::OkStatus();
}

Digest MerkleRoot(std::span<const Goldilocks> nodes) {
  Digest root{};
  if (nodes.size() >= kDigestElements) {
    std::copy(nodes.end() - kDigestElements, nodes.end(), root.begin());
  }
  return root;
}

}  // namespace provd::stark
