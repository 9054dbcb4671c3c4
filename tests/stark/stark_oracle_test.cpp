// provd's trace commitments against pil-stark's own code (oracle.js runs its `interpolate`,
// MerkleHashGL and MerkleHashBN128): random traces of many shapes, the roots and the tree files
// compared byte for byte, and both Poseidons (Goldilocks, and circomlibjs's over BN254) compared
// on their own. The seed is random unless
// PROVD_STARK_SEED fixes it, and the test prints it, so every run also checks traces (and a few
// shapes) that are in no repository, and a failure can be replayed.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prover_core/stark/poseidon_bn254.hpp"
#include "prover_core/stark/poseidon_goldilocks.hpp"
#include "prover_core/stark/trace_commitment.hpp"
#include "prover_core/thread_pool.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::stark {
namespace {

using ::provd::testing::ExitInfo;
using ::provd::testing::IsOk;
using ::provd::testing::ReadFile;
using ::provd::testing::RunToCompletion;
using ::provd::testing::TempDir;
using ::provd::testing::TestRng;
using ::provd::testing::WriteFile;

constexpr uint64_t kP = Goldilocks::kP;

uint64_t SeedForRun() {
  uint64_t seed = 0;
  const char* fixed = std::getenv("PROVD_STARK_SEED");
  if (fixed != nullptr && absl::SimpleAtoi(fixed, &seed)) return seed;
  return (uint64_t{std::random_device{}()} << 32) | std::random_device{}();
}

// Elements below p, with p - 1 and 0 (the edges of the reduction) more often than chance.
uint64_t RandomElement(TestRng& rng) {
  switch (rng.Next() % 16) {
    case 0:
      return kP - 1;
    case 1:
      return 0;
    default:
      while (true) {
        const uint64_t v = rng.Next();
        if (v < kP) return v;
      }
  }
}

std::string RandomTraceBytes(TestRng& rng, const TraceShape& shape) {
  std::string bytes(shape.elements() * sizeof(uint64_t), '\0');
  for (size_t i = 0; i < shape.elements(); ++i) {
    const uint64_t v = RandomElement(rng);
    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
  }
  return bytes;
}

// The issue's shapes: every n from 1 to 18 (one column once the trees get big, since pil-stark
// hashes at some 50k permutations a second), C = 7, 8, 9, 16, 100 with every blowup from 1 to
// 4, and four shapes drawn from the seed.
std::vector<TraceShape> OracleShapes(TestRng& rng) {
  std::vector<TraceShape> shapes;
  for (size_t n = 1; n <= 18; ++n) shapes.push_back({n, 1, n >= 12 ? 1 : 1 + (n - 1) % 4});
  for (size_t cols : {7, 8, 9, 16, 100}) {
    for (size_t b = 1; b <= 4; ++b) {
      const size_t n = cols == 100 ? 2 * b - 1 : 3 * b - 2;  // 1..7 or 1..10
      shapes.push_back({n, cols, b});
    }
  }
  while (shapes.size() < 18 + 20 + 4) {
    TraceShape s{1 + rng.Next() % 10, 1 + rng.Next() % 40, 1 + rng.Next() % 4};
    if ((s.extended_rows() * ((s.n_cols + 7) / 8)) <= (size_t{1} << 15)) shapes.push_back(s);
  }
  return shapes;
}

// MerkleHashBN128's shapes: row widths on both sides of its cases (at most 4 elements: no hash;
// packed 3 to a field element, 16 of those a permutation: 48 and 49 cross one), each arity,
// and two shapes from the seed. pil-stark's wasm Poseidon is slow: the trees stay small.
std::vector<TraceShape> Bn128OracleShapes(TestRng& rng) {
  std::vector<TraceShape> shapes;
  const size_t widths[] = {1, 3, 4, 5, 7, 9, 16, 48, 49};
  for (size_t i = 0; i < std::size(widths); ++i) {
    shapes.push_back({1 + i % 6, widths[i], 1 + i % 4, {MerkleHash::kPoseidonBn128, 16}});
  }
  for (size_t arity : {2, 4, 8}) {
    shapes.push_back({5, 11, 2, {MerkleHash::kPoseidonBn128, arity}});
  }
  for (int k = 0; k < 2; ++k) {
    shapes.push_back({1 + rng.Next() % 6,
                      1 + rng.Next() % 60,
                      1 + rng.Next() % 4,
                      {MerkleHash::kPoseidonBn128, size_t{2} << (rng.Next() % 4)}});
  }
  return shapes;
}

std::string Describe(const TraceShape& s) {
  return absl::StrCat("2^", s.n_bits, " rows x ", s.n_cols, " columns, blowup 2^", s.blowup_bits,
                      s.merkle.hash == MerkleHash::kPoseidonBn128
                          ? absl::StrCat(", BN128 tree of arity ", s.merkle.arity)
                          : std::string());
}

nlohmann::json CommitJob(const std::filesystem::path& dir, const std::string& name,
                         const TraceShape& shape) {
  nlohmann::json job = {{"columns", (dir / (name + ".bin")).string()},
                        {"n_bits", shape.n_bits},
                        {"n_cols", shape.n_cols},
                        {"blowup_bits", shape.blowup_bits},
                        {"root_out", (dir / (name + ".root.json")).string()},
                        {"tree_out", (dir / (name + ".tree")).string()}};
  if (shape.merkle.hash == MerkleHash::kPoseidonBn128) {
    job["hash"] = "bn128";
    job["arity"] = shape.merkle.arity;
  }
  return job;
}

std::string TreeFileBytes(const TraceCommitment& c) {
  const std::array<uint64_t, 2> header = TreeFileHeader(c);
  std::string out(reinterpret_cast<const char*>(header.data()), sizeof header);
  out.append(reinterpret_cast<const char*>(c.extended.data()),
             c.extended.size() * sizeof(Goldilocks));
  out.append(reinterpret_cast<const char*>(c.nodes.data()), c.nodes.size() * sizeof(uint64_t));
  return out;
}

// Where two long byte strings first differ, for a failure message that fits on a screen.
std::string FirstDifference(const std::string& ours, const std::string& theirs) {
  if (ours.size() != theirs.size()) {
    return absl::StrCat("sizes differ: ", ours.size(), " vs pil-stark's ", theirs.size());
  }
  size_t i = 0;
  while (i < ours.size() && ours[i] == theirs[i]) ++i;
  return absl::StrCat("first difference at byte ", i, " (u64 #", i / 8, ")");
}

// Commits to each trace `<prefix><i>.bin` of `dir` and compares the root and tree files with
// the oracle's of the same name.
void ExpectPilStarksFiles(const std::filesystem::path& dir, const std::string& prefix,
                          const std::vector<TraceShape>& shapes) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE(Describe(shapes[i]));
    const std::string name = absl::StrCat(prefix, i);
    absl::StatusOr<std::vector<Goldilocks>> trace =
        ReadTraceFile((dir / (name + ".bin")).string(), shapes[i]);
    ASSERT_THAT(trace.status(), IsOk());
    absl::StatusOr<TraceCommitment> c = CommitTrace(*trace, shapes[i], DefaultThreadPool());
    ASSERT_THAT(c.status(), IsOk());
    EXPECT_EQ(RootJson(*c), ReadFile(dir / (name + ".root.json")));
    const std::string tree = TreeFileBytes(*c);
    const std::string theirs = ReadFile(dir / (name + ".tree"));
    EXPECT_TRUE(tree == theirs) << FirstDifference(tree, theirs);
  }
}

