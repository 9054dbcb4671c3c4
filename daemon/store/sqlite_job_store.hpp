// The embedded job store (JobStore's contract, job_store.hpp): one SQLite database (WAL)
// holding the jobs and their events, and a spool directory holding each job's witness until the
// job ends. The witness is written to a temp file, fsynced, renamed into the spool and the
// directory fsynced; then the row is committed. A crash at any moment leaves either no job (and
// at most an orphan spool file, removed at the next start) or a complete one.
//
// Results (proof.json, public.json: a few KB) live in the row. Acceptance and final states are
// committed with synchronous=FULL (on disk when the call returns); progress (events, MSM
// checkpoints) with NORMAL: consistent after any crash, but the last few may be lost with the
// power.
//
// One store per data dir: Open takes an exclusive lock on <data_dir>/jobs.lock for the store's
// lifetime, so that a second daemon on the same data dir fails to start instead of running the
// first one's jobs a second time.
//
// One connection, calls serialized by a mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/store/job_store.hpp"
#include "daemon/store/sqlite.hpp"

namespace provd::daemon {

class SqliteJobStore final : public JobStore {
 public:
  // Opens or creates <data_dir>/jobs.sqlite3 and <data_dir>/spool, and removes spool files that
  // no job owns (a crash between the spool write and the commit). FAILED_PRECONDITION when
  // another process has the data dir open.
  static absl::StatusOr<std::unique_ptr<SqliteJobStore>> Open(
      const std::filesystem::path& data_dir);

  // JobStore, as documented there.
  absl::StatusOr<SubmitOutcome> Submit(const JobSubmission& submission) override;
  absl::StatusOr<std::optional<provd::v1::Job>> FindByRequestId(
      const std::string& request_id) override;
  absl::StatusOr<provd::v1::Job> Get(const std::string& id) override;
  absl::StatusOr<JobListPage> List(const std::vector<provd::v1::JobState>& states,
                                   provd::v1::Priority priority, uint32_t page_size,
                                   const std::string& page_token) override;
  absl::StatusOr<provd::v1::JobState> State(const std::string& id) override;
  absl::StatusOr<std::vector<provd::v1::JobEvent>> Events(const std::string& id,
                                                          uint64_t from_sequence) override;
  absl::StatusOr<uint64_t> Append(const std::string& id, provd::v1::JobEvent event) override;
  absl::StatusOr<uint64_t> AppendRejection(const std::string& id,
                                           provd::v1::JobEvent event) override;
  absl::StatusOr<StartedJob> Start(const std::string& id) override;
  absl::StatusOr<provd::v1::Job> Finish(const std::string& id, const JobEnding& ending) override;
  absl::Status Requeue(const std::string& id) override;
  absl::StatusOr<std::vector<QueuedJob>> RecoverQueued() override;
  // The spooled witness file's bytes.
  absl::StatusOr<std::string> ReadWitness(const std::string& id) override;
  absl::Status SaveCheckpoint(const std::string& id, int round, absl::string_view binding,
                              const plan::MsmProgress& progress) override;
  absl::StatusOr<std::optional<plan::MsmProgress>> LoadCheckpoint(
      const std::string& id, int round, absl::string_view binding) override;
  absl::StatusOr<int64_t> CountInState(provd::v1::JobState state) override;
  absl::StatusOr<int64_t> RemoveFinishedBefore(absl::Time cutoff) override;

  const std::filesystem::path& spool_dir() const { return spool_dir_; }

 private:
  SqliteJobStore(int lock_fd, sqlite::Database db, std::filesystem::path spool_dir)
      : lock_fd_(lock_fd), db_(std::move(db)), spool_dir_(std::move(spool_dir)) {}

  absl::Status InitSchema();
  absl::Status RemoveOrphanSpoolFiles();
  std::filesystem::path WitnessPath(const std::string& id) const;
  absl::StatusOr<std::optional<provd::v1::Job>> FindByRequestIdLocked(
      const std::string& request_id);
  absl::StatusOr<provd::v1::Job> GetLocked(const std::string& id, bool full);
  absl::StatusOr<std::vector<provd::v1::JobEvent>> EventsLocked(const std::string& id,
                                                                uint64_t from_sequence);
  absl::StatusOr<uint64_t> AppendLocked(const std::string& id, provd::v1::JobEvent event,
                                        absl::Time now);
  // RUNNING -> QUEUED with its Queued{requeued} event, inside the caller's transaction.
  absl::Status RequeueLocked(const std::string& id, absl::Time now);
  // One event in a transaction of its own, with the job's MSM progress dropped in it too if
  // `drop_checkpoints`.
  absl::StatusOr<uint64_t> AppendCommitted(const std::string& id, provd::v1::JobEvent event,
                                           bool drop_checkpoints);
  absl::Status DropCheckpointsLocked(const std::string& id);
  absl::Status SetStateLocked(const std::string& id, provd::v1::JobState from,
                              provd::v1::JobState to);

  struct LockFd {
    int fd;
    ~LockFd();
  };
  LockFd lock_fd_;  // first: released after the database is closed
  std::mutex mutex_;
  sqlite::Database db_;
  std::filesystem::path spool_dir_;
};

}  // namespace provd::daemon
