// `provd stark-commit` on bad input: each case exits 2 with a message that says what was wrong,
// and writes no root file. (Its good output is compared with pil-stark's in tests/stark/.)
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd {
namespace {

using ::provd::testing::ExitInfo;
using ::provd::testing::IsOk;
using ::provd::testing::RunToCompletion;
using ::provd::testing::TempDir;
using ::provd::testing::WriteFile;
using ::testing::HasSubstr;

constexpr uint64_t kGoldilocksP = 0xffffffff00000001ull;

std::string Words(const std::vector<uint64_t>& words) {
  std::string bytes(words.size() * sizeof(uint64_t), '\0');
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

class StarkCommitCliTest : public ::testing::Test {
 protected:
  ExitInfo Run(std::vector<std::string> args) {
    args.insert(args.begin(), {PROVD_BINARY, "stark-commit"});
    args.insert(args.end(), {"--root-out", (dir_ / "root.json").string()});
    absl::StatusOr<ExitInfo> info = RunToCompletion(args, dir_.path(), absl::Seconds(30));
    EXPECT_THAT(info.status(), IsOk());
    return info.ok() ? *info : ExitInfo{};
  }
  void ExpectUsageError(const std::vector<std::string>& args, const std::string& message) {
    const ExitInfo info = Run(args);
    EXPECT_TRUE(info.exited);
    EXPECT_EQ(info.code, 2) << info.stderr_text;
    EXPECT_THAT(info.stderr_text, HasSubstr(message));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "root.json"));
  }
  std::string Path(const std::string& name) { return (dir_ / name).string(); }

  TempDir dir_;
};

TEST_F(StarkCommitCliTest, AGoodTraceIsCommitted) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, 4, 5, 6, 7, 8}));
  const ExitInfo info = Run({"--columns", Path("t.cm"), "--n-cols", "2", "--blowup-bits", "2"});
  EXPECT_EQ(info.code, 0) << info.stderr_text;
  EXPECT_THAT(testing::ReadFile(dir_ / "root.json"), HasSubstr("\"constRoot\": [\n  "));
}

TEST_F(StarkCommitCliTest, ABn128TreeHasOneIntegerForItsRoot) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, 4, 5, 6, 7, 8}));
  const ExitInfo info = Run({"--columns", Path("t.cm"), "--n-cols", "2", "--blowup-bits", "2",
                             "--hash", "poseidon_bn128"});
  EXPECT_EQ(info.code, 0) << info.stderr_text;
  const std::string root = testing::ReadFile(dir_ / "root.json");
  EXPECT_THAT(root, ::testing::MatchesRegex("\\{\n \"constRoot\": [0-9]+\n\\}"));
}

TEST_F(StarkCommitCliTest, AMissingFileIsNamed) {
  ExpectUsageError({"--columns", Path("absent.cm"), "--n-cols", "2"}, "absent.cm");
}

TEST_F(StarkCommitCliTest, ASizeThatIsNoShapeIsRejected) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, 4, 5, 6}));
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "2"},
                   "48 bytes is not a power-of-two number of rows of 2 u64 columns");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "4"}, "not a power-of-two");
}

TEST_F(StarkCommitCliTest, AStatedRowCountMustMatchTheFile) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, 4, 5, 6, 7, 8}));
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "2", "--n-bits", "3"},
                   "64 bytes, but 2^3 rows of 2 u64 columns are 128 bytes");
}

TEST_F(StarkCommitCliTest, AnElementNotBelowPIsLocated) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, kGoldilocksP}));
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "2"},
                   "the element at row 1, column 1 is 18446744069414584321");
}

TEST_F(StarkCommitCliTest, OutOfRangeShapesAreRejected) {
  WriteFile(dir_ / "t.cm", Words({1, 2, 3, 4}));
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "1", "--blowup-bits", "0"},
                   "blowup_bits 0 is out of range");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "1", "--blowup-bits", "9"},
                   "blowup_bits 9 is out of range");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "4"}, "n_bits 0 is out of range");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "0"}, "n_cols must be at least 1");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "1", "--hash", "sha256"}, "--hash");
  ExpectUsageError({"--columns", Path("t.cm"), "--n-cols", "1", "--arity", "4"},
                   "merkle arity 4: the Goldilocks Poseidon tree is binary");
  ExpectUsageError(
      {"--columns", Path("t.cm"), "--n-cols", "1", "--hash", "poseidon_bn128", "--arity", "5"},
      "takes 2, 4, 8 or 16");
}

}  // namespace
}  // namespace provd
