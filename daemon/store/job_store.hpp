// The durable record of every accepted job, behind one interface with two implementations:
// SqliteJobStore (sqlite_job_store.hpp), the embedded default for one host, and
// PostgresJobStore (postgres_job_store.hpp), one database that a fleet of hosts can share.
// tests/unit/job_store_test.cpp holds the contract both keep:
//
// - A job is accepted only once it is durable with its input bytes (the witness): a crash at
//   any moment leaves either no job or a complete one.
// - Every state change is one transaction together with the event that reports it, so the
//   event stream and the job row never disagree, and a job reaches a final state at most once:
//   a transition names the states it starts from and fails with FAILED_PRECONDITION otherwise.
// - Results live with the job and are committed with its final state, so a job can never be
//   SUCCEEDED without its result; the witness is deleted with that commit or right after it.
// - Progress (events, MSM checkpoints) is consistent after any crash, but the last of it may be
//   lost with the machine's power; acceptance and final states are not.
// - One daemon per store: a second one fails to open it with FAILED_PRECONDITION instead of
//   running the first one's jobs a second time.
// - Errors: NOT_FOUND for an unknown id, INVALID_ARGUMENT for a page token not issued here,
//   UNAVAILABLE when the storage cannot be written or reached (the caller may retry), DATA_LOSS
//   for stored bytes that do not parse.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
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
  virtual ~JobStore() = default;

  // Durably records a new QUEUED job (and its Queued event), or returns the job an earlier
  // submission with the same request_id created.
  virtual absl::StatusOr<SubmitOutcome> Submit(const JobSubmission& submission) = 0;

  // The job an earlier submission with this request_id created, if any.
  virtual absl::StatusOr<std::optional<provd::v1::Job>> FindByRequestId(
      const std::string& request_id) = 0;

  // The job with its result, error and rounds; NOT_FOUND for an unknown id.
  virtual absl::StatusOr<provd::v1::Job> Get(const std::string& id) = 0;
  // Newest first. The page token is opaque to clients; INVALID_ARGUMENT for one not issued here.
  virtual absl::StatusOr<JobListPage> List(const std::vector<provd::v1::JobState>& states,
                                           provd::v1::Priority priority, uint32_t page_size,
                                           const std::string& page_token) = 0;
  // The job's state alone; NOT_FOUND for an unknown id.
  virtual absl::StatusOr<provd::v1::JobState> State(const std::string& id) = 0;
  // Events with sequence >= from_sequence, in order; NOT_FOUND for an unknown id.
  virtual absl::StatusOr<std::vector<provd::v1::JobEvent>> Events(const std::string& id,
                                                                  uint64_t from_sequence) = 0;
  // Appends a progress event (rounds, devices); sets its job_id, sequence and time.
  virtual absl::StatusOr<uint64_t> Append(const std::string& id, provd::v1::JobEvent event) = 0;

  // Appends a ProofRejected event and drops the job's MSM progress in one transaction: the
  // rejected attempt's partial sums must never seed a later attempt, even after a crash.
  virtual absl::StatusOr<uint64_t> AppendRejection(const std::string& id,
                                                   provd::v1::JobEvent event) = 0;

  // QUEUED -> RUNNING, counts the attempt, records Started.
  virtual absl::StatusOr<StartedJob> Start(const std::string& id) = 0;
  // QUEUED or RUNNING -> the final state of `ending`, with its event; the witness is deleted.
  // FAILED_PRECONDITION when the job is already final.
  virtual absl::StatusOr<provd::v1::Job> Finish(const std::string& id, const JobEnding& ending) = 0;
  // RUNNING -> QUEUED (shutdown with the job unfinished), records Queued{requeued}.
  virtual absl::Status Requeue(const std::string& id) = 0;
  // After a restart: every RUNNING job goes back to QUEUED; returns all queued jobs, oldest
  // first.
  virtual absl::StatusOr<std::vector<QueuedJob>> RecoverQueued() = 0;

  // The input bytes kept with a job that has not ended; DATA_LOSS when they are gone.
  virtual absl::StatusOr<std::string> ReadWitness(const std::string& id) = 0;

  // MSM progress of a running job, kept until the job ends, so that a restart resumes it.
  virtual absl::Status SaveCheckpoint(const std::string& id, int round, absl::string_view binding,
                                      const plan::MsmProgress& progress) = 0;
  // nullopt when none was saved for this round under this binding.
  virtual absl::StatusOr<std::optional<plan::MsmProgress>> LoadCheckpoint(
      const std::string& id, int round, absl::string_view binding) = 0;
  virtual absl::StatusOr<int64_t> CountInState(provd::v1::JobState state) = 0;
  // Deletes final jobs that finished before `cutoff`, with their events; returns how many.
  virtual absl::StatusOr<int64_t> RemoveFinishedBefore(absl::Time cutoff) = 0;
};

// Fills Job.rounds from a job's events (RoundStarted, device moves, RoundFinished).
void RoundsFromEvents(const std::vector<provd::v1::JobEvent>& events, provd::v1::Job& job);

// SUCCEEDED, FAILED or CANCELLED: nothing happens to the job any more.
bool IsFinalState(provd::v1::JobState state);

// A fresh job id: 32 lowercase hex digits from the OS's entropy.
std::string NewJobId();

// What both implementations share.
// The event that reports `ending`: Succeeded, Cancelled{reason} or Failed{error}.
provd::v1::JobEvent FinalEvent(const JobEnding& ending);
// List's paging: rows with an acceptance order below the returned bound (INT64_MAX for the
// first page); INVALID_ARGUMENT for a token that was not issued by PageToken.
absl::StatusOr<int64_t> OrderBeforePageToken(const std::string& page_token);
std::string PageToken(int64_t last_order);
// page_size 0 means the default (100); at most 1000.
uint32_t PageLimit(uint32_t page_size);
// The rest of List's statement after "WHERE seq < <bound>": the filters (enum numbers, written
// into the SQL as such), newest first, one row past the page to tell whether another follows.
std::string ListFilterAndOrder(const std::vector<provd::v1::JobState>& states,
                               provd::v1::Priority priority, uint32_t limit);
google::protobuf::Timestamp TimestampFromUnixNanos(int64_t unix_nanos);
absl::Status JobNotFound(const std::string& id);

}  // namespace provd::daemon
