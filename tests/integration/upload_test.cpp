// UploadFile and ListFiles against a real daemon: a key uploaded in chunks proves jobs, a large
// witness goes through `provctl submit` by upload, and every bad or broken upload (a wrong
// digest, a short or long stream, a junk key, a bad name, a client that goes away) is refused
// with what was wrong and leaves no file, temp or final, and no job.
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "prover_core/io/digest.hpp"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/subprocess.hpp"

namespace provd::testing {
namespace {

using provd::v1::FILE_AREA_INPUTS;
using provd::v1::FILE_AREA_KEYS;
using provd::v1::UploadFileRequest;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string Sha256Of(const std::string& bytes) {
  const io::Sha256Digest d =
      io::Sha256({{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}});
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

provd::v1::UploadBegin Begin(provd::v1::FileArea area, const std::string& name, uint64_t size,
                             bool replace = false) {
  provd::v1::UploadBegin begin;
  begin.set_area(area);
  begin.set_name(name);
  begin.set_size(size);
  begin.set_replace(replace);
  return begin;
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) names.push_back(entry.path().lexically_relative(dir).string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class UploadTest : public JobServiceFixture {
 protected:
  void SetUp() override {
    StartDaemon({"--cpu-workers", "1", "--inputs-dir", inputs_.path().string()});
    ASSERT_NE(daemon_, nullptr);
    stub_ = provd::v1::Prover::NewStub(
        grpc::CreateChannel(daemon_->grpc_address(), grpc::InsecureChannelCredentials()));
  }

  // One UploadFile stream of exactly these messages; the daemon's answer.
  absl::Status RawUpload(const std::vector<UploadFileRequest>& messages) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    provd::v1::UploadFileResponse response;
    auto writer = stub_->UploadFile(&context, &response);
    for (const UploadFileRequest& m : messages) {
      if (!writer->Write(m)) break;
    }
    writer->WritesDone();
    return client::FromGrpcStatus(writer->Finish());
  }
  static UploadFileRequest BeginMessage(const provd::v1::UploadBegin& begin) {
    UploadFileRequest m;
    *m.mutable_begin() = begin;
    return m;
  }
  static UploadFileRequest Data(const std::string& bytes) {
    UploadFileRequest m;
    m.set_data(bytes);
    return m;
  }
  static UploadFileRequest End(const std::string& sha256) {
    UploadFileRequest m;
    m.mutable_end()->set_sha256(sha256);
    return m;
  }

  TempDir inputs_;
  std::unique_ptr<provd::v1::Prover::Stub> stub_;
};

TEST_F(UploadTest, AnUploadedKeyIsListedAndProvesJobs) {
  fs::create_directories(keys_ / "uploaded");
  const fs::path zkey = CircuitCase("poseidon_bn128") / "circuit.zkey";
  std::vector<uint64_t> progress;
  absl::StatusOr<provd::v1::UploadFileResponse> up =
      client_->UploadFile(Begin(FILE_AREA_KEYS, "uploaded/p.zkey", 0), zkey.string(),
                          [&](uint64_t sent) { progress.push_back(sent); });
  ASSERT_THAT(up, IsOk());
  EXPECT_EQ(up->name(), "uploaded/p.zkey");
  EXPECT_EQ(up->size(), fs::file_size(zkey));
  EXPECT_EQ(up->sha256(), Sha256Of(ReadFile(zkey)));
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), fs::file_size(zkey));
  EXPECT_EQ(ReadFile(keys_ / "uploaded/p.zkey"), ReadFile(zkey));

  absl::StatusOr<provd::v1::ListFilesResponse> list = client_->ListFiles(FILE_AREA_KEYS);
  ASSERT_THAT(list, IsOk());
  std::vector<std::string> listed;
  for (const auto& f : list->files()) listed.push_back(f.name());
  EXPECT_EQ(listed, (std::vector<std::string>{"bls/mult.zkey", "mult.zkey", "poseidon.zkey",
                                              "uploaded/p.zkey"}));

  absl::StatusOr<provd::v1::Job> job =
      Submit(Request("uploaded/p.zkey", poseidon_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(job, IsOk());
  const provd::v1::Job done = WaitFinal(job->id());
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED) << done.error().message();
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("poseidon_bn128") / "vkey.json",
                             done.result().public_json(), done.result().proof_json()));
}

