// What only the SQLite store has: the spool directory (its file modes, orphans after a crash,
// a spool that cannot be written), the data dir's lock, and the migrations of SQLite stores
// that older provds wrote. The contract both stores keep is job_store_contract_test.cpp.
#include "daemon/store/sqlite_job_store.hpp"

#include <filesystem>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
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

class SqliteJobStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteJobStore> OpenStore() {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(dir_.path());
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *std::move(store) : nullptr;
  }

  provd::testing::TempDir dir_;
};

TEST_F(SqliteJobStoreTest, TheWitnessIsSpooledReadableByTheDaemonAlone) {
  auto store = OpenStore();
  absl::StatusOr<SubmitOutcome> outcome = store->Submit(Submission(provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(outcome, IsOk());
  const std::filesystem::path spooled = store->spool_dir() / (outcome->job.id() + ".wtns");
  EXPECT_EQ(provd::testing::ReadFile(spooled), Submission().witness);
  auto mode = std::filesystem::status(spooled).permissions();
  EXPECT_EQ(mode & std::filesystem::perms::others_read, std::filesystem::perms::none);
  ASSERT_THAT(store->Finish(outcome->job.id(), Succeeded()), IsOk());
  EXPECT_FALSE(std::filesystem::exists(spooled));
}

TEST_F(SqliteJobStoreTest, ReopeningDropsOrphanSpoolFiles) {
  std::string queued_id, finished_id;
  {
    auto store = OpenStore();
    auto queued = store->Submit(Submission());
    auto finished = store->Submit(Submission());
    ASSERT_THAT(queued, IsOk());
    ASSERT_THAT(finished, IsOk());
    queued_id = queued->job.id();
    finished_id = finished->job.id();
    ASSERT_THAT(store->Finish(finished_id, Succeeded()), IsOk());
    // What a crash between the spool write and the commit leaves behind, and what one between
    // a job's end and its file's removal does.
    provd::testing::WriteFile(store->spool_dir() / "ffffffffffffffffffffffffffffffff.wtns", "x");
    provd::testing::WriteFile(store->spool_dir() / (queued_id + ".wtns.tmpAbCdEf"), "x");
    provd::testing::WriteFile(store->spool_dir() / (finished_id + ".wtns"), "x");
  }
  auto store = OpenStore();
  std::set<std::string> spool;
  for (const auto& entry : std::filesystem::directory_iterator(store->spool_dir())) {
    spool.insert(entry.path().filename().string());
  }
  EXPECT_EQ(spool, (std::set<std::string>{queued_id + ".wtns"}));
}

TEST_F(SqliteJobStoreTest, AWitnessThatCannotBeSpooledIsUnavailableAndLeavesNoJob) {
  auto store = OpenStore();
  // A file where the spool directory was: every write into it fails (even for root).
  std::filesystem::remove_all(store->spool_dir());
  provd::testing::WriteFile(store->spool_dir(), "in the way");
  EXPECT_THAT(store->Submit(Submission(provd::v1::PRIORITY_HIGH, "r-spool")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot spool the witness")));
  auto queued = store->CountInState(provd::v1::JOB_STATE_QUEUED);
  ASSERT_THAT(queued, IsOk());
  EXPECT_EQ(*queued, 0);
  auto retried = store->FindByRequestId("r-spool");
  ASSERT_THAT(retried, IsOk());
  EXPECT_FALSE(retried->has_value()) << "a refused submission must not be found by its retry";
}

TEST_F(SqliteJobStoreTest, ASecondStoreOnTheSameDataDirIsRefusedWhileTheFirstIsOpen) {
  auto first = OpenStore();
  EXPECT_THAT(SqliteJobStore::Open(dir_.path()), StatusIs(absl::StatusCode::kFailedPrecondition,
                                                          HasSubstr("in use by another provd")));
  first.reset();
  EXPECT_THAT(SqliteJobStore::Open(dir_.path()), IsOk());
}

TEST_F(SqliteJobStoreTest, ADatabaseThatIsNotSqliteFailsToOpenAsDataLoss) {
  provd::testing::WriteFile(dir_ / "jobs.sqlite3", std::string(4096, 'x'));
  EXPECT_THAT(SqliteJobStore::Open(dir_.path()), StatusIs(absl::StatusCode::kDataLoss, _));
}

TEST_F(SqliteJobStoreTest, AVersionOneStoreIsMigratedAndItsJobsReadAsBefore) {
  std::string id;
  {
    auto store = OpenStore();
    absl::StatusOr<SubmitOutcome> outcome = store->Submit(Submission());
    ASSERT_THAT(outcome, IsOk());
    id = outcome->job.id();
  }
  {  // Back to version 1's schema, as an older provd left it.
    absl::StatusOr<sqlite::Database> db = sqlite::Database::Open(dir_ / "jobs.sqlite3");
    ASSERT_THAT(db, IsOk());
    ASSERT_THAT(db->Execute("ALTER TABLE jobs DROP COLUMN spec; ALTER TABLE jobs DROP COLUMN "
                            "result; ALTER TABLE jobs DROP COLUMN memory_bytes; "
                            "UPDATE meta SET value = '1' WHERE key = 'schema_version';"),
                IsOk());
  }
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<provd::v1::Job> job = store->Get(id);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->spec().groth16().zkey_name(), "circuit.zkey");
  ASSERT_THAT(store->Finish(id, Succeeded()), IsOk());
  EXPECT_EQ(store->Get(id)->result().public_json(), "[\"33\"]");
}

TEST_F(SqliteJobStoreTest, AVersionTwoStoreIsMigratedWithUnknownEstimates) {
  std::string id;
  {
    auto store = OpenStore();
    JobSubmission submission = Submission();
    submission.memory_bytes = 12345;
    absl::StatusOr<SubmitOutcome> outcome = store->Submit(submission);
    ASSERT_THAT(outcome, IsOk());
    id = outcome->job.id();
  }
  {
    absl::StatusOr<sqlite::Database> db = sqlite::Database::Open(dir_ / "jobs.sqlite3");
    ASSERT_THAT(db, IsOk());
    ASSERT_THAT(db->Execute("ALTER TABLE jobs DROP COLUMN memory_bytes; "
                            "UPDATE meta SET value = '2' WHERE key = 'schema_version';"),
                IsOk());
  }
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<std::vector<QueuedJob>> queued = store->RecoverQueued();
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(*queued, SizeIs(1));
  EXPECT_EQ((*queued)[0].memory_bytes, 0u);
  EXPECT_EQ(store->Get(id)->spec().groth16().zkey_name(), "circuit.zkey");
}

TEST_F(SqliteJobStoreTest, AStoreOfANewerSchemaIsRefusedUntouched) {
  { ASSERT_NE(OpenStore(), nullptr); }
  {
    absl::StatusOr<sqlite::Database> db = sqlite::Database::Open(dir_ / "jobs.sqlite3");
    ASSERT_THAT(db, IsOk());
    ASSERT_THAT(db->Execute("UPDATE meta SET value = '99' WHERE key = 'schema_version';"), IsOk());
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(dir_.path());
  EXPECT_THAT(store.status(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       HasSubstr("schema version 99 is not one")));
}

}  // namespace
}  // namespace provd::daemon
