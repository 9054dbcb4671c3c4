// The pieces of a STARK trace commitment on their own: the shape and file checks, the coset LDE
// as polynomial evaluation, the Merkle tree's layout and hashing, and the independence of the
// bytes from how the work is split (column batches, leaf and level chunks, threads), which is
// what lets a commitment move between devices mid-round. pil-stark itself is the oracle in
// tests/stark/.
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/ntt/twiddles.hpp"
#include "prover_core/stark/merkle_tree.hpp"
#include "prover_core/stark/trace_commitment.hpp"
#include "prover_core/stark/trace_lde.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::stark {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;
using ::testing::HasSubstr;

std::vector<Goldilocks> RandomElements(TestRng& rng, size_t count) {
  std::vector<Goldilocks> out(count);
  for (Goldilocks& x : out) x = rng.NextField<Goldilocks>();
  return out;
}

std::vector<uint8_t> AsBytes(const std::vector<uint64_t>& words) {
  std::vector<uint8_t> bytes(words.size() * sizeof(uint64_t));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

TEST(TraceShapeTest, OutOfRangeFieldsAreNamed) {
  EXPECT_THAT(ValidateShape({0, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("n_bits 0 is out of range")));
  EXPECT_THAT(ValidateShape({29, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("n_bits 29")));
  EXPECT_THAT(ValidateShape({4, 0, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("n_cols 0")));
  EXPECT_THAT(ValidateShape({4, kMaxTraceColumns + 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("n_cols")));
  EXPECT_THAT(ValidateShape({4, 1, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blowup_bits 0")));
  EXPECT_THAT(ValidateShape({4, 1, 9}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blowup_bits 9")));
  EXPECT_THAT(ValidateShape({28, 1, 5}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2-adicity")));
  EXPECT_THAT(ValidateShape({28, 1, 4}), IsOk());
  EXPECT_THAT(ValidateShape({1, 1, 1}), IsOk());
}

TEST(TraceShapeTest, RowBitsComeFromTheFileSize) {
  EXPECT_EQ(*RowBitsForSize(64, 2, "t"), 2u);
  EXPECT_EQ(*RowBitsForSize(8, 1, "t"), 0u);
  EXPECT_THAT(RowBitsForSize(24, 1, "t.cm"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.cm: 24 bytes is not a power-of-two number of rows")));
  EXPECT_THAT(RowBitsForSize(0, 1, "t"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(RowBitsForSize(20, 1, "t"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(RowBitsForSize(64, 0, "t"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(TraceParseTest, WrongSizeAndNonCanonicalElementsAreRejected) {
  const TraceShape shape{2, 3, 1};
  std::vector<uint64_t> words(12, 5);
  EXPECT_THAT(ParseTrace(AsBytes(words), shape, "t.cm"), IsOk());
  words.pop_back();
  EXPECT_THAT(ParseTrace(AsBytes(words), shape, "t.cm"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.cm: 88 bytes, but 2^2 rows of 3 u64 columns are 96 bytes")));
  words.push_back(5);
  words[1 * 3 + 2] = Goldilocks::kP;
  EXPECT_THAT(ParseTrace(AsBytes(words), shape, "t.cm"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the element at row 1, column 2 is 18446744069414584321")));
  words[1 * 3 + 2] = Goldilocks::kP - 1;
  absl::StatusOr<std::vector<Goldilocks>> trace = ParseTrace(AsBytes(words), shape, "t.cm");
  ASSERT_THAT(trace.status(), IsOk());
  EXPECT_EQ((*trace)[5].value(), Goldilocks::kP - 1);
  EXPECT_THAT(ParseTrace(AsBytes(words), {2, 3, 0}, "t.cm"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blowup_bits")));
}

TEST(TraceParseTest, AMissingFileIsNotFound) {
  EXPECT_THAT(ReadTraceFile("/nonexistent/trace.cm", {2, 1, 1}).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

Goldilocks Evaluate(const std::vector<Goldilocks>& coefficients, Goldilocks x) {
  Goldilocks acc = Goldilocks::Zero();
  for (size_t i = coefficients.size(); i-- > 0;) acc = acc * x + coefficients[i];
  return acc;
}

// Column j holds f_j on <w_n>; row i of the extension must hold f_j(7 w_{n+b}^i).
TEST(TraceLdeTest, ExtensionEvaluatesTheColumnsPolynomialsOnTheCoset) {
  TestRng rng(11);
  const TraceShape shape{5, 3, 2};
  std::vector<std::vector<Goldilocks>> polys;
  for (size_t j = 0; j < shape.n_cols; ++j) polys.push_back(RandomElements(rng, shape.rows()));
  const Goldilocks w = ntt::RootOfUnity<Goldilocks>(shape.n_bits);
  std::vector<Goldilocks> trace(shape.elements());
  Goldilocks x = Goldilocks::One();
  for (size_t i = 0; i < shape.rows(); ++i, x = x * w) {
    for (size_t j = 0; j < shape.n_cols; ++j) trace[i * shape.n_cols + j] = Evaluate(polys[j], x);
  }
  std::vector<Goldilocks> extended(shape.extended_elements());
  ThreadPool pool(2);
  ASSERT_THAT(ExtendColumns(trace, shape, 0, shape.n_cols, extended, pool), IsOk());
  const Goldilocks w_ext = ntt::RootOfUnity<Goldilocks>(shape.n_bits + shape.blowup_bits);
  Goldilocks y = Goldilocks::FromUint64(kCosetShift);
  for (size_t i = 0; i < shape.extended_rows(); ++i, y = y * w_ext) {
    for (size_t j = 0; j < shape.n_cols; ++j) {
      ASSERT_EQ(extended[i * shape.n_cols + j].value(), Evaluate(polys[j], y).value())
          << "row " << i << " column " << j;
    }
  }
}

TEST(TraceLdeTest, ColumnBatchesAndThreadCountsGiveTheSameBytes) {
  TestRng rng(12);
  const TraceShape shape{7, 11, 3};
  const std::vector<Goldilocks> trace = RandomElements(rng, shape.elements());
  ThreadPool one(1);
  ThreadPool two(2);
  std::vector<Goldilocks> whole(shape.extended_elements());
  ASSERT_THAT(ExtendColumns(trace, shape, 0, shape.n_cols, whole, one), IsOk());
  std::vector<Goldilocks> batched(shape.extended_elements());
  for (size_t first = 0; first < shape.n_cols; first += 4) {
    ASSERT_THAT(
        ExtendColumns(trace, shape, first, std::min<size_t>(4, shape.n_cols - first), batched, two),
        IsOk());
  }
  EXPECT_TRUE(std::memcmp(whole.data(), batched.data(), whole.size() * sizeof(Goldilocks)) == 0);
  EXPECT_THAT(ExtendColumns(trace, shape, 9, 3, batched, two),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(MerkleTreeTest, LayoutFollowsPilStark) {
  // 8 leaves: 32 leaf elements, then 4 + 2 + 1 digests.
  EXPECT_EQ(MerkleNodeElements(8), (8 + 4 + 2 + 1) * kDigestElements);
  const std::vector<MerkleLevel> levels = MerkleLevels(8);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].input_offset, 0u);
  EXPECT_EQ(levels[0].output_offset, 32u);
  EXPECT_EQ(levels[0].hashes, 4u);
  EXPECT_EQ(levels[2].hashes, 1u);
  // An odd level is padded with a zero digest: 5 leaves take 6 slots, then 3 (+1), 2, 1.
  const std::vector<MerkleLevel> odd = MerkleLevels(5);
  ASSERT_EQ(odd.size(), 3u);
  EXPECT_EQ(odd[0].output_offset, 6 * kDigestElements);
  EXPECT_EQ(odd[1].output_offset, (6 + 4) * kDigestElements);
  EXPECT_EQ(MerkleNodeElements(5), (6 + 4 + 2 + 1) * kDigestElements);
  EXPECT_TRUE(MerkleLevels(1).empty());
}

TEST(MerkleTreeTest, LinearHashPadsShortRowsAndSpongesLongOnes) {
  TestRng rng(13);
  const std::vector<Goldilocks> row = RandomElements(rng, 11);
  const Digest short_row = LinearHash(std::span(row).first(3));
  EXPECT_EQ(short_row[2].value(), row[2].value());
  EXPECT_EQ(short_row[3].value(), 0u);

  std::array<Goldilocks, kPoseidonRate> block;
  std::copy_n(row.begin(), 8, block.begin());
  Digest expected = PoseidonHash(block, Digest{});
  block.fill(Goldilocks::Zero());
  std::copy_n(row.begin() + 8, 3, block.begin());
  expected = PoseidonHash(block, expected);
  const Digest long_row = LinearHash(row);
  for (size_t k = 0; k < kDigestElements; ++k) EXPECT_EQ(long_row[k].value(), expected[k].value());
}

TEST(MerkleTreeTest, RootIsTheHashOfItsChildren) {
  TestRng rng(14);
  const size_t width = 9;
  const size_t height = 4;
  const std::vector<Goldilocks> rows = RandomElements(rng, width * height);
  std::vector<Goldilocks> nodes(MerkleNodeElements(height));
  ThreadPool pool(2);
  ASSERT_THAT(HashLeaves(rows, width, 0, height, nodes, pool), IsOk());
  for (const MerkleLevel& level : MerkleLevels(height)) {
    ASSERT_THAT(HashLevel(level, 0, level.hashes, nodes, pool), IsOk());
  }
  std::vector<Digest> digests;
  for (size_t r = 0; r < height; ++r)
    digests.push_back(LinearHash(std::span(rows).subspan(r * width, width)));
  while (digests.size() > 1) {
    std::vector<Digest> parents;
    for (size_t k = 0; k < digests.size(); k += 2) {
      std::array<Goldilocks, kPoseidonRate> children;
      std::copy(digests[k].begin(), digests[k].end(), children.begin());
      std::copy(digests[k + 1].begin(), digests[k + 1].end(), children.begin() + 4);
      parents.push_back(PoseidonHash(children, Digest{}));
    }
    digests = parents;
  }
  const Digest root = MerkleRoot(nodes);
  for (size_t k = 0; k < kDigestElements; ++k) EXPECT_EQ(root[k].value(), digests[0][k].value());
}

TEST(MerkleTreeTest, ChunksOfLeavesAndLevelsGiveTheSameTree) {
  TestRng rng(15);
  const TraceShape shape{6, 13, 2};
  const std::vector<Goldilocks> trace = RandomElements(rng, shape.elements());
  ThreadPool one(1);
  absl::StatusOr<TraceCommitment> whole = CommitTrace(trace, shape, one);
  ASSERT_THAT(whole.status(), IsOk());

  const size_t height = shape.extended_rows();
  std::vector<Goldilocks> nodes(MerkleNodeElements(height));
  ThreadPool two(2);
  for (size_t first = 0; first < height; first += 37) {
    ASSERT_THAT(HashLeaves(whole->extended, shape.n_cols, first,
                           std::min<size_t>(37, height - first), nodes, two),
                IsOk());
  }
  for (const MerkleLevel& level : MerkleLevels(height)) {
    for (size_t first = 0; first < level.hashes; first += 5) {
      ASSERT_THAT(HashLevel(level, first, std::min<size_t>(5, level.hashes - first), nodes, two),
                  IsOk());
    }
  }
  EXPECT_TRUE(std::memcmp(nodes.data(), whole->nodes.data(), nodes.size() * sizeof(Goldilocks)) ==
              0);
  EXPECT_EQ(RootJson(MerkleRoot(nodes)), RootJson(whole->root));
}

TEST(MerkleTreeTest, RangesOutsideTheTreeAreRejected) {
  std::vector<Goldilocks> rows(4 * 3);
  std::vector<Goldilocks> nodes(MerkleNodeElements(4));
  ThreadPool pool(1);
  EXPECT_THAT(HashLeaves(rows, 3, 2, 3, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(HashLeaves(rows, 0, 0, 1, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  const MerkleLevel level = MerkleLevels(4)[0];
  EXPECT_THAT(HashLevel(level, 1, 2, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  std::vector<Goldilocks> small(8);
  EXPECT_THAT(HashLevel(level, 0, 2, small, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(TraceCommitmentTest, RootJsonIsPilStarksFile) {
  Digest root{Goldilocks::FromUint64(1), Goldilocks::FromUint64(Goldilocks::kP - 1),
              Goldilocks::FromUint64(0), Goldilocks::FromUint64(1234567890123456789ull)};
  EXPECT_EQ(RootJson(root),
            "{\n \"constRoot\": [\n  1,\n  18446744069414584320,\n  0,\n"
            "  1234567890123456789\n ]\n}");
}

}  // namespace
}  // namespace provd::stark
