// The daemon verifies every proof before a job succeeds: simulated GPUs that lie (wrong MSM
// results reported as successes) are caught, their proofs thrown away and made again on the
// CPU, the liar retired after its third rejection; a zkey whose verification key does not match
// its proving key fails its jobs saying so; with verification off, the lie gets through (which
// is what the check is for). Proofs are checked by snarkjs, the independent oracle.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/inconsistent_zkey.hpp"

namespace provd::testing {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;
using ::testing::HasSubstr;

class ProofVerificationTest : public JobServiceFixture {
 protected:
  std::string Metrics() {
    absl::StatusOr<std::string> metrics = HttpGet(daemon_->metrics_address(), "/metrics");
    EXPECT_THAT(metrics, IsOk());
    return metrics.ok() ? *metrics : "";
  }
};

TEST_F(ProofVerificationTest, ALyingGpuIsCaughtRetiredAndEveryJobStillSucceeds) {
  // One simulated GPU whose MSM results are wrong 30% of the time, and a CPU worker beside it.
  StartDaemon({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-faults",
               "corrupt=0.3,seed=11", "--msm-chunk-points", "8", "--on-gpu-retired", "continue"});
  ASSERT_NE(daemon_, nullptr);
  struct Submitted {
    std::string id;
    bool bls;
  };
  std::vector<Submitted> jobs;
  for (int i = 0; i < 24; ++i) {
    const bool bls = i % 4 == 3;
    auto job =
        Submit(Request(bls ? "bls/mult.zkey" : "mult.zkey", bls ? bls_witness_ : mult_witness_,
                       i % 3 == 0 ? provd::v1::PRIORITY_HIGH : provd::v1::PRIORITY_LOW));
    ASSERT_THAT(job, IsOk());
    jobs.push_back({job->id(), bls});
  }

  int rejections = 0, retirements = 0, valid_bn = 0, valid_bls = 0;
  std::map<uint32_t, int> rejected_on;
  for (const Submitted& submitted : jobs) {
    const Job job = WaitFinal(submitted.id, absl::Seconds(120));
    ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED)
        << submitted.id << ": " << job.error().message();
    EXPECT_EQ(job.attempts(), 1u);
    EXPECT_TRUE(SnarkjsAccepts(
        PROVD_SNARKJS, CircuitCase(submitted.bls ? "mult_bls12381" : "mult_bn128") / "vkey.json",
        job.result().public_json(), job.result().proof_json()))
        << submitted.id;
    (submitted.bls ? valid_bls : valid_bn)++;
    int finals = 0, rejected_here = 0;
    for (const JobEvent& e : Events(submitted.id)) {
      finals += e.has_succeeded() + e.has_failed() + e.has_cancelled();
      if (!e.has_proof_rejected()) continue;
      const auto& r = e.proof_rejected();
      ++rejections;
      ++rejected_here;
      EXPECT_TRUE(r.retrying_on_cpu());
      EXPECT_THAT(r.reason(), HasSubstr("not on the curve")) << r.DebugString();
      ASSERT_EQ(r.gpu_indices_size(), 1) << r.DebugString();
      EXPECT_EQ(r.gpu_indices(0), 0u);
      ++rejected_on[r.gpu_indices(0)];
      EXPECT_FALSE(r.rounds().empty());
      bool some_chunk_on_gpu = false;
      for (const auto& round : r.rounds()) {
        for (const auto& span : round.spans()) {
          some_chunk_on_gpu = some_chunk_on_gpu || span.backend() == provd::v1::BACKEND_GPU;
        }
      }
      EXPECT_TRUE(some_chunk_on_gpu) << r.DebugString();
      retirements += r.retired_gpu_indices_size();
    }
    EXPECT_EQ(finals, 1);
    EXPECT_LE(rejected_here, 1);  // the retry runs on the CPU, which does not lie
    if (rejected_here == 1) {
      // Job.rounds shows the retry that made the proof: all on the CPU.
      for (const auto& round : job.rounds()) {
        for (const auto& span : round.spans()) {
          EXPECT_EQ(span.backend(), provd::v1::BACKEND_CPU) << job.DebugString();
        }
      }
    }
  }
  // The third rejection retires the GPU; no job takes it after that, so there is no fourth.
  EXPECT_EQ(rejections, 3);
  EXPECT_EQ(retirements, 1);
  EXPECT_EQ(rejected_on[0], 3);

