// What only the PostgreSQL store has, on a real server started for each test
// (tests/support/postgres_server.hpp): one daemon per database (the advisory lock, also when
// daemons start together or one loses its session), schema versions, witnesses in chunks, and
// outages: an unreachable server, a restart under a running store. The contract both stores
// keep is job_store_contract_test.cpp.
#include "daemon/store/postgres_job_store.hpp"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon/store/open_job_store.hpp"
#include "daemon/store/postgres.hpp"
#include "gmock/gmock.h"
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
using ::testing::Not;

class PostgresJobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<provd::testing::PostgresServer>> server =
        provd::testing::PostgresServer::Start();
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    absl::StatusOr<std::string> uri = server_->CreateDatabase("provd_jobs");
    ASSERT_THAT(uri, IsOk());
    uri_ = *uri;
  }

  absl::StatusOr<std::unique_ptr<PostgresJobStore>> Open(size_t witness_chunk_bytes = 16 << 20) {
    return PostgresJobStore::Open(
        {.conninfo = uri_, .connections = 4, .witness_chunk_bytes = witness_chunk_bytes});
  }

  // A connection of the test's own, as an operator's psql would be.
  postgres::Connection Operator() {
    absl::StatusOr<postgres::Connection> db = postgres::Connection::Open(uri_);
    EXPECT_THAT(db, IsOk());
    return *std::move(db);
  }

  int64_t Count(const std::string& sql) {
    postgres::Connection db = Operator();
    absl::StatusOr<postgres::Result> count = db.Query(sql);
    EXPECT_THAT(count, IsOk());
    return count.ok() ? count->Int(0, 0) : -1;
  }

  std::unique_ptr<provd::testing::PostgresServer> server_;
  std::string uri_;
};

TEST_F(PostgresJobStoreTest, ASecondDaemonIsRefusedWhileTheFirstHoldsTheDatabase) {
  auto first = Open();
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kFailedPrecondition,
                               HasSubstr("in use by another provd")));
  first->reset();
  EXPECT_THAT(Open(), IsOk()) << "the lock goes with the first daemon's session";
}

TEST_F(PostgresJobStoreTest, DaemonsStartingTogetherMigrateOnceAndOneGetsTheDatabase) {
  constexpr int kDaemons = 4;
  std::vector<absl::StatusOr<std::unique_ptr<PostgresJobStore>>> opened;
  for (int i = 0; i < kDaemons; ++i) opened.emplace_back(absl::UnknownError("not run"));
  {
    std::vector<std::thread> daemons;
    for (int i = 0; i < kDaemons; ++i) {
      daemons.emplace_back([&, i] { opened[static_cast<size_t>(i)] = Open(); });
    }
    for (std::thread& daemon : daemons) daemon.join();
  }
  int owners = 0;
  for (const auto& store : opened) {
    if (store.ok()) {
      ++owners;
    } else {
      // Not a failed migration ("relation already exists"): the advisory lock serialized them.
      EXPECT_THAT(store, StatusIs(absl::StatusCode::kFailedPrecondition,
                                  HasSubstr("in use by another provd")));
    }
  }
  EXPECT_EQ(owners, 1);
  EXPECT_EQ(Count("SELECT value::bigint FROM provd.meta WHERE key = 'schema_version'"),
            PostgresJobStore::SchemaVersion());
}

TEST_F(PostgresJobStoreTest, ADatabaseOfANewerSchemaIsRefusedUntouched) {
  { ASSERT_THAT(Open(), IsOk()); }
  postgres::Connection db = Operator();
  ASSERT_THAT(db.Execute("UPDATE provd.meta SET value = '99' WHERE key = 'schema_version'"),
              IsOk());
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kFailedPrecondition,
                               HasSubstr("schema version 99 is not one")));
  EXPECT_EQ(Count("SELECT value::bigint FROM provd.meta WHERE key = 'schema_version'"), 99);
}

