// provd's Groth16 verifier against snarkjs on the fixture circuits of both curves: `provd vkey`
// writes the verification key snarkjs exports (as parsed JSON, vk_alphabeta_12 included),
// `provd verify` accepts snarkjs's proofs, and on tampered proofs and public signals provd and
// `snarkjs groth16 verify` give the same verdict. Exit codes: 0 valid, 1 invalid, 2 malformed.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prover_core/groth16/json_points.hpp"
#include "prover_core/groth16/verifier.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using nlohmann::json;
using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Case(const std::string& name) { return testing::CircuitCase(name); }

struct CommandResult {
  int code = -1;
  std::string out;
};

CommandResult Provd(const std::vector<std::string>& args) {
  testing::TempDir logs;
  std::vector<std::string> argv = {PROVD_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<testing::ExitInfo> run =
      testing::RunToCompletion(argv, logs.path(), absl::Seconds(60));
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok() || !run->exited) return {};
  return {run->code, run->stdout_text + run->stderr_text};
}

// provd's verdict through `provd verify --vkey`, and snarkjs's; both must be `expected`
// (snarkjs's `snarkjs_expected` where provd is deliberately stricter).
void ExpectVerdicts(const std::string& name, const json& proof, const json& inputs, bool expected,
                    const std::string& what, std::optional<bool> snarkjs_expected = std::nullopt) {
  SCOPED_TRACE(name + ": " + what);
  testing::TempDir dir;
  testing::WriteFile(dir / "proof.json", proof.dump());
  testing::WriteFile(dir / "public.json", inputs.dump());
  const CommandResult run =
      Provd({"verify", "--vkey", (Case(name) / "vkey.json").string(), "--proof",
             (dir / "proof.json").string(), "--public", (dir / "public.json").string()});
  EXPECT_EQ(run.code, expected ? 0 : 1) << run.out;
  EXPECT_EQ(
      testing::SnarkjsAccepts(PROVD_SNARKJS, Case(name) / "vkey.json", inputs.dump(), proof.dump()),
      snarkjs_expected.value_or(expected));
}

std::string PlusDecimal(const json& value, const field::BigInt<8>& k) {
  absl::StatusOr<field::BigInt<8>> v = json_points::ParseDecimal<8>(value, "value");
  EXPECT_THAT(v.status(), IsOk());
  field::BigInt<8> sum = *v;
  sum.AddInPlace(k);
  return field::ToDecimal(sum);
}

template <typename Int>
field::BigInt<8> Widen(const Int& v) {
  field::BigInt<8> out;
  for (size_t i = 0; i < Int::kLimbs; ++i) out.limbs[i] = v.limbs[i];
  return out;
}

class VerifyCircuit : public ::testing::TestWithParam<const char*> {};

TEST_P(VerifyCircuit, VkeyEqualsSnarkjsExport) {
  testing::TempDir dir;
  const CommandResult run = Provd({"vkey", "--zkey", (Case(GetParam()) / "circuit.zkey").string(),
                                   "--out", (dir / "vk.json").string()});
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(json::parse(testing::ReadFile(dir / "vk.json")),
            json::parse(testing::ReadFile(Case(GetParam()) / "vkey.json")));
}

TEST_P(VerifyCircuit, SnarkjsProofIsOkFromTheVkeyAndFromTheZkey) {
  const fs::path dir = Case(GetParam());
  for (const char* flag : {"--vkey", "--zkey"}) {
    const CommandResult run =
        Provd({"verify", flag, (dir / (flag[2] == 'v' ? "vkey.json" : "circuit.zkey")).string(),
               "--proof", (dir / "snarkjs_proof.json").string(), "--public",
               (dir / "snarkjs_public.json").string()});
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_THAT(run.out, HasSubstr("OK"));
  }
}

INSTANTIATE_TEST_SUITE_P(Circuits, VerifyCircuit,
                         ::testing::Values("mult_bn128", "poseidon_bn128", "many_public_bn128",
                                           "no_public_bn128", "mult_bls12381"));

