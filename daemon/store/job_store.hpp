// The durable record of every accepted job: one SQLite database (WAL) holding
// the jobs and their events, and a spool directory holding each job's witness until the job
// ends. A job is accepted only once both are on disk: the witness is written to a temp file,
// fsynced, renamed into the spool and the directory fsynced; then the row is committed. A crash
// at any moment leaves either no job (and at most an orphan spool file, removed at the next
// start) or a complete one.
//
// Every state change is one transaction together with the event that reports it, so the event
// stream and the job row never disagree, and a job reaches a final state at most once: a
// transition names the states it starts from and fails with FAILED_PRECONDITION otherwise.
//
// Results (proof.json, public.json: a few KB) live in the row, committed with the final state,
// so a job can never be SUCCEEDED without its result. Acceptance and final states are committed
// with synchronous=FULL (on disk when the call returns); progress (events, MSM checkpoints) with
// NORMAL: consistent after any crash, but the last few may be lost with the power.
//
// One store per data dir: Open takes an exclusive lock on <data_dir>/jobs.lock for the store's
// lifetime, so that a second daemon on the same data dir fails to start instead of running the
// first one's jobs a second time.
//
// Thread-safe: one connection, calls serialized by a mutex.
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
#include "daemon/store/sqlite.hpp"
#include "provd/v1/prover.pb.h"
#include "prover_core/plan/checkpoint.hpp"

namespace provd::daemon {

struct JobSubmission {
  provd::v1::Priority priority = provd::v1::PRIORITY_LOW;
  // What to prove, without its input bytes (the witness, the seed, inline columns).
  provd::v1::JobSpec spec;
  std::string zkey_name;  // Groth16's; empty for other kinds
  // The input bytes the spool keeps until the job ends: the .wtns, or the inline columns of a
  // stark_commit job (empty when its columns are a file in the inputs directory).
  std::string witness;
  // Job.input_size_bytes of an input the spool does not hold (a file in the inputs directory);
  // otherwise the spooled bytes' size is.
  uint64_t referenced_input_size = 0;
  std::string seed;        // empty, or the 32-byte seed
  std::string request_id;  // empty: none
  std::optional<absl::Duration> deadline;
  uint64_t memory_bytes = 0;  // QueuedJob::memory_bytes, stored with the job
};

struct SubmitOutcome {
  provd::v1::Job job;
  bool deduplicated = false;  // request_id matched an existing job; nothing was written
  int64_t order = 0;          // acceptance order of a new job (QueuedJob::order)
};

// What the scheduler needs to know of a queued job.
struct QueuedJob {
  std::string id;
  provd::v1::Priority priority = provd::v1::PRIORITY_LOW;
  int64_t order = 0;  // acceptance order: FIFO within a priority
  absl::Time accepted_at;
  std::optional<absl::Time> expires_at;  // accepted_at + deadline
  bool requeued = false;                 // was running when the daemon last stopped
  const char* kind = "groth16";          // JobKindLabel: the metrics' `kind`
  // The proof's estimated peak memory (groth16/memory_estimate.hpp), for the scheduler's
  // memory budget, as estimated at submission (kept across restarts); 0: unknown (a
  // stark_commit job, a job accepted by a provd before schema version 3).
  uint64_t memory_bytes = 0;
};

// What a worker needs to run a job it has started.
struct StartedJob {
  std::string id;
  provd::v1::Priority priority = provd::v1::PRIORITY_LOW;
  std::string zkey_name;
  std::string seed;
  uint32_t attempt = 0;
  provd::v1::JobSpec spec;  // without its input bytes, as JobSubmission::spec
};

// How a job ended.
struct JobEnding {
  provd::v1::JobState state = provd::v1::JOB_STATE_SUCCEEDED;
  provd::v1::JobResult result;  // SUCCEEDED
  absl::Status error;           // FAILED and CANCELLED
  std::string cancel_reason;    // CANCELLED: "client", "deadline"
};

struct JobListPage {
  std::vector<provd::v1::Job> jobs;
  std::string next_page_token;
};

class JobStore {
 public:
  // Opens or creates <data_dir>/jobs.sqlite3 and <data_dir>/spool, and removes spool files that
  // no job owns (a crash between the spool write and the commit). FAILED_PRECONDITION when
  // another process has the data dir open.
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(const std::filesystem::path& data_dir);