TEST_F(UploadTest, AnExistingNameIsReplacedOnlyWhenAsked) {
  const fs::path poseidon = CircuitCase("poseidon_bn128") / "circuit.zkey";
  EXPECT_THAT(client_->UploadFile(Begin(FILE_AREA_KEYS, "mult.zkey", 0), poseidon.string()),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("begin.replace")));
  EXPECT_EQ(ReadFile(keys_ / "mult.zkey"), ReadFile(CircuitCase("mult_bn128") / "circuit.zkey"));
  EXPECT_THAT(client_->UploadFile(Begin(FILE_AREA_KEYS, "mult.zkey", 0, true), poseidon.string()),
              IsOk());
  EXPECT_EQ(ReadFile(keys_ / "mult.zkey"), ReadFile(poseidon));
}

TEST_F(UploadTest, BadUploadsAreRefusedAndLeaveNothing) {
  const std::vector<std::string> keys_before = Names(keys_ / "");
  const std::string bytes = mult_witness_;
  const std::string sha = Sha256Of(bytes);
  auto expect = [&](const std::vector<UploadFileRequest>& messages, absl::StatusCode code,
                    const std::string& message) {
    EXPECT_THAT(RawUpload(messages), StatusIs(code, HasSubstr(message))) << message;
    EXPECT_EQ(Names(keys_ / ""), keys_before) << message;
    EXPECT_TRUE(Names(inputs_.path()).empty()) << message;
  };
  const auto begin = BeginMessage(Begin(FILE_AREA_INPUTS, "w.wtns", bytes.size()));
  expect({begin, Data(bytes), End(std::string(32, 'x'))}, absl::StatusCode::kInvalidArgument,
         "end.sha256: the bytes received have SHA-256");
  expect({begin, Data(bytes.substr(0, 100)), End(sha)}, absl::StatusCode::kInvalidArgument,
         "end: 100 of the 1420 declared bytes arrived");
  expect({begin, Data(bytes), Data("x"), End(sha)}, absl::StatusCode::kInvalidArgument,
         "data: more than the 1420 bytes");
  expect({Data(bytes), End(sha)}, absl::StatusCode::kInvalidArgument,
         "the first message must be `begin`");
  expect({begin, begin}, absl::StatusCode::kInvalidArgument, "only the first message");
  expect({begin, Data(bytes)}, absl::StatusCode::kCancelled, "the stream ended before `end`");
  expect({BeginMessage(Begin(FILE_AREA_INPUTS, "../w.wtns", 1))},
         absl::StatusCode::kInvalidArgument, "begin.name: file name \"../w.wtns\"");
  expect({BeginMessage(Begin(FILE_AREA_INPUTS, "no/such/dir/w.wtns", 1))},
         absl::StatusCode::kInvalidArgument, "no directory \"no/such/dir\"");
  expect({BeginMessage(Begin(provd::v1::FILE_AREA_UNSPECIFIED, "w.wtns", 1))},
         absl::StatusCode::kInvalidArgument, "begin.area");
  expect({BeginMessage(Begin(FILE_AREA_INPUTS, "w.wtns", uint64_t{1} << 62))},
         absl::StatusCode::kResourceExhausted, "do not fit");
  expect({BeginMessage(Begin(FILE_AREA_INPUTS, "w.wtns.provd-tmp-AbCdEf", 1))},
         absl::StatusCode::kInvalidArgument, "ends like provd's temp files");
  expect({BeginMessage(Begin(FILE_AREA_INPUTS, std::string(250, 'w'), 1))},
         absl::StatusCode::kInvalidArgument, "begin.name: the file name is 250 bytes long");
  // Complete and correct, but the stream goes on after `end`: refused before it gets the name.
  expect({begin, Data(bytes), End(sha), Data("x")}, absl::StatusCode::kInvalidArgument,
         "end: a message followed `end`");
  // A witness is no key: refused before it gets the name.
  expect({BeginMessage(Begin(FILE_AREA_KEYS, "w.zkey", bytes.size())), Data(bytes), End(sha)},
         absl::StatusCode::kInvalidArgument, "\"w.zkey\" is not a usable Groth16 zkey");
  absl::StatusOr<provd::v1::ListJobsResponse> jobs = client_->ListJobs({});
  ASSERT_THAT(jobs, IsOk());
  EXPECT_EQ(jobs->jobs_size(), 0);
}

