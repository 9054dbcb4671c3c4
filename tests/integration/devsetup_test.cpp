// `provd devsetup` against snarkjs 0.7.6 on the circom circuits of the `circuits` fixture:
// snarkjs exports the same verification key from the dev key as provd writes, proves with it,
// and accepts its proofs and provd's; the key's coefficient section is byte for byte snarkjs's
// `zkey new` one and its points are at infinity exactly where snarkjs's are. Then every refusal
// of the command, each leaving no file behind.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prover_core/groth16/bin_file.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd {
namespace {

using ::provd::testing::ExitInfo;
using ::provd::testing::IsOk;
using ::provd::testing::RunToCompletion;
using ::provd::testing::TempDir;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

ExitInfo RunTool(const std::vector<std::string>& argv, const TempDir& dir) {
  absl::StatusOr<ExitInfo> info = RunToCompletion(argv, dir.path(), absl::Seconds(120));
  EXPECT_THAT(info.status(), IsOk());
  return info.ok() ? *info : ExitInfo{};
}

ExitInfo Snarkjs(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), PROVD_SNARKJS);
  return RunTool(args, dir);
}

ExitInfo DevSetup(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), {PROVD_BINARY, "devsetup"});
  return RunTool(args, dir);
}

// The sections of a container file, by id.
std::map<uint32_t, std::string> Sections(const fs::path& path) {
  const std::string bytes = testing::ReadFile(path);
  const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::map<uint32_t, std::string> out;
  for (size_t at = 12; at + 12 <= bytes.size();) {
    const uint32_t id = groth16::ReadU32(span, at);
    const uint64_t size = groth16::ReadU64(span, at + 4);
    out[id] = bytes.substr(at + 12, size);
    at += 12 + size;
  }
  return out;
}

// For each point of a section: is it all zeros (the point at infinity)?
std::vector<bool> InfinityPattern(const std::string& section, size_t point_bytes) {
  std::vector<bool> zero;
  for (size_t at = 0; at < section.size(); at += point_bytes) {
    zero.push_back(section.find_first_not_of('\0', at) >= at + point_bytes);
  }
  return zero;
}

class DevSetupSnarkjsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DevSetupSnarkjsTest, SnarkjsProvesAndVerifiesWithTheKeyAndAcceptsProvdsProofs) {
  const fs::path c = testing::CircuitCase(GetParam());
  TempDir dir;
  const std::string zkey = (dir / "dev.zkey").string();
  const ExitInfo setup = DevSetup({"--r1cs", (c / "circuit.r1cs").string(), "--zkey-out", zkey,
                                   "--vkey-out", (dir / "vkey.json").string(), "--insecure"},
                                  dir);
  ASSERT_EQ(setup.code, 0) << setup.stderr_text;
  EXPECT_THAT(setup.stderr_text, HasSubstr("insecure"));

  ASSERT_EQ(
      Snarkjs({"zkey", "export", "verificationkey", zkey, (dir / "snarkjs_vkey.json").string()},
              dir)
          .code,
      0);
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFile(dir / "vkey.json")),
            nlohmann::json::parse(testing::ReadFile(dir / "snarkjs_vkey.json")));

  const ExitInfo prove = Snarkjs({"groth16", "prove", zkey, (c / "witness.wtns").string(),
                                  (dir / "proof.json").string(), (dir / "public.json").string()},
                                 dir);
  ASSERT_EQ(prove.code, 0) << prove.stdout_text << prove.stderr_text;
  EXPECT_TRUE(testing::SnarkjsAccepts(PROVD_SNARKJS, dir / "vkey.json",
                                      testing::ReadFile(dir / "public.json"),
                                      testing::ReadFile(dir / "proof.json")));
  // The public signals are the circuit's, whoever set the key up.
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFile(dir / "public.json")),
            nlohmann::json::parse(testing::ReadFile(c / "snarkjs_public.json")));

  const ExitInfo ours =
      RunTool({PROVD_BINARY, "prove", "--zkey", zkey, "--witness", (c / "witness.wtns").string(),
               "--proof-out", (dir / "provd_proof.json").string(), "--public-out",
               (dir / "provd_public.json").string()},
              dir);
  ASSERT_EQ(ours.code, 0) << ours.stderr_text;
  EXPECT_TRUE(testing::SnarkjsAccepts(PROVD_SNARKJS, dir / "snarkjs_vkey.json",
                                      testing::ReadFile(dir / "provd_public.json"),
                                      testing::ReadFile(dir / "provd_proof.json")));

  // Against the fixture's key, which snarkjs made with `groth16 setup` from the same r1cs.
  const std::map<uint32_t, std::string> dev = Sections(zkey);
  const std::map<uint32_t, std::string> ref = Sections(c / "circuit.zkey");
  ASSERT_EQ(dev.size(), ref.size());
  EXPECT_EQ(dev.at(4), ref.at(4)) << "coefficients";
  const size_t g1 = GetParam().find("bls12381") != std::string::npos ? 96 : 64;
  for (const auto& [id, point_bytes] : std::vector<std::pair<uint32_t, size_t>>{
           {3, g1}, {5, g1}, {6, g1}, {7, 2 * g1}, {8, g1}, {9, g1}}) {
    ASSERT_EQ(dev.at(id).size(), ref.at(id).size()) << "section " << id;
    EXPECT_EQ(InfinityPattern(dev.at(id), point_bytes), InfinityPattern(ref.at(id), point_bytes))
        << "section " << id;
  }
  // The header's counts (after n8q, q, n8r, r): nVars, nPublic, domainSize.
  const size_t counts = 4 + g1 / 2 + 4 + 32;
  EXPECT_EQ(dev.at(2).substr(counts, 12), ref.at(2).substr(counts, 12));
}