absl::StatusOr<ExitInfo> RunOracle(const std::filesystem::path& manifest,
                                   const std::filesystem::path& log_dir) {
  return RunToCompletion({"/usr/bin/env", "node", PROVD_STARK_ORACLE, manifest.string()}, log_dir,
                         absl::Seconds(240));
}

class StarkOracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = SeedForRun();
    std::cout << "PROVD_STARK_SEED=" << seed_ << " replays this run\n";
    RecordProperty("seed", std::to_string(seed_));
  }
  uint64_t seed_ = 0;
  TempDir dir_;
};

TEST_F(StarkOracleTest, RootsAndTreesAreExactlyPilStarks) {
  TestRng rng(seed_);
  const std::vector<TraceShape> shapes = OracleShapes(rng);
  nlohmann::json commits = nlohmann::json::array();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = absl::StrCat("trace", i);
    WriteFile(dir_ / (name + ".bin"), RandomTraceBytes(rng, shapes[i]));
    commits.push_back(CommitJob(dir_.path(), name, shapes[i]));
  }

  // Poseidon on its own: random states, and the edges (zeros, all p - 1, 0..11).
  nlohmann::json states = nlohmann::json::array();
  std::vector<PoseidonState> ours;
  for (size_t k = 0; k < 67; ++k) {
    PoseidonState state;
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      const uint64_t v = k == 0 ? 0 : k == 1 ? kP - 1 : k == 2 ? j : RandomElement(rng);
      state[j] = Goldilocks::FromUint64(v);
    }
    nlohmann::json words = nlohmann::json::array();
    for (const Goldilocks& x : state) words.push_back(std::to_string(x.value()));
    states.push_back(words);
    PoseidonPermute(state);
    ours.push_back(state);
  }
  WriteFile(dir_ / "states.json", states.dump());

  const nlohmann::json manifest = {
      {"commits", commits},
      {"permutations",
       {{"in", (dir_ / "states.json").string()}, {"out", (dir_ / "permuted.json").string()}}}};
  WriteFile(dir_ / "manifest.json", manifest.dump());
  absl::StatusOr<ExitInfo> oracle = RunOracle(dir_ / "manifest.json", dir_.path());
  ASSERT_THAT(oracle.status(), IsOk());
  ASSERT_TRUE(oracle->exited && oracle->code == 0) << oracle->stderr_text;

  const nlohmann::json permuted = nlohmann::json::parse(ReadFile(dir_ / "permuted.json"));
  ASSERT_EQ(permuted.size(), ours.size());
  for (size_t k = 0; k < ours.size(); ++k) {
    for (size_t j = 0; j < kPoseidonWidth; ++j) {
      EXPECT_EQ(std::to_string(ours[k][j].value()), permuted[k][j].get<std::string>())
          << "state " << k << " element " << j;
    }
  }

  ExpectPilStarksFiles(dir_.path(), "trace", shapes);
}