TEST_F(UploadTest, AClientThatGoesAwayMidUploadLeavesNoFile) {
  grpc::ClientContext context;
  provd::v1::UploadFileResponse response;
  auto writer = stub_->UploadFile(&context, &response);
  ASSERT_TRUE(writer->Write(BeginMessage(Begin(FILE_AREA_INPUTS, "big.wtns", 64 << 20))));
  ASSERT_TRUE(writer->Write(Data(std::string(1 << 20, 'w'))));
  // The temp file exists while the upload runs...
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (Names(inputs_.path()).empty() && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(Names(inputs_.path()).size(), 1u);
  EXPECT_THAT(Names(inputs_.path())[0], HasSubstr("big.wtns.provd-tmp-"));
  // ...and is gone once the client cancels.
  context.TryCancel();
  writer->Finish();
  while (!Names(inputs_.path()).empty() && absl::Now() < give_up + absl::Seconds(10)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(Names(inputs_.path()).empty());
  absl::StatusOr<provd::v1::ListFilesResponse> list = client_->ListFiles(FILE_AREA_INPUTS);
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->files_size(), 0);
}

// The daemon's own directory missing is its operator's problem, not a bad name.
TEST_F(UploadTest, AMissingAreaDirectoryIsAFailedPrecondition) {
  fs::remove_all(inputs_.path());
  const absl::Status status = RawUpload({BeginMessage(Begin(FILE_AREA_INPUTS, "w.wtns", 1))});
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("the inputs directory: ")));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("the inputs directory the inputs")));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr(inputs_.path().string())));
  EXPECT_THAT(client_->ListFiles(FILE_AREA_INPUTS),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cannot be listed")));
  fs::create_directories(inputs_.path());
}

// Entries that cannot be read (a dangling symlink) or used (a symlink out of the directory) are
// left out; the others are listed.
TEST_F(UploadTest, ListFilesSkipsWhatItCannotRead) {
  fs::create_symlink(keys_ / "no-such-target.zkey", keys_ / "dangling.zkey");
  fs::create_symlink(keys_ / "mult.zkey", keys_ / "alias.zkey");
  TempDir outside;
  WriteFile(outside / "elsewhere.zkey", "not in the key directory");
  fs::create_symlink(outside / "elsewhere.zkey", keys_ / "escape.zkey");
  WriteFile(keys_ / "half.zkey.provd-tmp-AbCdEf", "an upload in progress");
  absl::StatusOr<provd::v1::ListFilesResponse> list = client_->ListFiles(FILE_AREA_KEYS);
  ASSERT_THAT(list, IsOk());
  std::vector<std::string> listed;
  for (const auto& f : list->files()) listed.push_back(f.name());
  EXPECT_EQ(listed, (std::vector<std::string>{"alias.zkey", "bls/mult.zkey", "mult.zkey",
                                              "poseidon.zkey"}));
}

TEST_F(UploadTest, ProvctlUploadsKeysAndLargeWitnesses) {
  TempDir out;
  const fs::path key = CircuitCase("poseidon_bn128") / "circuit.zkey";
  absl::StatusOr<ExitInfo> put =
      daemon_->Provctl({"keys", "put", key.string(), "--name", "p2.zkey"});
  ASSERT_THAT(put, IsOk());
  EXPECT_EQ(put->code, 0) << put->stderr_text;
  EXPECT_THAT(put->stdout_text, HasSubstr("p2.zkey: "));
  absl::StatusOr<ExitInfo> list = daemon_->Provctl({"keys", "list"});
  ASSERT_THAT(list, IsOk());
  EXPECT_THAT(list->stdout_text, HasSubstr("p2.zkey"));
  absl::StatusOr<ExitInfo> again =
      daemon_->Provctl({"keys", "put", key.string(), "--name", "p2.zkey"});
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->code, 1);
  EXPECT_THAT(again->stderr_text, HasSubstr("ALREADY_EXISTS"));

  // Over the threshold, the witness travels by upload and the job names it.
  absl::StatusOr<ExitInfo> submit = daemon_->Provctl(
      {"submit", "--zkey", "p2.zkey", "--witness",
       (CircuitCase("poseidon_bn128") / "witness.wtns").string(), "--upload-threshold-bytes",
       "1000", "--wait", "--proof-out", (out / "proof.json").string(), "--public-out",
       (out / "public.json").string()});
  ASSERT_THAT(submit, IsOk());
  EXPECT_EQ(submit->code, 0) << submit->stderr_text;
  EXPECT_THAT(submit->stderr_text, HasSubstr("uploading the witness"));
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("poseidon_bn128") / "vkey.json",
                             ReadFile(out / "public.json"), ReadFile(out / "proof.json")));
  const std::vector<std::string> inputs = Names(inputs_.path());
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_THAT(inputs[0], ::testing::StartsWith("provctl-"));
  absl::StatusOr<ExitInfo> inputs_list = daemon_->Provctl({"--json", "inputs", "list"});
  ASSERT_THAT(inputs_list, IsOk());
  EXPECT_THAT(inputs_list->stdout_text, HasSubstr(inputs[0]));
}