  // Durably records a new QUEUED job (and its Queued event), or returns the job an earlier
  // submission with the same request_id created.
  absl::StatusOr<SubmitOutcome> Submit(const JobSubmission& submission);

  // The job an earlier submission with this request_id created, if any.
  absl::StatusOr<std::optional<provd::v1::Job>> FindByRequestId(const std::string& request_id);

  // The job with its result, error and rounds; NOT_FOUND for an unknown id.
  absl::StatusOr<provd::v1::Job> Get(const std::string& id);
  // Newest first. The page token is opaque to clients; INVALID_ARGUMENT for one not issued here.
  absl::StatusOr<JobListPage> List(const std::vector<provd::v1::JobState>& states,
                                   provd::v1::Priority priority, uint32_t page_size,
                                   const std::string& page_token);
  // The job's state alone; NOT_FOUND for an unknown id.
  absl::StatusOr<provd::v1::JobState> State(const std::string& id);
  // Events with sequence >= from_sequence, in order; NOT_FOUND for an unknown id.
  absl::StatusOr<std::vector<provd::v1::JobEvent>> Events(const std::string& id,
                                                          uint64_t from_sequence);
  // Appends a progress event (rounds, devices); sets its job_id, sequence and time.
  absl::StatusOr<uint64_t> Append(const std::string& id, provd::v1::JobEvent event);

  // Appends a ProofRejected event and drops the job's MSM progress in one transaction: the
  // rejected attempt's partial sums must never seed a later attempt, even after a crash.
  absl::StatusOr<uint64_t> AppendRejection(const std::string& id, provd::v1::JobEvent event);

  // QUEUED -> RUNNING, counts the attempt, records Started.
  absl::StatusOr<StartedJob> Start(const std::string& id);
  // QUEUED or RUNNING -> the final state of `ending`, with its event; the witness is deleted.
  // FAILED_PRECONDITION when the job is already final.
  absl::StatusOr<provd::v1::Job> Finish(const std::string& id, const JobEnding& ending);
  // RUNNING -> QUEUED (shutdown with the job unfinished), records Queued{requeued}.
  absl::Status Requeue(const std::string& id);
  // After a restart: every RUNNING job goes back to QUEUED; returns all queued jobs, oldest
  // first.
  absl::StatusOr<std::vector<QueuedJob>> RecoverQueued();

  absl::StatusOr<std::string> ReadWitness(const std::string& id);

  // MSM progress of a running job, kept until the job ends, so that a restart resumes it.
  absl::Status SaveCheckpoint(const std::string& id, int round, absl::string_view binding,
                              const plan::MsmProgress& progress);
  // nullopt when none was saved for this round under this binding.
  absl::StatusOr<std::optional<plan::MsmProgress>> LoadCheckpoint(const std::string& id, int round,
                                                                  absl::string_view binding);
  absl::StatusOr<int64_t> CountInState(provd::v1::JobState state);
  // Deletes final jobs that finished before `cutoff`, with their events; returns how many.
  absl::StatusOr<int64_t> RemoveFinishedBefore(absl::Time cutoff);

  const std::filesystem::path& spool_dir() const { return spool_dir_; }

 private:
  JobStore(int lock_fd, sqlite::Database db, std::filesystem::path spool_dir)
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

// Fills Job.rounds from a job's events (RoundStarted, device moves, RoundFinished).
void RoundsFromEvents(const std::vector<provd::v1::JobEvent>& events, provd::v1::Job& job);

// SUCCEEDED, FAILED or CANCELLED: nothing happens to the job any more.
bool IsFinalState(provd::v1::JobState state);

// A fresh job id: 32 lowercase hex digits from the OS's entropy.
std::string NewJobId();

}  // namespace provd::daemon
