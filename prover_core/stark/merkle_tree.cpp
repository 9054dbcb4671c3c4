#include "prover_core/stark/merkle_tree.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace provd::stark {
namespace {

// Digests of a level of `digests` digests once padded to an even count: ceil(digests / 2).
size_t ParentCount(size_t digests) { return (digests + 1) / 2; }

// Rows per task: enough hashing that the pool's hand-off is noise.
constexpr size_t kRowsPerTask = 256;

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

absl::Status HashLeaves(std::span<const Goldilocks> rows, size_t width, size_t first_row,
                        size_t row_count, std::span<Goldilocks> nodes, ThreadPool& pool) {
  if (width == 0 || rows.size() % width != 0 || first_row > rows.size() / width ||
      row_count > rows.size() / width - first_row ||
      (first_row + row_count) * kDigestElements > nodes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("leaves [", first_row, ", ", first_row + row_count, ") of ", rows.size(),
                     " elements in rows of ", width, " into ", nodes.size(), " node elements"));
  }
  pool.ParallelForRange(row_count, kRowsPerTask, [&](size_t begin, size_t end) {
    for (size_t r = first_row + begin; r < first_row + end; ++r) {
      const Digest d = LinearHash(rows.subspan(r * width, width));
      std::copy(d.begin(), d.end(),
                nodes.begin() + static_cast<std::ptrdiff_t>(r * kDigestElements));
    }
  });
  return absl::OkStatus();
}

absl::Status HashLevel(const MerkleLevel& level, size_t first, size_t count,
                       std::span<Goldilocks> nodes, ThreadPool& pool) {
  if (first > level.hashes || count > level.hashes - first ||
      level.output_offset + level.hashes * kDigestElements > nodes.size() ||
      level.input_offset + 2 * level.hashes * kDigestElements > level.output_offset) {
    return absl::InvalidArgumentError(absl::StrCat("hashes [", first, ", ", first + count,
                                                   ") of a Merkle level of ", level.hashes, " in ",
                                                   nodes.size(), " node elements"));
  }
  pool.ParallelForRange(count, kRowsPerTask, [&](size_t begin, size_t end) {
    const Digest zero{};
    for (size_t k = first + begin; k < first + end; ++k) {
      const auto children = std::span<const Goldilocks, kPoseidonRate>(
          nodes.subspan(level.input_offset + k * kPoseidonRate, kPoseidonRate));
      const Digest d = PoseidonHash(children, zero);
      std::copy(
          d.begin(), d.end(),
          nodes.begin() + static_cast<std::ptrdiff_t>(level.output_offset + k * kDigestElements));
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
