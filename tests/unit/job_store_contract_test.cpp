// The contract of job_store.hpp, held by both stores: the same tests on a real SQLite file in
// a temp dir and on a real PostgreSQL server started for the test (tests/support/
// postgres_server.hpp): durability of acceptance, idempotent request ids (also under
// concurrency), one final state per job, recovery after a restart, listing, retention, MSM
// progress, and the rounds derived from events. What only one store has (the spool, SQLite's
// migrations; the advisory lock, outages) is in sqlite_job_store_test.cpp and
// postgres_job_store_test.cpp.
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon/store/job_store.hpp"
#include "daemon/store/postgres.hpp"
#include "daemon/store/postgres_job_store.hpp"
#include "daemon/store/sqlite_job_store.hpp"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "tests/support/postgres_server.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/job_store_fixtures.hpp"

namespace provd::daemon {
namespace {

using provd::testing::IsOk;
using provd::testing::StatusIs;
using ::testing::_;
using ::testing::HasSubstr;
using ::testing::SizeIs;

enum class Backend { kSqlite, kPostgres };

class JobStoreContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() != Backend::kPostgres) return;
    absl::StatusOr<std::unique_ptr<provd::testing::PostgresServer>> server =
        provd::testing::PostgresServer::Start();
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    absl::StatusOr<std::string> uri = server_->CreateDatabase("provd_jobs");
    ASSERT_THAT(uri, IsOk());
    uri_ = *uri;
  }

  // A store as a daemon opens it at start; destroying it is the daemon's end.
  std::unique_ptr<JobStore> OpenStore() {
    absl::StatusOr<std::unique_ptr<JobStore>> store = absl::UnknownError("no backend");
    if (GetParam() == Backend::kSqlite) {
      auto sqlite = SqliteJobStore::Open(dir_.path());
      store = sqlite.ok() ? absl::StatusOr<std::unique_ptr<JobStore>>(*std::move(sqlite))
                          : sqlite.status();
    } else {
      auto postgres = PostgresJobStore::Open({.conninfo = uri_});
      store = postgres.ok() ? absl::StatusOr<std::unique_ptr<JobStore>>(*std::move(postgres))
                            : postgres.status();
    }
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *std::move(store) : nullptr;
  }

  // How many jobs' input bytes the store holds.
  int64_t KeptWitnesses() {
    if (GetParam() == Backend::kSqlite) {
      int64_t files = 0;
      for ([[maybe_unused]] const auto& entry :
           std::filesystem::directory_iterator(dir_ / "spool")) {
        ++files;
      }
      return files;
    }
    absl::StatusOr<postgres::Connection> db = postgres::Connection::Open(uri_);
    EXPECT_THAT(db, IsOk());
    if (!db.ok()) return -1;
    absl::StatusOr<postgres::Result> count =
        db->Query("SELECT count(DISTINCT job_id) FROM provd.witnesses");
    EXPECT_THAT(count, IsOk());
    return count.ok() ? count->Int(0, 0) : -1;
  }

  provd::testing::TempDir dir_;
  std::unique_ptr<provd::testing::PostgresServer> server_;
  std::string uri_;
};

