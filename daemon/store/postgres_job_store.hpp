// The job store on PostgreSQL (JobStore's contract, job_store.hpp): the jobs, their events,
// their MSM checkpoints and their witnesses all live in the database, in the schema `provd`,
// so that whatever holds the database holds every job; no file on the host belongs to a job.
//
// Witnesses are stored in chunks of 16 MiB (bytea, sent in binary): a chunk stays far below
// PostgreSQL's 1 GiB value limit and a 2^24-constraint witness never travels as one value.
//
// Durability: the connections run with synchronous_commit=off, so progress commits (events,
// checkpoints) return before the WAL is flushed and the last of them may be lost if the server
// crashes; acceptance and final states set it on for their transaction, so they are on the
// server's disk when the call returns (and on a synchronous standby if the server has one).
//
// The schema is versioned in provd.meta; Open applies the missing migrations in one
// transaction under an advisory lock, so daemons starting together migrate once.
//
// One daemon per database, until the fleet's claiming and leases exist: Open takes a session
// advisory lock that it holds on a connection of its own for the store's lifetime, and a second
// daemon fails to open the database with FAILED_PRECONDITION. If that connection breaks (the
// server restarted) the store takes the lock again before its next call; if another daemon
// took it meanwhile, this call and every later one fail with FAILED_PRECONDITION.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/store/job_store.hpp"
#include "daemon/store/postgres.hpp"

namespace provd::daemon {

struct PostgresStoreOptions {
  std::string conninfo;    // a postgres:// URI or a libpq connection string
  size_t connections = 8;  // the pool's size: calls beyond it wait for a connection
  size_t witness_chunk_bytes = size_t{16} << 20;
};

class PostgresJobStore final : public JobStore {
 public:
  // Connects, migrates the schema and takes the database for this daemon. UNAVAILABLE when the
  // server cannot be reached, FAILED_PRECONDITION when another daemon holds the database or
  // its schema is newer than this provd understands.
  static absl::StatusOr<std::unique_ptr<PostgresJobStore>> Open(PostgresStoreOptions options);

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
  absl::StatusOr<std::string> ReadWitness(const std::string& id) override;
  absl::Status SaveCheckpoint(const std::string& id, int round, absl::string_view binding,
                              const plan::MsmProgress& progress) override;
  absl::StatusOr<std::optional<plan::MsmProgress>> LoadCheckpoint(
      const std::string& id, int round, absl::string_view binding) override;
  absl::StatusOr<int64_t> CountInState(provd::v1::JobState state) override;
  absl::StatusOr<int64_t> RemoveFinishedBefore(absl::Time cutoff) override;

  // The schema version this provd writes.
  static int SchemaVersion();

 private:
  PostgresJobStore(PostgresStoreOptions options, postgres::Connection owner);

  // A pooled connection, once this daemon is known to still hold the database.
  absl::StatusOr<postgres::Pool::Lease> Connect();
  absl::Status CheckOwnership();
  // One statement on a pooled connection (its own transaction).
  absl::StatusOr<postgres::Result> QueryOnce(absl::string_view sql,
                                             const postgres::Params& params = {});

  const PostgresStoreOptions options_;
  std::mutex owner_mutex_;
  postgres::Connection owner_;  // holds the advisory lock that makes the database this daemon's
  absl::Time owner_checked_ = absl::InfinitePast();
  bool lost_ = false;  // another daemon took the database while this one's session was gone
  postgres::Pool pool_;
};

}  // namespace provd::daemon