TEST_F(StarkOracleTest, Bn128RootsTreesAndHashesAreExactlyPilStarks) {
  TestRng rng(seed_ ^ 0xb128);
  const std::vector<TraceShape> shapes = Bn128OracleShapes(rng);
  nlohmann::json commits = nlohmann::json::array();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = absl::StrCat("bn", i);
    WriteFile(dir_ / (name + ".bin"), RandomTraceBytes(rng, shapes[i]));
    commits.push_back(CommitJob(dir_.path(), name, shapes[i]));
  }
  // circomlibjs's Poseidon on every width (t = 2 to 17), random initial states and inputs
  // below 2^192 (what the tree feeds it) and up to p - 1.
  nlohmann::json inputs = nlohmann::json::array();
  std::vector<Bn254Fr> ours;
  for (size_t k = 0; k < 48; ++k) {
    const size_t count = 1 + k % 16;
    std::vector<Bn254Fr> words;
    for (size_t j = 0; j <= count; ++j) {
      Bn254Fr::Int v{};
      for (size_t l = 0; l < 4; ++l) v.limbs[l] = rng.Next();
      if (k % 3 == 0) v.limbs[3] = 0;
      words.push_back(k == 1 ? -Bn254Fr::One() : Bn254Fr::FromIntReduced(v));
    }
    nlohmann::json row = nlohmann::json::array();
    for (const Bn254Fr& x : words) row.push_back(field::ToDecimal(x.ToCanonical()));
    inputs.push_back(row);
    ours.push_back(PoseidonBn254Hash(std::span(words).subspan(1), words[0]));
  }
  WriteFile(dir_ / "bn128_in.json", inputs.dump());
  const nlohmann::json manifest = {
      {"commits", commits},
      {"bn128_hashes",
       {{"in", (dir_ / "bn128_in.json").string()}, {"out", (dir_ / "bn128_out.json").string()}}}};
  WriteFile(dir_ / "manifest.json", manifest.dump());
  absl::StatusOr<ExitInfo> oracle = RunOracle(dir_ / "manifest.json", dir_.path());
  ASSERT_THAT(oracle.status(), IsOk());
  ASSERT_TRUE(oracle->exited && oracle->code == 0) << oracle->stderr_text;

  const nlohmann::json hashed = nlohmann::json::parse(ReadFile(dir_ / "bn128_out.json"));
  ASSERT_EQ(hashed.size(), ours.size());
  for (size_t k = 0; k < ours.size(); ++k) {
    EXPECT_EQ(field::ToDecimal(ours[k].ToCanonical()), hashed[k].get<std::string>())
        << "inputs " << k << " (" << 1 + k % 16 << " of them)";
  }
  ExpectPilStarksFiles(dir_.path(), "bn", shapes);
}

// The command line end to end on one shape: the files `provd stark-commit` writes are
// pil-stark's.
TEST_F(StarkOracleTest, StarkCommitCommandWritesPilStarksFiles) {
  TestRng rng(seed_);
  const TraceShape shape{6, 9, 3};
  WriteFile(dir_ / "trace.cm", RandomTraceBytes(rng, shape));
  const nlohmann::json manifest = {{"commits",
                                    {{{"columns", (dir_ / "trace.cm").string()},
                                      {"n_bits", shape.n_bits},
                                      {"n_cols", shape.n_cols},
                                      {"blowup_bits", shape.blowup_bits},
                                      {"root_out", (dir_ / "pil.root.json").string()},
                                      {"tree_out", (dir_ / "pil.tree").string()}}}}};
  WriteFile(dir_ / "manifest.json", manifest.dump());
  absl::StatusOr<ExitInfo> oracle = RunOracle(dir_ / "manifest.json", dir_.path());
  ASSERT_THAT(oracle.status(), IsOk());
  ASSERT_TRUE(oracle->exited && oracle->code == 0) << oracle->stderr_text;

  absl::StatusOr<ExitInfo> provd = RunToCompletion(
      {PROVD_BINARY, "stark-commit", "--columns", (dir_ / "trace.cm").string(), "--n-cols", "9",
       "--blowup-bits", "3", "--root-out", (dir_ / "provd.root.json").string(), "--tree-out",
       (dir_ / "provd.tree").string()},
      dir_.path(), absl::Seconds(60));
  ASSERT_THAT(provd.status(), IsOk());
  ASSERT_TRUE(provd->exited && provd->code == 0) << provd->stderr_text;
  EXPECT_EQ(ReadFile(dir_ / "provd.root.json"), ReadFile(dir_ / "pil.root.json"));
  const std::string ours = ReadFile(dir_ / "provd.tree");
  const std::string theirs = ReadFile(dir_ / "pil.tree");
  EXPECT_TRUE(ours == theirs) << FirstDifference(ours, theirs);
}

}  // namespace
}  // namespace provd::stark
