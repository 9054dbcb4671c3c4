#include "prover_core/stark/merkle_tree_bn128.hpp"

#include <algorithm>
#include <array>

#include "prover_core/stark/merkle_tree.hpp"
#include "prover_core/stark/poseidon_bn254.hpp"

namespace provd::stark {
namespace {

using field::Bn254Fr;
using Int = Bn254Fr::Int;

// Goldilocks elements a field element packs (3 x 64 bits < 254 bits).
constexpr size_t kPack = 3;

// Rows or hashes per task: each is one or more permutations of up to 17 elements, ~50 us.
constexpr size_t kItemsPerTask = 16;

}  // namespace

void StoreBn128Digest(const Bn254Fr& x, std::span<uint64_t> words) {
  std::copy_n(x.Montgomery().limbs.begin(), kDigestWords, words.begin());
}

Bn254Fr LoadBn128Digest(std::span<const uint64_t> words) {
  Int v{};
  std::copy_n(words.begin(), kDigestWords, v.limbs.begin());
  return Bn254Fr::FromMontgomery(v);  // words this tree wrote: below p
}

std::array<uint64_t, 4> Bn128RootInteger(std::span<const uint64_t, 4> words) {
  const Int v = LoadBn128Digest(words).ToCanonical();
  return {v.limbs[0], v.limbs[1], v.limbs[2], v.limbs[3]};
}

Bn254Fr LinearHashBn128(std::span<const field::Goldilocks> row, size_t arity) {
  if (row.size() <= kDigestWords) {
    // No hash: the row's words as one integer, reduced (4 words may exceed p).
    Int v{};
    for (size_t k = 0; k < row.size(); ++k) v.limbs[k] = row[k].value();
    return Bn254Fr::FromIntReduced(v);
  }
  std::array<Bn254Fr, kMaxMerkleArity> inputs;
  size_t n = 0;
  Bn254Fr state = Bn254Fr::Zero();
  for (size_t start = 0; start < row.size(); start += kPack) {
    Int v{};
    for (size_t k = 0; k < kPack && start + k < row.size(); ++k) {
      v.limbs[k] = row[start + k].value();
    }
    inputs[n++] = Bn254Fr::FromCanonical(v);  // below 2^192
    if (n == arity) {
      state = PoseidonBn254Hash(std::span(inputs).first(n), state);
      n = 0;
    }
  }
  if (n > 0) state = PoseidonBn254Hash(std::span(inputs).first(n), state);
  return state;
}

void HashLeavesBn128(std::span<const field::Goldilocks> rows, size_t width, size_t first_row,
                     size_t row_count, size_t arity, std::span<uint64_t> nodes, ThreadPool& pool) {
  pool.ParallelForRange(row_count, kItemsPerTask, [&](size_t begin, size_t end) {
    for (size_t r = first_row + begin; r < first_row + end; ++r) {
      StoreBn128Digest(LinearHashBn128(rows.subspan(r * width, width), arity),
                       nodes.subspan(r * kDigestWords, kDigestWords));
    }
  });
}

void HashLevelBn128(const MerkleLevel& level, size_t first, size_t count, std::span<uint64_t> nodes,
                    ThreadPool& pool) {
  pool.ParallelForRange(count, kItemsPerTask, [&](size_t begin, size_t end) {
    std::array<Bn254Fr, kMaxMerkleArity> children;
    for (size_t k = first + begin; k < first + end; ++k) {
      const size_t in = level.input_offset + k * level.arity * kDigestWords;
      for (size_t i = 0; i < level.arity; ++i) {
        children[i] = LoadBn128Digest(nodes.subspan(in + i * kDigestWords, kDigestWords));
      }
      StoreBn128Digest(PoseidonBn254Hash(std::span(children).first(level.arity), Bn254Fr::Zero()),
                       nodes.subspan(level.output_offset + k * kDigestWords, kDigestWords));
    }
  });
}

}  // namespace provd::stark
