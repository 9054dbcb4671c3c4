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
#include "prover_core/stark/merkle_tree_bn128.hpp"
#include "prover_core/stark/poseidon_bn254.hpp"
#include "prover_core/stark/simulated_stark_gpu.hpp"
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

const MerkleScheme kGl{};
const MerkleScheme kBn128{MerkleHash::kPoseidonBn128, 16};

// The tree over `rows` in one leaf chunk and one chunk a level.
std::vector<uint64_t> WholeTree(const MerkleScheme& scheme, std::span<const Goldilocks> rows,
                                size_t width, ThreadPool& pool) {
  const size_t height = rows.size() / width;
  std::vector<uint64_t> nodes(MerkleNodeWords(height, scheme.arity));
  EXPECT_THAT(HashLeaves(scheme, rows, width, 0, height, nodes, pool), IsOk());
  for (const MerkleLevel& level : MerkleLevels(height, scheme.arity)) {
    EXPECT_THAT(HashLevel(scheme, level, 0, level.hashes, nodes, pool), IsOk());
  }
  return nodes;
}

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

TEST(TraceParseTest, CopyTraceChecksWhatItCopiesAndReportsTheBytesItRead) {
  const TraceShape shape{3, 2, 1};
  std::vector<uint64_t> words(16);
  for (size_t i = 0; i < words.size(); ++i) words[i] = i * 1000;
  std::vector<Goldilocks> out(shape.elements());
  size_t reported = 0;
  ASSERT_THAT(CopyTrace(AsBytes(words), shape, "t", out,
                        [&](size_t offset, size_t size) {
                          EXPECT_EQ(offset, reported);
                          reported += size;
                        }),
              IsOk());
  EXPECT_EQ(reported, words.size() * 8);
  EXPECT_EQ(out[15].value(), 15000u);
  words[9] = Goldilocks::kP + 5;
  EXPECT_THAT(CopyTrace(AsBytes(words), shape, "t", out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("row 4, column 1")));
  std::vector<Goldilocks> small(3);
  EXPECT_THAT(CopyTrace(AsBytes(words), shape, "t", small),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
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
  EXPECT_EQ(MerkleNodeWords(8, 2), (8 + 4 + 2 + 1) * kDigestElements);
  const std::vector<MerkleLevel> levels = MerkleLevels(8, 2);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].input_offset, 0u);
  EXPECT_EQ(levels[0].output_offset, 32u);
  EXPECT_EQ(levels[0].hashes, 4u);
  EXPECT_EQ(levels[2].hashes, 1u);
  // An odd level is padded with a zero digest: 5 leaves take 6 slots, then 3 (+1), 2, 1.
  const std::vector<MerkleLevel> odd = MerkleLevels(5, 2);
  ASSERT_EQ(odd.size(), 3u);
  EXPECT_EQ(odd[0].output_offset, 6 * kDigestElements);
  EXPECT_EQ(odd[1].output_offset, (6 + 4) * kDigestElements);
  EXPECT_EQ(MerkleNodeWords(5, 2), (6 + 4 + 2 + 1) * kDigestElements);
  EXPECT_TRUE(MerkleLevels(1, 2).empty());
}

TEST(MerkleTreeTest, Bn128LayoutPadsEachLevelToTheArity) {
  // pil-stark's _getNNodes for arity 16: 64 leaves fill 4 groups of 16, then 4 digests pad to
  // 16, then the root.
  EXPECT_EQ(MerkleNodeWords(64, 16), (64 + 16 + 1) * kDigestWords);
  const std::vector<MerkleLevel> levels = MerkleLevels(64, 16);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].hashes, 4u);
  EXPECT_EQ(levels[0].arity, 16u);
  EXPECT_EQ(levels[1].input_offset, 64 * kDigestWords);
  EXPECT_EQ(levels[1].output_offset, (64 + 16) * kDigestWords);
  // 4 leaves: one group of 16 slots, then the root.
  EXPECT_EQ(MerkleNodeWords(4, 16), (16 + 1) * kDigestWords);
}

