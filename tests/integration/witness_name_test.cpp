// Groth16 jobs whose witness is a file in the daemon's inputs directory (witness_name), for
// witnesses too large for one message: proved and verified by snarkjs, checked at submission
// like inline ones, names outside the directory refused, and a file that changed before the job
// ran fails that job with INVALID_ARGUMENT while the daemon serves on.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/subprocess.hpp"

namespace provd::testing {
namespace {

using ::provd::testing::ExitInfo;
using ::provd::testing::RunToCompletion;
using provd::v1::Job;
using ::testing::HasSubstr;

provd::v1::SubmitJobRequest NamedRequest(const std::string& zkey, const std::string& name,
                                         provd::v1::Priority priority = provd::v1::PRIORITY_LOW) {
  provd::v1::SubmitJobRequest request;
  request.set_priority(priority);
  request.mutable_spec()->mutable_groth16()->set_zkey_name(zkey);
  request.mutable_spec()->mutable_groth16()->set_witness_name(name);
  return request;
}

class WitnessNameTest : public JobServiceFixture {
 protected:
  void SetUp() override {
    StartDaemon({"--cpu-workers", "1", "--inputs-dir", inputs_.path().string()});
    ASSERT_NE(daemon_, nullptr);
  }
  void ExpectInvalid(const provd::v1::SubmitJobRequest& request, const std::string& message) {
    EXPECT_THAT(Submit(request), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  }
  TempDir inputs_;
};

TEST_F(WitnessNameTest, ANamedWitnessIsProvedAndSnarkjsAcceptsTheProof) {
  std::filesystem::create_directories(inputs_ / "batches");
  WriteFile(inputs_ / "batches/7.wtns", poseidon_witness_);
  absl::StatusOr<Job> submitted = Submit(NamedRequest("poseidon.zkey", "batches/7.wtns"));
  ASSERT_THAT(submitted, IsOk());
  EXPECT_EQ(submitted->input_size_bytes(), poseidon_witness_.size());
  EXPECT_EQ(submitted->spec().groth16().witness_name(), "batches/7.wtns");
  const Job job = WaitFinal(submitted->id());
  ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("poseidon_bn128") / "vkey.json",
                             job.result().public_json(), job.result().proof_json()));
}

TEST_F(WitnessNameTest, ProvctlSubmitsAWitnessByName) {
  WriteFile(inputs_ / "m.wtns", mult_witness_);
  TempDir out;
  absl::StatusOr<ExitInfo> provctl = RunToCompletion(
      {PROVCTL_BINARY, "--addr", daemon_->grpc_address(), "submit", "--zkey", "mult.zkey",
       "--witness-name", "m.wtns", "--wait", "--proof-out", (out / "proof.json").string(),
       "--public-out", (out / "public.json").string()},
      out.path(), absl::Seconds(60));
  ASSERT_THAT(provctl, IsOk());
  EXPECT_EQ(provctl->code, 0) << provctl->stdout_text << provctl->stderr_text;
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             ReadFile(out / "public.json"), ReadFile(out / "proof.json")));
  // Both sources at once is a usage error, said before anything is sent.
  absl::StatusOr<ExitInfo> both = RunToCompletion(
      {PROVCTL_BINARY, "--addr", daemon_->grpc_address(), "submit", "--zkey", "mult.zkey",
       "--witness-name", "m.wtns", "--witness", (inputs_ / "m.wtns").string()},
      out.path(), absl::Seconds(30));
  ASSERT_THAT(both, IsOk());
  EXPECT_NE(both->code, 0);
  EXPECT_THAT(both->stderr_text, HasSubstr("give one of --witness"));
}

TEST_F(WitnessNameTest, BadNamesAndBadFilesAreRefusedAtSubmission) {
  ExpectInvalid(NamedRequest("mult.zkey", "absent.wtns"),
                "spec.groth16.witness_name: input \"absent.wtns\" not found");
  ExpectInvalid(NamedRequest("mult.zkey", "../mult.wtns"), "spec.groth16.witness_name");
  ExpectInvalid(NamedRequest("mult.zkey", ""), "spec.groth16.witness_name: is empty");
  TempDir outside;
  WriteFile(outside / "secret.wtns", mult_witness_);
  std::filesystem::create_symlink(outside / "secret.wtns", inputs_ / "link.wtns");
  ExpectInvalid(NamedRequest("mult.zkey", "link.wtns"), "leads outside the inputs directory");
  std::filesystem::create_directories(inputs_ / "dir.wtns");
  ExpectInvalid(NamedRequest("mult.zkey", "dir.wtns"), "is not a regular file");
  WriteFile(inputs_ / "junk.wtns", "not a witness at all");
  ExpectInvalid(NamedRequest("mult.zkey", "junk.wtns"), "spec.groth16.witness_name");
  // The poseidon circuit's witness does not fit the multiplier's key.
  WriteFile(inputs_ / "other.wtns", poseidon_witness_);
  ExpectInvalid(NamedRequest("mult.zkey", "other.wtns"), "spec.groth16.witness_name");
  // Nothing was queued.
  absl::StatusOr<provd::v1::ListJobsResponse> jobs = client_->ListJobs({});
  ASSERT_THAT(jobs, IsOk());
  EXPECT_EQ(jobs->jobs_size(), 0);
}

TEST_F(WitnessNameTest, AFileThatChangedBeforeTheJobRanFailsOnlyThatJob) {
  // Keep the only worker busy so that the named job waits in the queue while its file changes.
  WriteFile(inputs_ / "w.wtns", mult_witness_);
  absl::StatusOr<Job> busy =
      Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(busy, IsOk());
  absl::StatusOr<Job> named = Submit(NamedRequest("mult.zkey", "w.wtns"));
  ASSERT_THAT(named, IsOk());
  WriteFile(inputs_ / "w.wtns", "wtns garbage");
  const Job failed = WaitFinal(named->id());
  if (failed.state() == provd::v1::JOB_STATE_SUCCEEDED) {
    GTEST_SKIP() << "the job ran before its file changed (a loaded machine): nothing to check";
  }
  EXPECT_EQ(failed.state(), provd::v1::JOB_STATE_FAILED);
  EXPECT_EQ(failed.error().code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(failed.error().message(), HasSubstr("spec.groth16.witness_name \"w.wtns\""));
  EXPECT_EQ(WaitFinal(busy->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
  // And the daemon proves the next named job.
  WriteFile(inputs_ / "w.wtns", mult_witness_);
  absl::StatusOr<Job> again = Submit(NamedRequest("mult.zkey", "w.wtns"));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(WaitFinal(again->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
}

}  // namespace
}  // namespace provd::testing