INSTANTIATE_TEST_SUITE_P(Circuits, DevSetupSnarkjsTest,
                         ::testing::Values("mult_bn128", "poseidon_bn128", "many_public_bn128",
                                           "no_public_bn128", "mult_bls12381"));

class DevSetupRefusalTest : public ::testing::Test {
 protected:
  void ExpectRefused(const std::vector<std::string>& args, int code, const std::string& message) {
    const ExitInfo info = DevSetup(args, dir_);
    EXPECT_TRUE(info.exited);
    EXPECT_EQ(info.code, code) << info.stderr_text;
    EXPECT_THAT(info.stderr_text, HasSubstr(message));
  }
  void SetUp() override { fs::create_directory(keys_); }
  // Files in the output directory (the command's logs go to dir_ itself).
  size_t Files() const {
    return static_cast<size_t>(
        std::distance(fs::directory_iterator(keys_), fs::directory_iterator()));
  }
  std::string R1cs() const {
    return (testing::CircuitCase("mult_bn128") / "circuit.r1cs").string();
  }
  std::string Out() const { return (keys_ / "k.zkey").string(); }

  TempDir dir_;
  const fs::path keys_ = dir_ / "keys";
};

TEST_F(DevSetupRefusalTest, WithoutInsecureItSaysWhyAndWritesNothing) {
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", Out()}, 2, "refusing to run without --insecure");
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", Out()}, 2, "can forge proofs");
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(DevSetupRefusalTest, AnExistingKeyIsReplacedOnlyWithForce) {
  testing::WriteFile(Out(), "a production key");
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", Out(), "--insecure"}, 2,
                "exists; pass --force to replace it");
  EXPECT_EQ(testing::ReadFile(Out()), "a production key");
  const ExitInfo forced =
      DevSetup({"--r1cs", R1cs(), "--zkey-out", Out(), "--insecure", "--force"}, dir_);
  EXPECT_EQ(forced.code, 0) << forced.stderr_text;
  EXPECT_EQ(testing::ReadFile(Out()).substr(0, 4), "zkey");
}

TEST_F(DevSetupRefusalTest, BadCircuitsAndCurvesAreNamed) {
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", Out(), "--insecure", "--curve", "bls12381"}, 2,
                "is a circuit over bn128's scalar field");
  ExpectRefused({"--r1cs", (dir_ / "absent.r1cs").string(), "--zkey-out", Out(), "--insecure"}, 2,
                "absent.r1cs");
  // A witness where the circuit should be, and a circuit cut short.
  ExpectRefused({"--r1cs", (testing::CircuitCase("mult_bn128") / "witness.wtns").string(),
                 "--zkey-out", Out(), "--insecure"},
                2, "magic");
  const std::string r1cs = testing::ReadFile(R1cs());
  testing::WriteFile(dir_ / "cut.r1cs", r1cs.substr(0, r1cs.size() - 100));
  ExpectRefused({"--r1cs", (dir_ / "cut.r1cs").string(), "--zkey-out", Out(), "--insecure"}, 2,
                "cut.r1cs");
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", Out(), "--insecure", "--curve", "bn254"}, 2,
                "--curve");
  EXPECT_FALSE(fs::exists(Out()));
  EXPECT_EQ(Files(), 0u);
}

TEST_F(DevSetupRefusalTest, AnUnwritablePlaceFailsAndLeavesNoTempFile) {
  ExpectRefused({"--r1cs", R1cs(), "--zkey-out", (keys_ / "no" / "k.zkey").string(), "--insecure"},
                1, "cannot create a temp file");
  EXPECT_EQ(Files(), 0u);
}

}  // namespace
}  // namespace provd