TEST_P(JobStoreContractTest, ASubmittedJobIsQueuedWithItsWitnessKeptAndAQueuedEvent) {
  auto store = OpenStore();
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(Submission(provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(outcome, IsOk());
  EXPECT_FALSE(outcome->deduplicated);
  const provd::v1::Job& job = outcome->job;
  EXPECT_THAT(job.id(), SizeIs(32));
  EXPECT_EQ(job.state(), provd::v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job.priority(), provd::v1::PRIORITY_HIGH);
  EXPECT_EQ(job.spec().groth16().zkey_name(), "circuit.zkey");
  EXPECT_EQ(job.input_size_bytes(), Submission().witness.size());
  EXPECT_TRUE(job.spec().groth16().witness().empty()) << "inputs never leave the store";

  absl::StatusOr<std::string> witness = store->ReadWitness(job.id());
  ASSERT_THAT(witness, IsOk());
  EXPECT_EQ(*witness, Submission().witness);
  EXPECT_EQ(KeptWitnesses(), 1);

  absl::StatusOr<std::vector<provd::v1::JobEvent>> events = store->Events(job.id(), 0);
  ASSERT_THAT(events, IsOk());
  ASSERT_THAT(*events, SizeIs(1));
  EXPECT_TRUE((*events)[0].has_queued());
  EXPECT_EQ((*events)[0].sequence(), 1u);
  EXPECT_EQ((*events)[0].job_id(), job.id());
}

TEST_P(JobStoreContractTest, ARetriedRequestIdReturnsTheFirstJobAndWritesNothing) {
  auto store = OpenStore();
  absl::StatusOr<SubmitOutcome> first = store->Submit(Submission(provd::v1::PRIORITY_LOW, "r-1"));
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<SubmitOutcome> again = store->Submit(Submission(provd::v1::PRIORITY_LOW, "r-1"));
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE(again->deduplicated);
  EXPECT_EQ(again->job.id(), first->job.id());
  absl::StatusOr<SubmitOutcome> other = store->Submit(Submission(provd::v1::PRIORITY_LOW, "r-2"));
  ASSERT_THAT(other, IsOk());
  EXPECT_NE(other->job.id(), first->job.id());
  EXPECT_EQ(KeptWitnesses(), 2) << "the retry kept a witness of its own";
}

TEST_P(JobStoreContractTest, AJobEndsExactlyOnceAndLosesItsWitness) {
  auto store = OpenStore();
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(Submission());
  ASSERT_THAT(outcome, IsOk());
  const std::string id = outcome->job.id();
  absl::StatusOr<StartedJob> started = store->Start(id);
  ASSERT_THAT(started, IsOk());
  EXPECT_EQ(started->attempt, 1u);
  EXPECT_EQ(started->seed, std::string(32, '\x07'));
  EXPECT_THAT(store->Start(id),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("JOB_STATE_RUNNING")));

  absl::StatusOr<provd::v1::Job> done = store->Finish(id, Succeeded());
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state(), provd::v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(done->result().public_json(), "[\"33\"]");
  EXPECT_TRUE(done->has_finished_at());
  EXPECT_THAT(store->Finish(id, Succeeded()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already ended")));
  JobEnding cancel;
  cancel.state = provd::v1::JOB_STATE_CANCELLED;
  cancel.error = absl::CancelledError("late");
  EXPECT_THAT(store->Finish(id, cancel), StatusIs(absl::StatusCode::kFailedPrecondition, _));
  EXPECT_THAT(store->ReadWitness(id), StatusIs(absl::StatusCode::kDataLoss, _));
  EXPECT_EQ(KeptWitnesses(), 0);

  absl::StatusOr<std::vector<provd::v1::JobEvent>> events = store->Events(id, 0);
  ASSERT_THAT(events, IsOk());
  ASSERT_THAT(*events, SizeIs(3));  // queued, started, succeeded
  EXPECT_TRUE((*events)[2].has_succeeded());
}

TEST_P(JobStoreContractTest, AFailedJobKeepsItsErrorCodeAndMessage) {
  auto store = OpenStore();
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(Submission());
  ASSERT_THAT(outcome, IsOk());
  JobEnding failed;
  failed.state = provd::v1::JOB_STATE_FAILED;
  failed.error = absl::InvalidArgumentError("witness: 3 values, key has 4");
  absl::StatusOr<provd::v1::Job> job = store->Finish(outcome->job.id(), failed);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state(), provd::v1::JOB_STATE_FAILED);
  EXPECT_EQ(job->error().code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(job->error().message(), "witness: 3 values, key has 4");
  EXPECT_FALSE(job->has_result());
}

TEST_P(JobStoreContractTest, ReopeningRequeuesRunningJobsAndKeepsTheQueueOrder) {
  std::string running_id, queued_high, queued_low, finished_id;
  {
    auto store = OpenStore();
    auto low = store->Submit(Submission(provd::v1::PRIORITY_LOW));
    auto running = store->Submit(Submission(provd::v1::PRIORITY_LOW));
    auto high = store->Submit(Submission(provd::v1::PRIORITY_HIGH));
    auto finished = store->Submit(Submission(provd::v1::PRIORITY_HIGH));
    ASSERT_THAT(low, IsOk());
    ASSERT_THAT(running, IsOk());
    ASSERT_THAT(high, IsOk());
    ASSERT_THAT(finished, IsOk());
    queued_low = low->job.id();
    running_id = running->job.id();
    queued_high = high->job.id();
    finished_id = finished->job.id();
    ASSERT_THAT(store->Start(running_id), IsOk());
    ASSERT_THAT(store->Start(finished_id), IsOk());
    ASSERT_THAT(store->Finish(finished_id, Succeeded()), IsOk());
  }  // the process "dies": nothing else is written
  auto store = OpenStore();
  absl::StatusOr<std::vector<QueuedJob>> queued = store->RecoverQueued();
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(*queued, SizeIs(3));
  EXPECT_EQ((*queued)[0].id, queued_low);
  EXPECT_EQ((*queued)[1].id, running_id);
  EXPECT_EQ((*queued)[2].id, queued_high);
  EXPECT_LT((*queued)[0].order, (*queued)[1].order);

  absl::StatusOr<provd::v1::Job> requeued = store->Get(running_id);
  ASSERT_THAT(requeued, IsOk());
  EXPECT_EQ(requeued->state(), provd::v1::JOB_STATE_QUEUED);
  EXPECT_EQ(requeued->attempts(), 1u);
  auto events = store->Events(running_id, 3);
  ASSERT_THAT(events, IsOk());
  ASSERT_THAT(*events, SizeIs(1));
  EXPECT_TRUE((*events)[0].queued().requeued());
  absl::StatusOr<StartedJob> again = store->Start(running_id);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->attempt, 2u);
  EXPECT_EQ(KeptWitnesses(), 3);
  EXPECT_THAT(store->ReadWitness(running_id), IsOk());
}

TEST_P(JobStoreContractTest, ListingIsNewestFirstFilteredAndPaged) {
  auto store = OpenStore();
  std::vector<std::string> ids;
  for (int i = 0; i < 7; ++i) {
    auto outcome =
        store->Submit(Submission(i % 2 == 0 ? provd::v1::PRIORITY_HIGH : provd::v1::PRIORITY_LOW));
    ASSERT_THAT(outcome, IsOk());
    ids.push_back(outcome->job.id());
  }
  ASSERT_THAT(store->Finish(ids[6], Succeeded()), IsOk());

  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<JobListPage> page = store->List({}, provd::v1::PRIORITY_UNSPECIFIED, 3, token);
    ASSERT_THAT(page, IsOk());
    for (const auto& job : page->jobs) {
      seen.push_back(job.id());
      EXPECT_FALSE(job.has_result()) << "lists omit results";
    }
    token = page->next_page_token;
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, std::vector<std::string>(ids.rbegin(), ids.rend()));

  absl::StatusOr<JobListPage> high_queued =
      store->List({provd::v1::JOB_STATE_QUEUED}, provd::v1::PRIORITY_HIGH, 0, "");
  ASSERT_THAT(high_queued, IsOk());
  ASSERT_THAT(high_queued->jobs, SizeIs(3));  // 0, 2, 4 (6 has succeeded)
  EXPECT_EQ(high_queued->jobs[0].id(), ids[4]);

  EXPECT_THAT(store->List({}, provd::v1::PRIORITY_UNSPECIFIED, 3, "garbage"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_token")));
}

TEST_P(JobStoreContractTest, RetentionRemovesOnlyFinishedJobsOlderThanTheCutoff) {
  auto store = OpenStore();
  auto finished = store->Submit(Submission());
  auto queued = store->Submit(Submission());
  ASSERT_THAT(finished, IsOk());
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(store->Finish(finished->job.id(), Succeeded()), IsOk());
  absl::StatusOr<int64_t> none = store->RemoveFinishedBefore(absl::Now() - absl::Hours(1));
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(*none, 0);
  absl::StatusOr<int64_t> removed = store->RemoveFinishedBefore(absl::Now() + absl::Seconds(1));
  ASSERT_THAT(removed, IsOk());
  EXPECT_EQ(*removed, 1);
  EXPECT_THAT(store->Get(finished->job.id()), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(store->Events(finished->job.id(), 0), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(store->Get(queued->job.id()), IsOk());
}

TEST_P(JobStoreContractTest, UnknownIdsAreNotFound) {
  auto store = OpenStore();
  EXPECT_THAT(store->Get("0123"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("0123")));
  EXPECT_THAT(store->Events("0123", 0), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(store->Start("0123"), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(store->Finish("0123", Succeeded()), StatusIs(absl::StatusCode::kNotFound, _));
}

TEST_P(JobStoreContractTest, MsmProgressIsKeptPerRoundUnderItsBindingUntilTheJobEnds) {
  auto store = OpenStore();
  auto outcome = store->Submit(Submission());
  ASSERT_THAT(outcome, IsOk());
  const std::string id = outcome->job.id();
  ASSERT_THAT(store->Start(id), IsOk());
  ASSERT_THAT(store->SaveCheckpoint(id, 5, "binding", {2, 8, 1024, "sum-after-2"}), IsOk());
  ASSERT_THAT(store->SaveCheckpoint(id, 5, "binding", {3, 8, 1024, "sum-after-3"}), IsOk());
  auto loaded = store->LoadCheckpoint(id, 5, "binding");
  ASSERT_THAT(loaded, IsOk());
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ((*loaded)->chunks_done, 3u);
  EXPECT_EQ((*loaded)->chunk_count, 8u);
  EXPECT_EQ((*loaded)->chunk_points, 1024u);
  EXPECT_EQ((*loaded)->partial_sum, "sum-after-3");
  auto other_binding = store->LoadCheckpoint(id, 5, "another key or witness");
  ASSERT_THAT(other_binding, IsOk());
  EXPECT_FALSE(other_binding->has_value());
  auto other_round = store->LoadCheckpoint(id, 6, "binding");
  ASSERT_THAT(other_round, IsOk());
  EXPECT_FALSE(other_round->has_value());
  ASSERT_THAT(store->Finish(id, Succeeded()), IsOk());
  auto after = store->LoadCheckpoint(id, 5, "binding");
  ASSERT_THAT(after, IsOk());
  EXPECT_FALSE(after->has_value());
}

TEST_P(JobStoreContractTest, AStarkCommitJobKeepsItsSpecAndResultButNotItsColumns) {
  auto store = OpenStore();
  JobSubmission submission;
  submission.priority = provd::v1::PRIORITY_LOW;
  provd::v1::StarkCommitSpec* spec = submission.spec.mutable_stark_commit();
  spec->set_columns_name("traces/a.cm");
  spec->set_n_cols(7);
  spec->set_blowup_bits(2);
  submission.referenced_input_size = 7 * 8 * 16;
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(submission);
  ASSERT_THAT(outcome, IsOk());
  EXPECT_EQ(outcome->job.input_size_bytes(), 7u * 8 * 16);
  EXPECT_EQ(outcome->job.spec().stark_commit().columns_name(), "traces/a.cm");
  absl::StatusOr<StartedJob> started = store->Start(outcome->job.id());
  ASSERT_THAT(started, IsOk());
  EXPECT_EQ(started->spec.stark_commit().n_cols(), 7u);
  JobEnding ending;
  ending.state = provd::v1::JOB_STATE_SUCCEEDED;
  ending.result.add_stark_root(1);
  ending.result.set_stark_root_json("{}");
  ASSERT_THAT(store->Finish(outcome->job.id(), ending), IsOk());
  absl::StatusOr<provd::v1::Job> job = store->Get(outcome->job.id());
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->result().stark_root_size(), 1);
  EXPECT_EQ(job->spec().stark_commit().blowup_bits(), 2u);
}

TEST_P(JobStoreContractTest, TheMemoryEstimateSurvivesARestart) {
  JobSubmission submission = Submission();
  submission.memory_bytes = 3'000'000'000;
  std::string id;
  {
    auto store = OpenStore();
    absl::StatusOr<SubmitOutcome> outcome = store->Submit(submission);
    ASSERT_THAT(outcome, IsOk());
    id = outcome->job.id();
  }
  auto store = OpenStore();
  absl::StatusOr<std::vector<QueuedJob>> queued = store->RecoverQueued();
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(*queued, SizeIs(1));
  EXPECT_EQ((*queued)[0].id, id);
  EXPECT_EQ((*queued)[0].memory_bytes, 3'000'000'000u);
}

TEST_P(JobStoreContractTest, RecoveredJobsKeepTheirKind) {
  {
    auto store = OpenStore();
    ASSERT_THAT(store->Submit(Submission()), IsOk());
    JobSubmission stark;
    stark.spec.mutable_stark_commit()->set_columns_name("a.cm");
    ASSERT_THAT(store->Submit(stark), IsOk());
  }
  auto store = OpenStore();
  absl::StatusOr<std::vector<QueuedJob>> queued = store->RecoverQueued();
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(*queued, SizeIs(2));
  EXPECT_STREQ((*queued)[0].kind, "groth16");
  EXPECT_STREQ((*queued)[1].kind, "stark_commit");
}

TEST_P(JobStoreContractTest, ARejectionDropsTheMsmProgressWithItsEvent) {
  auto store = OpenStore();
  auto outcome = store->Submit(Submission());
  ASSERT_THAT(outcome, IsOk());
  const std::string id = outcome->job.id();
  ASSERT_THAT(store->Start(id), IsOk());
  ASSERT_THAT(store->SaveCheckpoint(id, 2, "binding", {1, 4, 64, "partial"}), IsOk());
  provd::v1::JobEvent progress;
  progress.mutable_round_started()->set_round_index(2);
  absl::StatusOr<uint64_t> kept = store->Append(id, progress);
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, 3u);  // queued, started, this
  ASSERT_TRUE(store->LoadCheckpoint(id, 2, "binding")->has_value())
      << "a progress event leaves the checkpoints alone";
  provd::v1::JobEvent rejected;
  rejected.mutable_proof_rejected()->set_reason("Invalid proof");
  absl::StatusOr<uint64_t> sequence = store->AppendRejection(id, rejected);
  ASSERT_THAT(sequence, IsOk());
  EXPECT_EQ(*sequence, 4u);
  auto after = store->LoadCheckpoint(id, 2, "binding");
  ASSERT_THAT(after, IsOk());
  EXPECT_FALSE(after->has_value());
  auto events = store->Events(id, 3);
  ASSERT_THAT(events, IsOk());
  ASSERT_THAT(*events, SizeIs(2));
  EXPECT_EQ((*events)[0].sequence(), 3u);
  EXPECT_EQ((*events)[0].job_id(), id);
  EXPECT_TRUE((*events)[0].has_round_started());
  EXPECT_TRUE((*events)[1].has_proof_rejected());
  EXPECT_THAT(store->Append("0123", progress), StatusIs(absl::StatusCode::kNotFound, _));
}

TEST_P(JobStoreContractTest, ConcurrentSubmissionsOfOneRequestIdMakeOneJob) {
  auto store = OpenStore();
  constexpr int kClients = 8;
  std::vector<absl::StatusOr<SubmitOutcome>> outcomes(kClients, absl::UnknownError("not run"));
  {
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&, i] {
        outcomes[static_cast<size_t>(i)] =
            store->Submit(Submission(provd::v1::PRIORITY_HIGH, "the-same-request"));
      });
    }
    for (std::thread& client : clients) client.join();
  }
  int created = 0;
  for (const auto& outcome : outcomes) {
    ASSERT_THAT(outcome, IsOk());
    EXPECT_EQ(outcome->job.id(), outcomes[0]->job.id());
    created += outcome->deduplicated ? 0 : 1;
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(*store->CountInState(provd::v1::JOB_STATE_QUEUED), 1);
  EXPECT_EQ(KeptWitnesses(), 1);
}

TEST_P(JobStoreContractTest, AMultiMegabyteWitnessComesBackByteForByte) {
  auto store = OpenStore();
  JobSubmission submission = Submission();
  submission.witness.resize(40u << 20);  // past the PostgreSQL store's 16 MiB chunks
  for (size_t i = 0; i < submission.witness.size(); ++i) {
    submission.witness[i] = static_cast<char>((i * 2654435761u) >> 13);
  }
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(submission);
  ASSERT_THAT(outcome, IsOk());
  EXPECT_EQ(outcome->job.input_size_bytes(), submission.witness.size());
  absl::StatusOr<std::string> witness = store->ReadWitness(outcome->job.id());
  ASSERT_THAT(witness, IsOk());
  EXPECT_TRUE(*witness == submission.witness);
}

INSTANTIATE_TEST_SUITE_P(Stores, JobStoreContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const ::testing::TestParamInfo<Backend>& param) {
                           return std::string(param.param == Backend::kSqlite ? "Sqlite"
                                                                              : "Postgres");
                         });

TEST(JobRoundsTest, RoundsAndDeviceSpansFollowTheEvents) {
  auto at = [](int64_t ms) {
    return google::protobuf::util::TimeUtil::MillisecondsToTimestamp(1'000'000 + ms);
  };
  std::vector<provd::v1::JobEvent> events(6);
  events[0].mutable_started()->set_attempt(1);
  auto* started = events[1].mutable_round_started();
  started->set_round_index(5);
  started->set_round_name("msm_a");
  started->set_chunk_total(4);
  started->set_backend(provd::v1::BACKEND_GPU);
  started->set_gpu_index(0);
  *events[1].mutable_time() = at(0);
  events[2].mutable_device_yielded()->set_round_index(5);
  events[2].mutable_device_yielded()->set_chunk_index(1);
  *events[2].mutable_time() = at(10);
  events[3].mutable_device_returned()->set_round_index(5);
  events[3].mutable_device_returned()->set_chunk_index(3);
  events[3].mutable_device_returned()->set_gpu_index(0);
  *events[3].mutable_time() = at(30);
  events[4].mutable_round_finished()->set_round_index(5);
  *events[4].mutable_time() = at(35);
  events[5].mutable_succeeded();

  provd::v1::Job job;
  RoundsFromEvents(events, job);
  ASSERT_EQ(job.rounds_size(), 1);
  const auto& round = job.rounds(0);
  EXPECT_EQ(round.round_name(), "msm_a");
  EXPECT_TRUE(round.has_finished_at());
  ASSERT_EQ(round.spans_size(), 3);
  EXPECT_EQ(round.spans(0).backend(), provd::v1::BACKEND_GPU);
  EXPECT_EQ(round.spans(0).chunk_count(), 1u);
  EXPECT_EQ(round.spans(1).backend(), provd::v1::BACKEND_CPU);
  EXPECT_EQ(round.spans(1).first_chunk(), 1u);
  EXPECT_EQ(round.spans(1).chunk_count(), 2u);
  EXPECT_EQ(google::protobuf::util::TimeUtil::DurationToMilliseconds(round.spans(1).elapsed()), 20);
  EXPECT_EQ(round.spans(2).backend(), provd::v1::BACKEND_GPU);
  EXPECT_EQ(round.spans(2).first_chunk(), 3u);
  EXPECT_EQ(round.spans(2).chunk_count(), 1u);
}

}  // namespace
}  // namespace provd::daemon