// Tampered proofs: provd and snarkjs reject each of them.
template <typename E>
void TamperedProofsAreRejectedByBoth(const std::string& name) {
  const json proof = json::parse(testing::ReadFile(Case(name) / "snarkjs_proof.json"));
  const json inputs = json::parse(testing::ReadFile(Case(name) / "snarkjs_public.json"));
  ExpectVerdicts(name, proof, inputs, true, "untouched");

  json flipped = proof;
  flipped["pi_a"][0] = PlusDecimal(proof["pi_a"][0], field::BigInt<8>::FromUint64(1));
  ExpectVerdicts(name, flipped, inputs, false, "pi_a.x + 1 (off the curve)");

  json swapped = proof;
  std::swap(swapped["pi_a"], swapped["pi_c"]);
  ExpectVerdicts(name, swapped, inputs, false, "pi_a and pi_c swapped");

  json infinity = proof;
  infinity["pi_c"] = json::array({"0", "1", "0"});
  ExpectVerdicts(name, infinity, inputs, false, "pi_c at infinity");

  if (!inputs.empty()) {  // no_public_bn128 has none to tamper with
    json too_big = inputs;
    too_big[0] = PlusDecimal(inputs[0], Widen(E::G1::kOrder));
    ExpectVerdicts(name, proof, too_big, false, "public signal + r");

    json other = inputs;
    other[0] = PlusDecimal(inputs[0], field::BigInt<8>::FromUint64(1));
    ExpectVerdicts(name, proof, other, false, "public signal + 1");

    // snarkjs sums only the signals it is given, so it accepts a proof whose last signal, 0,
    // is left out; provd wants the key's count (one of its deliberate differences).
    json fewer = inputs;
    fewer.erase(fewer.size() - 1);
    ExpectVerdicts(name, proof, fewer, false, "one public signal fewer",
                   /*snarkjs_expected=*/inputs.back() == "0");
  }

  // B on the curve over Fq2 but outside G2 (snarkjs checks only the curve; the pairing fails).
  testing::TestRng rng(7);
  using Fq2 = typename E::G2::Field;
  using Fq = typename Fq2::Base;
  while (true) {
    const Fq2 x(rng.NextField<Fq>(), rng.NextField<Fq>());
    const auto y = (x.Square() * x + E::G2::B()).Sqrt();
    if (!y) continue;
    const curve::AffinePoint<typename E::G2> b = curve::AffinePoint<typename E::G2>::FromXY(x, *y);
    ASSERT_FALSE(pairing::IsInG2<typename E::Pairing>(b));
    json off_subgroup = proof;
    off_subgroup["pi_b"] = json::array(
        {json_points::CoordinateJson(b.x), json_points::CoordinateJson(b.y), json({"1", "0"})});
    ExpectVerdicts(name, off_subgroup, inputs, false, "pi_b outside G2");
    break;
  }
}

TEST(VerifyTampered, Bn254) { TamperedProofsAreRejectedByBoth<Bn254Engine>("mult_bn128"); }
TEST(VerifyTampered, Bls12381) { TamperedProofsAreRejectedByBoth<Bls12381Engine>("mult_bls12381"); }
TEST(VerifyTampered, Poseidon) { TamperedProofsAreRejectedByBoth<Bn254Engine>("poseidon_bn128"); }
TEST(VerifyTampered, ManyPublic) {
  TamperedProofsAreRejectedByBoth<Bn254Engine>("many_public_bn128");
}
TEST(VerifyTampered, NoPublic) { TamperedProofsAreRejectedByBoth<Bn254Engine>("no_public_bn128"); }

TEST(VerifyTampered, SwappedPublicInputs) {
  const std::string name = "many_public_bn128";
  const json proof = json::parse(testing::ReadFile(Case(name) / "snarkjs_proof.json"));
  json inputs = json::parse(testing::ReadFile(Case(name) / "snarkjs_public.json"));
  size_t other = 1;
  while (other < inputs.size() && inputs[other] == inputs[0]) ++other;
  ASSERT_LT(other, inputs.size());
  std::swap(inputs[0], inputs[other]);
  ExpectVerdicts(name, proof, inputs, false, "public signals 0 and " + std::to_string(other));
}