class TempSweepTest : public JobServiceFixture {};

// A daemon killed mid-upload left its temp file: the next start removes it, and nothing else.
TEST_F(TempSweepTest, TheDaemonRemovesAbandonedTempFilesAtStart) {
  TempDir inputs;
  const auto age = [](const fs::path& p) {
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1));
  };
  WriteFile(inputs / "big.wtns.provd-tmp-AbCdEf", "half an upload");
  WriteFile(inputs / "kept.wtns", "a witness");
  age(inputs / "big.wtns.provd-tmp-AbCdEf");
  age(inputs / "kept.wtns");
  StartDaemon({"--inputs-dir", inputs.path().string()});
  ASSERT_NE(daemon_, nullptr);
  EXPECT_EQ(Names(inputs.path()), (std::vector<std::string>{"kept.wtns"}));
}

class NoUploadsTest : public JobServiceFixture {};

// Not uploads, but the other half of "big circuits": the daemon's memory budget.
class MemoryBudgetTest : public JobServiceFixture {};

// A job whose proof would not fit is refused at submission; a smaller one still runs.
TEST_F(MemoryBudgetTest, AJobOverTheBudgetIsRefusedWithResourceExhausted) {
  // By the estimate mult's proof needs ~35 KB, poseidon's ~240 KB.
  StartDaemon({"--memory-budget-bytes", "200000"});
  ASSERT_NE(daemon_, nullptr);
  EXPECT_THAT(Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_HIGH)),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than this daemon's memory budget")));
  absl::StatusOr<provd::v1::Job> small =
      Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(small, IsOk());
  EXPECT_EQ(WaitFinal(small->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
  absl::StatusOr<provd::v1::ListJobsResponse> jobs = client_->ListJobs({});
  ASSERT_THAT(jobs, IsOk());
  EXPECT_EQ(jobs->jobs_size(), 1);
}

TEST_F(NoUploadsTest, ADaemonWithoutUploadsSaysSo) {
  StartDaemon({"--uploads", "false"});
  ASSERT_NE(daemon_, nullptr);
  EXPECT_THAT(client_->UploadFile(Begin(FILE_AREA_KEYS, "x.zkey", 0),
                                  (CircuitCase("mult_bn128") / "circuit.zkey").string()),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("uploads = false")));
}

// Jobs that fit one at a time but not together run one at a time, even with two slots.
TEST_F(MemoryBudgetTest, JobsThatDoNotFitTogetherRunOneAfterAnother) {
  StartDaemon({"--cpu-workers", "2", "--memory-budget-bytes", "300000"});
  ASSERT_NE(daemon_, nullptr);
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<provd::v1::Job> job =
        Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_LOW));
    ASSERT_THAT(job, IsOk());
    ids.push_back(job->id());
  }
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const std::string& id : ids) {
    const provd::v1::Job job = WaitFinal(id);
    ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
    spans.emplace_back(google::protobuf::util::TimeUtil::TimestampToNanoseconds(job.started_at()),
                       google::protobuf::util::TimeUtil::TimestampToNanoseconds(job.finished_at()));
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    EXPECT_GE(spans[i].first, spans[i - 1].second)
        << "jobs " << i - 1 << " and " << i << " overlap";
  }
}

}  // namespace
}  // namespace provd::testing