  const std::string metrics = Metrics();
  EXPECT_THAT(metrics, HasSubstr("provd_gpu_retired{device=\"0\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("provd_proof_rejected_total{gpu=\"0\"} 3"));
  // Every job's final proof verified, plus the three rejected ones.
  auto count = [&](const std::string& series) {
    const size_t at = metrics.find(series + " ");
    return at == std::string::npos ? -1 : std::stoi(metrics.substr(at + series.size() + 1));
  };
  EXPECT_EQ(count("provd_proof_verifications_total{curve=\"bn128\",result=\"valid\"}"), valid_bn);
  EXPECT_EQ(count("provd_proof_verifications_total{curve=\"bls12381\",result=\"valid\"}"),
            valid_bls);
  EXPECT_EQ(
      std::max(0, count("provd_proof_verifications_total{curve=\"bn128\",result=\"rejected\"}")) +
          std::max(
              0, count("provd_proof_verifications_total{curve=\"bls12381\",result=\"rejected\"}")),
      3);

  // provctl shows the rejection in a job's events.
  for (const Submitted& submitted : jobs) {
    bool rejected = false;
    for (const JobEvent& e : Events(submitted.id)) rejected = rejected || e.has_proof_rejected();
    if (!rejected) continue;
    absl::StatusOr<ExitInfo> watch = daemon_->Provctl({"watch", submitted.id});
    ASSERT_THAT(watch, IsOk());
    EXPECT_THAT(watch->stdout_text, HasSubstr("proof_rejected"));
    EXPECT_THAT(watch->stdout_text, HasSubstr("GPU 0 ran part of it"));
    break;
  }
}

TEST_F(ProofVerificationTest, AKeyWhoseVerificationKeyDoesNotMatchFailsItsJobsSayingSo) {
  WriteFile(keys_ / "inconsistent.zkey",
            ZkeyWithWrongGamma2(CircuitCase("mult_bn128") / "circuit.zkey"));
  StartDaemon({"--cpu-workers", "1"});
  ASSERT_NE(daemon_, nullptr);
  auto job = Submit(Request("inconsistent.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(job, IsOk());
  const Job done = WaitFinal(job->id());
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_FAILED);
  EXPECT_EQ(done.error().code(), static_cast<int>(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(done.error().message(), HasSubstr("inconsistent.zkey\" is inconsistent"));
  EXPECT_THAT(done.error().message(), HasSubstr("Invalid proof"));
  EXPECT_FALSE(done.has_result());
  std::vector<bool> retrying;
  for (const JobEvent& e : Events(job->id())) {
    if (!e.has_proof_rejected()) continue;
    retrying.push_back(e.proof_rejected().retrying_on_cpu());
    EXPECT_EQ(e.proof_rejected().gpu_indices_size(), 0);  // no GPU: the CPU made both
    EXPECT_EQ(e.proof_rejected().reason(), "Invalid proof");
  }
  EXPECT_EQ(retrying, (std::vector<bool>{true, false}));
  EXPECT_THAT(Metrics(), HasSubstr("provd_proof_rejected_total{gpu=\"cpu\"} 2"));

  // The daemon is unharmed: the good key still proves.
  auto good = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(good, IsOk());
  EXPECT_EQ(WaitFinal(good->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
}

TEST_F(ProofVerificationTest, WithVerificationOffALyingGpuGetsItsProofOut) {
  // What the check is for: the same lie, unverified, reaches the client.
  StartDaemon({"--cpu-workers", "0", "--simulated-gpus", "1", "--simulated-gpu-faults", "corrupt=1",
               "--verify-proofs", "false"});
  ASSERT_NE(daemon_, nullptr);
  auto job = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(job, IsOk());
  const Job done = WaitFinal(job->id());
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                              done.result().public_json(), done.result().proof_json()));
  for (const JobEvent& e : Events(job->id())) EXPECT_FALSE(e.has_proof_rejected());
  EXPECT_THAT(Metrics(), ::testing::Not(HasSubstr("provd_proof_verifications_total{")));
}

TEST_F(ProofVerificationTest, TheVerifyProofRpcAndProvctlVerifyAgreeWithSnarkjs) {
  StartDaemon({"--cpu-workers", "1"});
  ASSERT_NE(daemon_, nullptr);
  const std::filesystem::path bn = CircuitCase("mult_bn128"), bls = CircuitCase("mult_bls12381");
  auto request = [](const std::filesystem::path& c) {
    provd::v1::VerifyProofRequest r;
    r.set_proof_json(ReadFile(c / "snarkjs_proof.json"));
    r.set_public_json(ReadFile(c / "snarkjs_public.json"));
    return r;
  };

  provd::v1::VerifyProofRequest by_name = request(bn);
  by_name.set_zkey_name("mult.zkey");
  auto verdict = client_->VerifyProof(by_name);
  ASSERT_THAT(verdict, IsOk());
  EXPECT_TRUE(verdict->valid()) << verdict->reason();
  EXPECT_EQ(verdict->curve(), "bn128");

  provd::v1::VerifyProofRequest inline_key = request(bls);
  inline_key.set_verification_key_json(ReadFile(bls / "vkey.json"));
  verdict = client_->VerifyProof(inline_key);
  ASSERT_THAT(verdict, IsOk());
  EXPECT_TRUE(verdict->valid()) << verdict->reason();
  EXPECT_EQ(verdict->curve(), "bls12381");

  // A public signal that is not the proof's: valid = false with snarkjs's verdict.
  TempDir dir;
  std::string other_public = ReadFile(bn / "snarkjs_public.json");
  const size_t digit = other_public.find_first_of("0123456789");
  ASSERT_NE(digit, std::string::npos);
  other_public[digit] = other_public[digit] == '1' ? '2' : '1';
  WriteFile(dir / "public.json", other_public);
  provd::v1::VerifyProofRequest tampered = by_name;
  tampered.set_public_json(other_public);
  verdict = client_->VerifyProof(tampered);
  ASSERT_THAT(verdict, IsOk());
  EXPECT_FALSE(verdict->valid());
  EXPECT_EQ(verdict->reason(), "Invalid proof");
  EXPECT_FALSE(SnarkjsAccepts(PROVD_SNARKJS, bn / "vkey.json", other_public,
                              ReadFile(bn / "snarkjs_proof.json")));

  // Malformed requests: INVALID_ARGUMENT naming the field.
  provd::v1::VerifyProofRequest no_key = request(bn);
  EXPECT_THAT(client_->VerifyProof(no_key).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("key")));
  provd::v1::VerifyProofRequest absent = by_name;
  absent.set_zkey_name("absent.zkey");
  EXPECT_THAT(client_->VerifyProof(absent).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("zkey_name")));
  provd::v1::VerifyProofRequest escape = by_name;
  escape.set_zkey_name("../mult.zkey");
  EXPECT_THAT(client_->VerifyProof(escape).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("zkey_name")));
  provd::v1::VerifyProofRequest bad_vkey = inline_key;
  bad_vkey.set_verification_key_json("{\"protocol\": \"plonk\"}");
  EXPECT_THAT(
      client_->VerifyProof(bad_vkey).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("verification_key_json: protocol")));
  provd::v1::VerifyProofRequest no_pi_b = by_name;
  no_pi_b.set_proof_json("{\"pi_a\": [\"1\", \"2\", \"1\"]}");
  EXPECT_THAT(client_->VerifyProof(no_pi_b).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("proof_json: missing pi_b")));
  provd::v1::VerifyProofRequest words = by_name;
  words.set_public_json("[\"one\"]");
  EXPECT_THAT(
      client_->VerifyProof(words).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("public_json: public signal 0")));
  provd::v1::VerifyProofRequest wrong_curve = by_name;
  wrong_curve.set_proof_json(ReadFile(bls / "snarkjs_proof.json"));
  EXPECT_THAT(client_->VerifyProof(wrong_curve).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("curve")));

  // provctl verify: 0 and OK, 6 and the reason, 2 for bad usage; the daemon serves on.
  const std::string proof = (bn / "snarkjs_proof.json").string();
  absl::StatusOr<ExitInfo> run =
      daemon_->Provctl({"verify", "--zkey", "mult.zkey", "--proof", proof, "--public",
                        (bn / "snarkjs_public.json").string()});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 0) << run->stderr_text;
  EXPECT_THAT(run->stdout_text, HasSubstr("OK (bn128)"));
  run = daemon_->Provctl({"verify", "--vkey", (bn / "vkey.json").string(), "--proof", proof,
                          "--public", (dir / "public.json").string()});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 6) << run->stderr_text;
  EXPECT_THAT(run->stdout_text, HasSubstr("INVALID: Invalid proof"));
  run = daemon_->Provctl({"verify", "--json", "--zkey", "mult.zkey", "--proof", proof, "--public",
                          (dir / "public.json").string()});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 6);
  EXPECT_THAT(run->stdout_text, HasSubstr("\"valid\":false"));
  run = daemon_->Provctl({"verify", "--proof", proof, "--public", proof});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 2);
  EXPECT_THAT(run->stderr_text, HasSubstr("--zkey"));
  run = daemon_->Provctl(
      {"verify", "--zkey", "mult.zkey", "--proof", (dir / "absent").string(), "--public", proof});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 2);
  EXPECT_THAT(run->stderr_text, HasSubstr("--proof"));
  run = daemon_->Provctl({"verify", "--zkey", "mult.zkey", "--proof", proof, "--public",
                          (dir / "public.json").string(), "--vkey", (bn / "vkey.json").string()});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->code, 2);
  auto health = client_->Health("");
  ASSERT_THAT(health, IsOk());
}

}  // namespace
}  // namespace provd::testing