TEST(VerifyMalformed, ExitTwoNamingTheField) {
  const fs::path c = Case("mult_bn128");
  const json proof = json::parse(testing::ReadFile(c / "snarkjs_proof.json"));
  testing::TempDir dir;
  auto verify = [&](const std::string& proof_text, const std::string& public_text) {
    testing::WriteFile(dir / "proof.json", proof_text);
    testing::WriteFile(dir / "public.json", public_text);
    return Provd({"verify", "--zkey", (c / "circuit.zkey").string(), "--proof",
                  (dir / "proof.json").string(), "--public", (dir / "public.json").string()});
  };
  const std::string inputs = testing::ReadFile(c / "snarkjs_public.json");
  CommandResult run = verify("{not json", inputs);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("proof: not a JSON object"));
  json missing = proof;
  missing.erase("pi_b");
  run = verify(missing.dump(), inputs);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("missing pi_b"));
  json word = proof;
  word["pi_c"][1] = "twelve";
  run = verify(word.dump(), inputs);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("pi_c[1]"));
  json wide = proof;
  wide["pi_a"][0] = PlusDecimal(proof["pi_a"][0], Widen(field::Bn254Fq::Modulus()));
  run = verify(wide.dump(), inputs);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("pi_a[0]: not a field element"));
  json other_curve = proof;
  other_curve["curve"] = "bls12381";
  run = verify(other_curve.dump(), inputs);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("curve"));
  run = verify(proof.dump(), "[\"1x\"]");
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("public signal 0"));
  run = Provd({"verify", "--vkey", (dir / "absent.json").string(), "--proof",
               (dir / "proof.json").string(), "--public", (dir / "public.json").string()});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("cannot be read"));
  run = Provd({"vkey", "--zkey", (c / "vkey.json").string()});
  EXPECT_EQ(run.code, 2);
  run = Provd({"verify", "--zkey", (c / "circuit.zkey").string(), "--proof", dir.path().string(),
               "--public", (dir / "public.json").string()});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("is a directory"));
}

TEST(VerifyMalformed, VerificationKeyJsonErrorsNameTheField) {
  json vk = json::parse(testing::ReadFile(Case("mult_bls12381") / "vkey.json"));
  EXPECT_THAT(ParseVerificationKeyJson(vk.dump()), IsOk());
  json off = vk;
  off["vk_delta_2"][0][0] = PlusDecimal(vk["vk_delta_2"][0][0], field::BigInt<8>::FromUint64(1));
  EXPECT_THAT(ParseVerificationKeyJson(off.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("vk_delta_2 is not on")));
  json count = vk;
  count["nPublic"] = 5;
  EXPECT_THAT(ParseVerificationKeyJson(count.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nPublic")));
  json curve = vk;
  curve["curve"] = "bn254x";
  EXPECT_THAT(ParseVerificationKeyJson(curve.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("curve")));
  json numeric = vk;
  numeric["curve"] = 5;
  numeric["protocol"] = json::array({"groth16"});
  EXPECT_THAT(ParseVerificationKeyJson(numeric.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("protocol")));
  numeric["protocol"] = "groth16";
  EXPECT_THAT(ParseVerificationKeyJson(numeric.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("curve")));
  json no_ic = vk;
  no_ic.erase("IC");
  EXPECT_THAT(ParseVerificationKeyJson(no_ic.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("IC")));
  // gamma2 = 0 would accept a proof with any public inputs.
  for (const char* field : {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"}) {
    json zero = vk;
    if (std::string(field) == "vk_alpha_1") {
      zero[field] = json::array({"0", "1", "0"});
    } else {
      zero[field] =
          json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})});
    }
    EXPECT_THAT(ParseVerificationKeyJson(zero.dump()),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(std::string(field) + " is the point at infinity")));
  }
}

// An attacker's deeply nested value must give a short message, not a recursion as deep as the
// nesting (json::dump would recurse once per level).
TEST(VerifyMalformed, DeeplyNestedValuesGiveShortMessages) {
  const std::string nested = std::string(200000, '[') + std::string(200000, ']');
  json vk = json::parse(testing::ReadFile(Case("mult_bn128") / "vkey.json"));
  std::string text = vk.dump();
  const std::string protocol = "\"protocol\":\"groth16\"";
  text.replace(text.find(protocol), protocol.size(), "\"protocol\":" + nested);
  absl::StatusOr<AnyVerificationKey> parsed = ParseVerificationKeyJson(text);
  EXPECT_THAT(parsed.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("protocol: expected \"groth16\", got an array")));
  EXPECT_LT(parsed.status().message().size(), 200u);

  json long_curve = vk;
  long_curve["curve"] = std::string(100000, 'x');
  parsed = ParseVerificationKeyJson(long_curve.dump());
  EXPECT_THAT(parsed.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("curve")));
  EXPECT_LT(parsed.status().message().size(), 200u);

  const fs::path c = Case("mult_bn128");
  testing::TempDir dir;
  std::string proof = testing::ReadFile(c / "snarkjs_proof.json");
  const std::string curve = "\"curve\": \"bn128\"";
  ASSERT_NE(proof.find(curve), std::string::npos) << proof;
  proof.replace(proof.find(curve), curve.size(), "\"curve\": " + nested);
  testing::WriteFile(dir / "proof.json", proof);
  const CommandResult run =
      Provd({"verify", "--zkey", (c / "circuit.zkey").string(), "--proof",
             (dir / "proof.json").string(), "--public", (c / "snarkjs_public.json").string()});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("curve: the proof says an array"));
}

}  // namespace
}  // namespace provd::groth16