TEST(MerkleTreeTest, SchemesRefuseAritiesTheirHashDoesNotTake) {
  EXPECT_EQ(SchemeWithArity(MerkleHash::kPoseidonGoldilocks, 0).arity, 2u);
  EXPECT_EQ(SchemeWithArity(MerkleHash::kPoseidonBn128, 0).arity, kDefaultBn128Arity);
  EXPECT_EQ(SchemeWithArity(MerkleHash::kPoseidonBn128, 4).arity, 4u);
  EXPECT_EQ(SchemeWithArity(MerkleHash::kPoseidonGoldilocks, 8).arity, 8u);  // refused below
  EXPECT_THAT(ValidateScheme(kGl), IsOk());
  EXPECT_THAT(ValidateScheme(kBn128), IsOk());
  EXPECT_THAT(ValidateScheme({MerkleHash::kPoseidonBn128, 4}), IsOk());
  EXPECT_THAT(ValidateScheme({MerkleHash::kPoseidonGoldilocks, 4}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("binary")));
  for (size_t arity : {0, 1, 3, 12, 32}) {
    EXPECT_THAT(ValidateScheme({MerkleHash::kPoseidonBn128, arity}),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2, 4, 8 or 16")));
  }
  EXPECT_THAT(ValidateShape(TraceShape(3, 4, 1, {MerkleHash::kPoseidonGoldilocks, 16})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("merkle arity 16")));
}

TEST(MerkleTreeTest, Bn128RootIsTheHashOfItsChildren) {
  TestRng rng(17);
  const size_t width = 7;
  const size_t height = 32;
  const std::vector<Goldilocks> rows = RandomElements(rng, width * height);
  ThreadPool pool(2);
  std::vector<uint64_t> nodes = WholeTree(kBn128, rows, width, pool);
  std::vector<Bn254Fr> leaves;
  for (size_t r = 0; r < height; ++r) {
    leaves.push_back(LinearHashBn128(std::span(rows).subspan(r * width, width), 16));
  }
  const Bn254Fr left = PoseidonBn254Hash(std::span(leaves).first(16), Bn254Fr::Zero());
  const Bn254Fr right = PoseidonBn254Hash(std::span(leaves).subspan(16), Bn254Fr::Zero());
  std::vector<Bn254Fr> top(16, Bn254Fr::Zero());  // two digests, padded with zeros
  top[0] = left;
  top[1] = right;
  const RootWords root = MerkleRoot(nodes);
  EXPECT_EQ(LoadBn128Digest(root), PoseidonBn254Hash(top, Bn254Fr::Zero()));
  // A Goldilocks level cannot run in a BN128 tree.
  EXPECT_THAT(HashLevel(kGl, MerkleLevels(height, 16)[0], 0, 1, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("arity")));
}

TEST(TraceCommitmentTest, Bn128RootJsonIsOneInteger) {
  TraceCommitment c;
  c.shape = TraceShape(3, 4, 1, kBn128);
  std::vector<uint64_t> words(4);
  StoreBn128Digest(Bn254Fr::FromUint64(1234567890123456789ull), words);
  std::copy(words.begin(), words.end(), c.root.begin());
  EXPECT_EQ(RootJson(c), "{\n \"constRoot\": 1234567890123456789\n}");
  EXPECT_EQ(RootIntegers(c), (RootWords{1234567890123456789ull, 0, 0, 0}));
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
  ThreadPool pool(2);
  const std::vector<uint64_t> nodes = WholeTree(kGl, rows, width, pool);
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
  const RootWords root = MerkleRoot(nodes);
  for (size_t k = 0; k < kDigestElements; ++k) EXPECT_EQ(root[k], digests[0][k].value());
}

TEST(MerkleTreeTest, ChunksOfLeavesAndLevelsGiveTheSameTree) {
  TestRng rng(15);
  const TraceShape shape{6, 13, 2};
  const std::vector<Goldilocks> trace = RandomElements(rng, shape.elements());
  ThreadPool one(1);
  absl::StatusOr<TraceCommitment> whole = CommitTrace(trace, shape, one);
  ASSERT_THAT(whole.status(), IsOk());

  const size_t height = shape.extended_rows();
  std::vector<uint64_t> nodes(MerkleNodeWords(height, 2));
  ThreadPool two(2);
  for (size_t first = 0; first < height; first += 37) {
    ASSERT_THAT(HashLeaves(kGl, whole->extended, shape.n_cols, first,
                           std::min<size_t>(37, height - first), nodes, two),
                IsOk());
  }
  for (const MerkleLevel& level : MerkleLevels(height, 2)) {
    for (size_t first = 0; first < level.hashes; first += 5) {
      ASSERT_THAT(
          HashLevel(kGl, level, first, std::min<size_t>(5, level.hashes - first), nodes, two),
          IsOk());
    }
  }
  EXPECT_TRUE(std::memcmp(nodes.data(), whole->nodes.data(), nodes.size() * sizeof(Goldilocks)) ==
              0);
  EXPECT_EQ(MerkleRoot(nodes), whole->root);
}

TEST(MerkleTreeTest, RangesOutsideTheTreeAreRejected) {
  std::vector<Goldilocks> rows(4 * 3);
  std::vector<uint64_t> nodes(MerkleNodeWords(4, 2));
  ThreadPool pool(1);
  EXPECT_THAT(HashLeaves(kGl, rows, 3, 2, 3, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(HashLeaves(kGl, rows, 0, 0, 1, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  const MerkleLevel level = MerkleLevels(4, 2)[0];
  EXPECT_THAT(HashLevel(kGl, level, 1, 2, nodes, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  std::vector<uint64_t> small(8);
  EXPECT_THAT(HashLevel(kGl, level, 0, 2, small, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(TraceCommitmentTest, RootJsonIsPilStarksFile) {
  TraceCommitment c;
  c.root = {1, Goldilocks::kP - 1, 0, 1234567890123456789ull};
  EXPECT_EQ(RootJson(c),
            "{\n \"constRoot\": [\n  1,\n  18446744069414584320,\n  0,\n"
            "  1234567890123456789\n ]\n}");
}

// Chunk i on backend schedule[i % size]: every chunk of every round moves.
class ScheduledPlacement final : public plan::ChunkPlacement {
 public:
  explicit ScheduledPlacement(std::vector<size_t> schedule) : schedule_(std::move(schedule)) {}
  size_t Place(const plan::ChunkRef& /*chunk*/) override {
    return schedule_[placed_++ % schedule_.size()];
  }

 private:
  std::vector<size_t> schedule_;
  size_t placed_ = 0;
};

class RecordingObserver final : public plan::ProofObserver {
 public:
  void RoundStarted(plan::Round round, size_t chunks) override {
    rounds.push_back({plan::RoundName(round), chunks});
  }
  void ChunkFellBack(const plan::ChunkRef& /*chunk*/, std::string_view /*backend*/,
                     const absl::Status& /*error*/) override {
    ++fallbacks;
  }
  std::vector<std::pair<std::string, size_t>> rounds;
  int fallbacks = 0;
};

class PlannedCommitTest : public ::testing::Test {
 protected:
  PlannedCommitTest() : rng_(16), trace_(RandomElements(rng_, shape_.elements())) {}

  absl::StatusOr<TraceCommitment> Commit(const CommitOptions& options,
                                         std::span<StarkBackend* const> backends,
                                         plan::ChunkPlacement* placement,
                                         plan::ProofObserver* observer = nullptr,
                                         const std::atomic<bool>* cancelled = nullptr) {
    return CommitTrace(trace_, shape_, options,
                       CommitContext{backends, &pool_, placement, observer, cancelled});
  }
  static void ExpectSameBytes(const TraceCommitment& a, const TraceCommitment& b) {
    ASSERT_EQ(a.extended.size(), b.extended.size());
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    EXPECT_TRUE(std::memcmp(a.extended.data(), b.extended.data(),
                            a.extended.size() * sizeof(Goldilocks)) == 0);
    EXPECT_TRUE(a.nodes == b.nodes);
    EXPECT_EQ(a.root, b.root);
  }

  TraceShape shape_{7, 10, 2};
  TestRng rng_;
  std::vector<Goldilocks> trace_;
  ThreadPool pool_{2};
};

TEST_F(PlannedCommitTest, RoundsAreChunkedAsAskedAndTheBytesDoNotDependOnIt) {
  absl::StatusOr<TraceCommitment> whole = CommitTrace(trace_, shape_, pool_);
  ASSERT_THAT(whole.status(), IsOk());
  CpuStarkBackend cpu(pool_);
  StarkBackend* const backends[] = {&cpu};
  RecordingObserver observer;
  absl::StatusOr<TraceCommitment> chunked =
      Commit(CommitOptions{3, 100}, backends, nullptr, &observer);
  ASSERT_THAT(chunked.status(), IsOk());
  ExpectSameBytes(*whole, *chunked);
  // 10 columns in 4 chunks; 512 rows in 6; levels of 256, 128, 64, 32, ..., 1 hashes: 3 + 2 +
  // 1 * 7 chunks.
  using Rounds = std::vector<std::pair<std::string, size_t>>;
  EXPECT_EQ(observer.rounds,
            (Rounds{{"trace_lde", 4}, {"merkle_leaves", 6}, {"merkle_levels", 12}}));
  EXPECT_EQ(plan::PlanIndex(plan::Round::kTraceLde), 0u);
  EXPECT_EQ(plan::PlanIndex(plan::Round::kMerkleLevels), 2u);
}

TEST_F(PlannedCommitTest, ChunksMovingBetweenCpuAndGpuGiveTheSameBytes) {
  absl::StatusOr<TraceCommitment> on_cpu = CommitTrace(trace_, shape_, pool_);
  ASSERT_THAT(on_cpu.status(), IsOk());
  CpuStarkBackend cpu(pool_);
  SimulatedStarkGpu gpu0(0, pool_);
  SimulatedStarkGpu gpu1(1, pool_);
  StarkBackend* const backends[] = {&cpu, &gpu0, &gpu1};
  for (const std::vector<size_t>& schedule :
       {std::vector<size_t>{1}, std::vector<size_t>{0, 1}, std::vector<size_t>{1, 2, 0, 0, 2}}) {
    ScheduledPlacement placement(schedule);
    absl::StatusOr<TraceCommitment> moved = Commit(CommitOptions{4, 64}, backends, &placement);
    ASSERT_THAT(moved.status(), IsOk());
    ExpectSameBytes(*on_cpu, *moved);
  }
  EXPECT_GT(gpu0.uploads(), 0u);
  EXPECT_GT(gpu1.uploads(), 0u);
}

TEST_F(PlannedCommitTest, Bn128TreesMoveBetweenDevicesToo) {
  for (size_t arity : {16, 4}) {
    shape_.merkle = {MerkleHash::kPoseidonBn128, arity};
    absl::StatusOr<TraceCommitment> on_cpu = CommitTrace(trace_, shape_, pool_);
    ASSERT_THAT(on_cpu.status(), IsOk());
    EXPECT_EQ(on_cpu->nodes.size(), MerkleNodeWords(shape_.extended_rows(), arity));
    CpuStarkBackend cpu(pool_);
    SimulatedGpuOptions faulty;
    faulty.fail_every = 4;
    SimulatedStarkGpu gpu0(0, pool_);
    SimulatedStarkGpu gpu1(1, pool_, faulty);
    StarkBackend* const backends[] = {&cpu, &gpu0, &gpu1};
    ScheduledPlacement placement({1, 2, 0});
    absl::StatusOr<TraceCommitment> moved = Commit(CommitOptions{4, 7}, backends, &placement);
    ASSERT_THAT(moved.status(), IsOk());
    ExpectSameBytes(*on_cpu, *moved);
    EXPECT_GT(gpu0.uploads(), 0u);
  }
}

TEST_F(PlannedCommitTest, AFailingGpuFallsBackVisiblyAndTheBytesStayExact) {
  absl::StatusOr<TraceCommitment> on_cpu = CommitTrace(trace_, shape_, pool_);
  ASSERT_THAT(on_cpu.status(), IsOk());
  CpuStarkBackend cpu(pool_);
  SimulatedGpuOptions faulty;
  faulty.fail_every = 3;
  SimulatedStarkGpu gpu(0, pool_, faulty);
  StarkBackend* const backends[] = {&cpu, &gpu};
  ScheduledPlacement placement({1});
  RecordingObserver observer;
  absl::StatusOr<TraceCommitment> c = Commit(CommitOptions{2, 50}, backends, &placement, &observer);
  ASSERT_THAT(c.status(), IsOk());
  ExpectSameBytes(*on_cpu, *c);
  EXPECT_GT(observer.fallbacks, 3);
}

TEST_F(PlannedCommitTest, AGpuTooSmallForAChunkFallsBack) {
  CpuStarkBackend cpu(pool_);
  SimulatedGpuOptions small;
  small.vram_bytes = 1024;
  SimulatedStarkGpu gpu(0, pool_, small);
  StarkBackend* const backends[] = {&cpu, &gpu};
  ScheduledPlacement placement({1});
  RecordingObserver observer;
  absl::StatusOr<TraceCommitment> c = Commit(CommitOptions{}, backends, &placement, &observer);
  ASSERT_THAT(c.status(), IsOk());
  EXPECT_GT(observer.fallbacks, 0);
  absl::StatusOr<TraceCommitment> on_cpu = CommitTrace(trace_, shape_, pool_);
  ASSERT_THAT(on_cpu.status(), IsOk());
  ExpectSameBytes(*on_cpu, *c);
}

TEST_F(PlannedCommitTest, ACancelledCommitmentStopsAtItsNextChunk) {
  CpuStarkBackend cpu(pool_);
  StarkBackend* const backends[] = {&cpu};
  std::atomic<bool> cancelled{true};
  EXPECT_THAT(Commit(CommitOptions{}, backends, nullptr, nullptr, &cancelled).status(),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("trace_lde")));
}

TEST_F(PlannedCommitTest, BadContextsAndTracesAreRejected) {
  CpuStarkBackend cpu(pool_);
  SimulatedStarkGpu gpu(0, pool_);
  StarkBackend* const gpu_first[] = {&gpu, &cpu};
  EXPECT_THAT(Commit(CommitOptions{}, gpu_first, nullptr).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("CPU")));
  StarkBackend* const backends[] = {&cpu};
  trace_.pop_back();
  EXPECT_THAT(Commit(CommitOptions{}, backends, nullptr).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("elements")));
}

}  // namespace
}  // namespace provd::stark