TEST_F(PostgresJobStoreTest, WitnessesAreStoredInChunksAndDeletedWithTheJobsEnd) {
  auto store = Open(/*witness_chunk_bytes=*/5);
  ASSERT_THAT(store, IsOk());
  JobSubmission submission = Submission();
  submission.witness = "0123456789abc";  // 13 bytes: chunks of 5, 5 and 3
  absl::StatusOr<SubmitOutcome> outcome = (*store)->Submit(submission);
  ASSERT_THAT(outcome, IsOk());
  EXPECT_EQ(Count("SELECT count(*) FROM provd.witnesses"), 3);
  EXPECT_EQ(*(*store)->ReadWitness(outcome->job.id()), "0123456789abc");

  JobSubmission referenced;  // columns kept in the inputs directory: no bytes of its own
  referenced.spec.mutable_stark_commit()->set_columns_name("a.cm");
  referenced.referenced_input_size = 4096;
  absl::StatusOr<SubmitOutcome> by_name = (*store)->Submit(referenced);
  ASSERT_THAT(by_name, IsOk());
  EXPECT_EQ(by_name->job.input_size_bytes(), 4096u);
  EXPECT_THAT((*store)->ReadWitness(by_name->job.id()), IsOk());
  EXPECT_EQ(*(*store)->ReadWitness(by_name->job.id()), "");

  ASSERT_THAT((*store)->Finish(outcome->job.id(), Succeeded()), IsOk());
  EXPECT_EQ(Count("SELECT count(*) FROM provd.witnesses"), 1) << "only the referenced job's";
  EXPECT_THAT((*store)->ReadWitness(outcome->job.id()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not in the database")));
}

TEST_F(PostgresJobStoreTest, AnUnreachableServerIsUnavailableAndThePasswordIsNotShown) {
  provd::testing::TempDir nowhere;
  const std::string uri =
      absl::StrCat("postgresql://provd:hunter2@/provd_jobs?host=", nowhere.path().string());
  absl::StatusOr<std::unique_ptr<JobStore>> store = OpenJobStore(uri, nowhere.path());
  EXPECT_THAT(store, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot connect")));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("hunter2")));
  EXPECT_THAT(DescribeStoreSetting(uri), Not(HasSubstr("hunter2")));
  EXPECT_THAT(DescribeStoreSetting(uri), HasSubstr("dbname=provd_jobs"));
}

TEST_F(PostgresJobStoreTest, StoreSettingsOtherThanSqliteOrAPostgresUriAreRefused) {
  EXPECT_THAT(ValidateStoreSetting("sqlite"), IsOk());
  EXPECT_THAT(ValidateStoreSetting(""), IsOk());
  EXPECT_THAT(ValidateStoreSetting(uri_), IsOk());
  EXPECT_THAT(ValidateStoreSetting("mysql://root:pw@db/jobs"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("postgres:// URI")));
  EXPECT_THAT(ValidateStoreSetting("mysql://root:pw@db/jobs").message(), Not(HasSubstr("pw")));
}

TEST_F(PostgresJobStoreTest, AServerRestartCostsTheCallsDuringItNotTheStoreOrAJob) {
  auto store = Open();
  ASSERT_THAT(store, IsOk());
  absl::StatusOr<SubmitOutcome> before = (*store)->Submit(Submission());
  ASSERT_THAT(before, IsOk());

  ASSERT_THAT(server_->Stop(), IsOk());
  EXPECT_THAT((*store)->Submit(Submission(provd::v1::PRIORITY_HIGH, "during")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot be reached")));
  EXPECT_THAT((*store)->Get(before->job.id()), StatusIs(absl::StatusCode::kUnavailable, _));

  ASSERT_THAT(server_->Restart(), IsOk());
  // The first call after the restart already works: the pool drops the connections the
  // server closed, and the store takes its lock again.
  absl::StatusOr<provd::v1::Job> kept = (*store)->Get(before->job.id());
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(kept->state(), provd::v1::JOB_STATE_QUEUED);
  EXPECT_THAT((*store)->FindByRequestId("during"), IsOk());
  EXPECT_FALSE((*store)->FindByRequestId("during")->has_value())
      << "a submission refused during the outage left no job";
  absl::StatusOr<SubmitOutcome> retried =
      (*store)->Submit(Submission(provd::v1::PRIORITY_HIGH, "during"));
  ASSERT_THAT(retried, IsOk());
  EXPECT_FALSE(retried->deduplicated);
  EXPECT_EQ(*(*store)->CountInState(provd::v1::JOB_STATE_QUEUED), 2);
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kFailedPrecondition, _))
      << "the store holds the database again after the restart";
}

TEST_F(PostgresJobStoreTest, ADaemonWhoseSessionWasTakenOverStopsWriting) {
  auto first = Open();
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<SubmitOutcome> job = (*first)->Submit(Submission());
  ASSERT_THAT(job, IsOk());
  {  // The first daemon's sessions end (a long partition, an operator) ...
    postgres::Connection db = Operator();
    ASSERT_THAT(db.Query("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                         "WHERE application_name = 'provd' AND pid <> pg_backend_pid()"),
                IsOk());
  }
  auto second = Open();  // ... and a second daemon takes the database.
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT((*first)->Start(job->job.id()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("another provd")));
  EXPECT_THAT((*first)->Finish(job->job.id(), Succeeded()),
              StatusIs(absl::StatusCode::kFailedPrecondition, _));
  absl::StatusOr<provd::v1::Job> untouched = (*second)->Get(job->job.id());
  ASSERT_THAT(untouched, IsOk());
  EXPECT_EQ(untouched->state(), provd::v1::JOB_STATE_QUEUED);
}

}  // namespace
}  // namespace provd::daemon
