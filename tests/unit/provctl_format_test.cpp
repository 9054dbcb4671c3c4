// provctl's pieces that need no daemon: what it prints for people and for scripts, which errors
// it retries, and how it reads and writes local files.
#include <filesystem>

#include "client/job_follow.hpp"
#include "client/job_format.hpp"
#include "client/local_files.hpp"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::client {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;
using TimeUtil = google::protobuf::util::TimeUtil;

provd::v1::Job FinishedJob() {
  provd::v1::Job job;
  job.set_id("0123456789abcdef0123456789abcdef");
  job.set_state(provd::v1::JOB_STATE_SUCCEEDED);
  job.set_priority(provd::v1::PRIORITY_LOW);
  job.mutable_spec()->mutable_groth16()->set_zkey_name("rollup/batch.zkey");
  job.set_input_size_bytes(3 << 20);
  job.set_attempts(2);
  job.mutable_result()->set_proof_json("{\"protocol\":\"groth16\"}");
  job.mutable_result()->set_public_json("[\"33\"]");
  provd::v1::RoundExecution* round = job.add_rounds();
  round->set_round_index(5);
  round->set_round_name("msm_a");
  round->set_chunk_total(4);
  provd::v1::ChunkSpan* gpu = round->add_spans();
  gpu->set_backend(provd::v1::BACKEND_GPU);
  gpu->set_gpu_index(1);
  gpu->set_first_chunk(0);
  gpu->set_chunk_count(1);
  provd::v1::ChunkSpan* cpu = round->add_spans();
  cpu->set_backend(provd::v1::BACKEND_CPU);
  cpu->set_first_chunk(1);
  cpu->set_chunk_count(3);
  return job;
}

TEST(ProvctlFormat, TheJobBlockShowsStateKeyAttemptsAndWhereEachChunkRan) {
  const std::string text = FormatJob(FinishedJob());
  EXPECT_THAT(text, HasSubstr("0123456789abcdef0123456789abcdef"));
  EXPECT_THAT(text, HasSubstr("succeeded"));
  EXPECT_THAT(text, HasSubstr("rollup/batch.zkey"));
  EXPECT_THAT(text, HasSubstr("3.0 MiB"));
  EXPECT_THAT(text, HasSubstr("msm_a"));
  EXPECT_THAT(text, HasSubstr("GPU 1"));
  EXPECT_THAT(text, HasSubstr("CPU chunks 1-3"));
}

TEST(ProvctlFormat, RoundTimesUnderAMillisecondAreNotZero) {
  provd::v1::Job job = FinishedJob();
  provd::v1::RoundExecution* round = job.mutable_rounds(0);
  *round->mutable_started_at() = TimeUtil::SecondsToTimestamp(1000);
  *round->mutable_finished_at() = TimeUtil::NanosecondsToTimestamp(1000'000'000'000 + 412'345);
  *round->mutable_spans(0)->mutable_elapsed() = TimeUtil::NanosecondsToDuration(300);
  *round->mutable_spans(1)->mutable_elapsed() = TimeUtil::MillisecondsToDuration(1234);
  const std::string text = FormatJob(job);
  EXPECT_THAT(text, HasSubstr("412us"));
  EXPECT_THAT(text, HasSubstr("GPU 1 chunk 0 <1us"));
  EXPECT_THAT(text, HasSubstr("CPU chunks 1-3 1.234s"));
}

TEST(ProvctlFormat, JsonKeepsTheProtoFieldNamesForScripts) {
  nlohmann::json job = nlohmann::json::parse(ToJson(FinishedJob()));
  EXPECT_EQ(job["id"], "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["result"]["proof_json"], "{\"protocol\":\"groth16\"}");
  EXPECT_EQ(job["result"]["public_json"], "[\"33\"]");
  EXPECT_EQ(job["rounds"][0]["round_name"], "msm_a");
  EXPECT_EQ(job["spec"]["groth16"]["zkey_name"], "rollup/batch.zkey");
}

TEST(ProvctlFormat, EventsSayWhatHappenedWhere) {
  provd::v1::JobEvent yielded;
  yielded.mutable_device_yielded()->set_gpu_index(1);
  yielded.mutable_device_yielded()->set_round_index(5);
  yielded.mutable_device_yielded()->set_chunk_index(100);
  *yielded.mutable_device_yielded()->mutable_latency() = TimeUtil::MillisecondsToDuration(12);
  const std::string text = FormatEventDetails(yielded);
  EXPECT_THAT(text, HasSubstr("GPU 1"));
  EXPECT_THAT(text, HasSubstr("chunk 100"));
  EXPECT_THAT(text, HasSubstr("12ms"));
  EXPECT_THAT(text, HasSubstr("continuing on CPU"));

  provd::v1::JobEvent deadline;
  deadline.mutable_cancelled()->set_reason("deadline");
  EXPECT_THAT(FormatEventDetails(deadline), HasSubstr("deadline"));
}

TEST(ProvctlFormat, SizesReadLikeSizes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(uint64_t{5} << 30), "5.0 GiB");
}

TEST(ProvctlFollow, FinalEventsAndTransientErrors) {
  provd::v1::JobEvent event;
  EXPECT_FALSE(FinalStateOf(event).has_value());
  event.mutable_round_started();
  EXPECT_FALSE(FinalStateOf(event).has_value());
  event.mutable_cancelled();
  EXPECT_EQ(FinalStateOf(event), provd::v1::JOB_STATE_CANCELLED);
  event.mutable_succeeded();
  EXPECT_EQ(FinalStateOf(event), provd::v1::JOB_STATE_SUCCEEDED);
  EXPECT_TRUE(IsFinalState(provd::v1::JOB_STATE_FAILED));
  EXPECT_FALSE(IsFinalState(provd::v1::JOB_STATE_RUNNING));
  EXPECT_TRUE(IsTransient(absl::UnavailableError("restarting")));
  EXPECT_TRUE(IsTransient(absl::DeadlineExceededError("slow")));
  EXPECT_FALSE(IsTransient(absl::InvalidArgumentError("bad witness")));
  EXPECT_FALSE(IsTransient(absl::UnauthenticatedError("no token")));
}

TEST(ProvctlFiles, TokensPemAndOutputs) {
  provd::testing::TempDir dir;
  provd::testing::WriteFile(dir / "token", "s3cret\r\n");
  auto token = ReadTokenFile((dir / "token").string());
  ASSERT_THAT(token, IsOk());
  EXPECT_EQ(*token, "s3cret");
  provd::testing::WriteFile(dir / "empty", "\n");
  EXPECT_THAT(ReadTokenFile((dir / "empty").string()),
              StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
  provd::testing::WriteFile(dir / "not.pem", "hello");
  EXPECT_THAT(ReadPemFile((dir / "not.pem").string()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not.pem")));
  EXPECT_FALSE(ReadWholeFile((dir / "missing").string()).ok());

  EXPECT_THAT(CheckWritableDestination((dir / "proof.json").string()), IsOk());
  EXPECT_FALSE(CheckWritableDestination((dir / "no/such/dir/proof.json").string()).ok());
  ASSERT_THAT(WriteFileAtomically((dir / "proof.json").string(), "{}"), IsOk());
  EXPECT_EQ(provd::testing::ReadFile(dir / "proof.json"), "{}");
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
  }
  EXPECT_EQ(files, 4u) << "no temp file left behind";
}

}  // namespace
}  // namespace provd::client
