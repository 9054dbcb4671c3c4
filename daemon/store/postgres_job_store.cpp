#include "daemon/store/postgres_job_store.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "daemon/jobs/labels.hpp"
#include "daemon/store/job_rows.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

using postgres::Connection;
using postgres::Params;
using postgres::Result;
using provd::v1::Job;
using provd::v1::JobEvent;
using provd::v1::JobState;

// Advisory lock keys (one 64-bit space per database): "provd" followed by a purpose.
constexpr int64_t kMigrationLock = 0x70726f7664000001;
constexpr int64_t kOwnerLock = 0x70726f7664000002;

// Each entry takes the schema from the version before it (none, for the first) to its own
// number; all missing ones run in one transaction.
constexpr const char* kMigrations[] = {
    /* -> 1 */ R"sql(
CREATE TABLE provd.jobs(
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- acceptance order
  id text NOT NULL UNIQUE,
  request_id text UNIQUE,                               -- NULL: none given
  priority smallint NOT NULL,
  state smallint NOT NULL,
  zkey_name text NOT NULL,
  input_size bigint NOT NULL,
  seed bytea NOT NULL,
  created_ns bigint NOT NULL,
  started_ns bigint,
  finished_ns bigint,
  deadline_ns bigint,
  attempts integer NOT NULL DEFAULT 0,
  error_code integer,
  error_message text,
  spec bytea NOT NULL,                                  -- a serialized provd.v1.JobSpec
  result bytea,                                         -- a serialized provd.v1.JobResult
  last_event bigint NOT NULL DEFAULT 0,
  memory_bytes bigint NOT NULL DEFAULT 0);              -- QueuedJob::memory_bytes; 0: unknown
CREATE INDEX jobs_queue ON provd.jobs(state, priority, seq);
CREATE INDEX jobs_by_finish ON provd.jobs(finished_ns) WHERE finished_ns IS NOT NULL;
CREATE TABLE provd.events(
  job_id text NOT NULL REFERENCES provd.jobs(id) ON DELETE CASCADE,
  sequence bigint NOT NULL,
  body bytea NOT NULL,       -- a serialized provd.v1.JobEvent; its job_id and sequence are these
  PRIMARY KEY(job_id, sequence));
CREATE TABLE provd.checkpoints(  -- MSM progress of running jobs (plan/checkpoint.hpp)
  job_id text NOT NULL REFERENCES provd.jobs(id) ON DELETE CASCADE,
  round integer NOT NULL,
  binding bytea NOT NULL,
  chunks_done bigint NOT NULL,
  chunk_count bigint NOT NULL,
  chunk_points bigint NOT NULL,
  partial_sum bytea NOT NULL,
  PRIMARY KEY(job_id, round));
CREATE TABLE provd.witnesses(    -- the input bytes of jobs that have not ended, in chunks
  job_id text NOT NULL REFERENCES provd.jobs(id) ON DELETE CASCADE,
  chunk integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY(job_id, chunk));
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(std::size(kMigrations));

// The columns of job_rows.hpp's JobColumn, in order; this schema keeps every result in `result`.
constexpr char kJobColumns[] =
    "id, request_id, priority, state, zkey_name, input_size, created_ns, started_ns, "
    "finished_ns, deadline_ns, attempts, error_code, error_message, NULL::text, NULL::text, seq, "
    "spec, result";

// Makes the transaction it runs in durable at COMMIT, whatever the session's default.
constexpr char kDurableCommit[] = "SET LOCAL synchronous_commit TO on";

absl::Status MigrateSchema(Connection& connection) {
  absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(connection);
  if (!tx.ok()) return tx.status();
  if (absl::StatusOr<Result> locked =
          connection.Query("SELECT pg_advisory_xact_lock($1)", Params().Add(kMigrationLock));
      !locked.ok()) {
    return locked.status();
  }
  if (absl::Status s = connection.Execute(
          "CREATE SCHEMA IF NOT EXISTS provd; CREATE TABLE IF NOT EXISTS provd.meta("
          "key text PRIMARY KEY, value text NOT NULL)");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Result> version =
      connection.Query("SELECT value FROM provd.meta WHERE key = 'schema_version'");
  if (!version.ok()) return version.status();
  int found = 0;
  if (version->rows() == 1 &&
      (!absl::SimpleAtoi(version->Bytes(0, 0), &found) || found < 1 || found > kSchemaVersion)) {
    return absl::FailedPreconditionError(
        absl::StrCat("postgres: job store schema version ", version->Bytes(0, 0),
                     " is not one this provd understands (1 to ", kSchemaVersion,
                     "); is a newer provd using ", "this database?"));
  }
  if (found == kSchemaVersion) return absl::OkStatus();
  for (int to = found + 1; to <= kSchemaVersion; ++to) {
    if (absl::Status s = connection.Execute(kMigrations[to - 1]); !s.ok()) return s;
  }
  if (absl::StatusOr<Result> stored =
          connection.Query("INSERT INTO provd.meta(key, value) VALUES ('schema_version', $1) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           Params().Add(absl::StrCat(kSchemaVersion)));
      !stored.ok()) {
    return stored.status();
  }
  if (absl::Status s = tx->Commit(); !s.ok()) return s;
  if (found == 0) {
    spdlog::info("postgres: created the job store, schema version {}", kSchemaVersion);
  } else {
    spdlog::info("postgres: job store migrated from schema version {} to {}", found,
                 kSchemaVersion);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> TakeOwnership(Connection& owner) {
  absl::StatusOr<Result> locked =
      owner.Query("SELECT pg_try_advisory_lock($1)", Params().Add(kOwnerLock));
  if (!locked.ok()) return locked.status();
  return locked->Int(0, 0) != 0;
}

absl::Status OwnedByAnother() {
  return absl::FailedPreconditionError(
      "postgres: the job store is in use by another provd (it holds the store's advisory lock); "
      "one daemon per database");
}

absl::StatusOr<std::vector<JobEvent>> ReadEvents(Connection& connection, const std::string& id,
                                                 uint64_t from_sequence) {
  absl::StatusOr<Result> rows = connection.Query(
      "SELECT sequence, body FROM provd.events WHERE job_id = $1 AND sequence >= $2 "
      "ORDER BY sequence",
      Params().Add(id).Add(static_cast<int64_t>(std::min<uint64_t>(from_sequence, INT64_MAX))));
  if (!rows.ok()) return rows.status();
  std::vector<JobEvent> events(static_cast<size_t>(rows->rows()));
  for (int i = 0; i < rows->rows(); ++i) {
    JobEvent& event = events[static_cast<size_t>(i)];
    if (!event.ParseFromString(rows->Bytes(i, 1))) {
      return absl::DataLossError(absl::StrCat("job ", id, ": an event does not parse"));
    }
    event.set_job_id(id);
    event.set_sequence(static_cast<uint64_t>(rows->Int(i, 0)));
  }
  return events;
}

absl::StatusOr<Job> ReadJob(Connection& connection, const std::string& id, bool full) {
  absl::StatusOr<Result> row = connection.Query(
      absl::StrCat("SELECT ", kJobColumns, " FROM provd.jobs WHERE id = $1"), Params().Add(id));
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return JobNotFound(id);
  Job job = JobFromRow(postgres::Row(*row, 0), full);
  if (full) {
    absl::StatusOr<std::vector<JobEvent>> all = ReadEvents(connection, id, 1);
    if (!all.ok()) return all.status();
    RoundsFromEvents(*all, job);
  }
  return job;
}

absl::StatusOr<std::optional<Job>> ReadJobByRequestId(Connection& connection,
                                                      const std::string& request_id) {
  absl::StatusOr<Result> row =
      connection.Query("SELECT id FROM provd.jobs WHERE request_id = $1", Params().Add(request_id));
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return std::nullopt;
  absl::StatusOr<Job> job = ReadJob(connection, row->Bytes(0, 0), /*full=*/true);
  if (!job.ok()) return job.status();
  return *std::move(job);
}

// Appends one event in one statement (its own transaction, or the caller's): the job's event
// counter and the event row move together. With `drop_checkpoints`, the job's MSM progress goes
// in the same statement.
absl::StatusOr<uint64_t> AppendEvent(Connection& connection, const std::string& id, JobEvent event,
                                     absl::Time now, bool drop_checkpoints) {
  event.clear_job_id();
  event.clear_sequence();
  *event.mutable_time() = TimestampFromUnixNanos(absl::ToUnixNanos(now));
  absl::StatusOr<Result> appended = connection.Query(
      absl::StrCat(
          "WITH bump AS (UPDATE provd.jobs SET last_event = last_event + 1 WHERE id = $1 "
          "RETURNING last_event)",
          drop_checkpoints ? ", dropped AS (DELETE FROM provd.checkpoints WHERE job_id = $1)" : "",
          " INSERT INTO provd.events(job_id, sequence, body) SELECT $1, last_event, $2 FROM bump "
          "RETURNING sequence"),
      Params().Add(id).AddBytes(event.SerializeAsString()));
  if (!appended.ok()) return appended.status();
  if (appended->rows() == 0) return JobNotFound(id);
  return static_cast<uint64_t>(appended->Int(0, 0));
}

// The error for a transition from `from` that matched no row: the job is in another state, or
// does not exist.
absl::Status TransitionRefused(Connection& connection, const std::string& id, JobState from) {
  absl::StatusOr<Job> job = ReadJob(connection, id, /*full=*/false);
  if (!job.ok()) return job.status();
  return absl::FailedPreconditionError(absl::StrCat("job ", id, " is ",
                                                    provd::v1::JobState_Name(job->state()),
                                                    ", not ", provd::v1::JobState_Name(from)));
}

// RUNNING -> QUEUED with its Queued{requeued} event, inside the caller's transaction.
absl::Status RequeueInTransaction(Connection& connection, const std::string& id, absl::Time now) {
  absl::StatusOr<Result> moved =
      connection.Query("UPDATE provd.jobs SET state = $2 WHERE id = $1 AND state = $3",
                       Params()
                           .Add(id)
                           .Add(int64_t{provd::v1::JOB_STATE_QUEUED})
                           .Add(int64_t{provd::v1::JOB_STATE_RUNNING}));
  if (!moved.ok()) return moved.status();
  if (moved->affected() != 1) {
    return TransitionRefused(connection, id, provd::v1::JOB_STATE_RUNNING);
  }
  JobEvent event;
  event.mutable_queued()->set_requeued(true);
  return AppendEvent(connection, id, std::move(event), now, /*drop_checkpoints=*/false).status();
}

}  // namespace

int PostgresJobStore::SchemaVersion() { return kSchemaVersion; }

PostgresJobStore::PostgresJobStore(PostgresStoreOptions options, Connection owner)
    : options_(std::move(options)),
      owner_(std::move(owner)),
      owner_checked_(absl::Now()),
      pool_(options_.conninfo, std::max<size_t>(options_.connections, 1), [](Connection& c) {
        // Progress commits need not wait for the WAL flush; the durable ones say so
        // (kDurableCommit).
        return c.Execute("SET synchronous_commit TO off");
      }) {}

absl::StatusOr<std::unique_ptr<PostgresJobStore>> PostgresJobStore::Open(
    PostgresStoreOptions options) {
  absl::StatusOr<Connection> owner = Connection::Open(options.conninfo);
  if (!owner.ok()) return owner.status();
  if (absl::Status s = MigrateSchema(*owner); !s.ok()) return s;
  absl::StatusOr<bool> owned = TakeOwnership(*owner);
  if (!owned.ok()) return owned.status();
  if (!*owned) return OwnedByAnother();
  spdlog::info("postgres: job store at {}", postgres::RedactedConninfo(options.conninfo));
  return std::unique_ptr<PostgresJobStore>(
      new PostgresJobStore(std::move(options), *std::move(owner)));
}

absl::Status PostgresJobStore::CheckOwnership() {
  std::lock_guard lock(owner_mutex_);
  if (lost_) return OwnedByAnother();
  const absl::Time now = absl::Now();
  // Every call reads what the server sent the owner session (no round trip): a session the
  // server ended is noticed before the call writes anything. Once a second a round trip as
  // well, for a network that fails silently.
  if (owner_.CheckAlive()) {
    if (now - owner_checked_ < absl::Seconds(1)) return absl::OkStatus();
    if (owner_.Execute("SELECT 1").ok()) {
      owner_checked_ = now;
      return absl::OkStatus();
    }
  }
  // The session, and with it the lock, is gone: take it again, unless another daemon has.
  if (absl::Status s = owner_.Reset(); !s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("postgres: the job store's database cannot be reached: ",
                     absl::StripPrefix(s.message(), "postgres: reconnect: ")));
  }
  absl::StatusOr<bool> owned = TakeOwnership(owner_);
  if (!owned.ok()) return owned.status();
  if (!*owned) {
    // For good: this daemon's view of the queue is stale, and the other one runs its jobs.
    lost_ = true;
    spdlog::error(
        "postgres: lost the job store's session, and another provd holds it now; "
        "this daemon writes nothing more to it (restart it to serve again)");
    return OwnedByAnother();
  }
  spdlog::warn("postgres: reconnected to the job store and holds it again");
  owner_checked_ = now;
  return absl::OkStatus();
}

absl::StatusOr<Result> PostgresJobStore::QueryOnce(absl::string_view sql, const Params& params) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  return (*connection)->Query(sql, params);
}

absl::StatusOr<postgres::Pool::Lease> PostgresJobStore::Connect() {
  if (absl::Status s = CheckOwnership(); !s.ok()) return s;
  return pool_.Acquire();
}

absl::StatusOr<SubmitOutcome> PostgresJobStore::Submit(const JobSubmission& submission) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  Connection& db = **connection;
  // No lookup of the request_id first: the INSERT's ON CONFLICT finds an earlier job with it
  // (and waits for one being committed), and the service has looked it up already.
  const std::string id = NewJobId();
  const absl::Time now = absl::Now();
  int64_t order = 0;
  absl::StatusOr<bool> inserted = [&]() -> absl::StatusOr<bool> {
    absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(db);
    if (!tx.ok()) return tx.status();
    if (absl::Status s = db.Execute(kDurableCommit); !s.ok()) return s;
    Params params;
    params.Add(id);
    if (submission.request_id.empty()) {
      params.AddNull();
    } else {
      params.Add(submission.request_id);
    }
    params.Add(int64_t{submission.priority})
        .Add(int64_t{provd::v1::JOB_STATE_QUEUED})
        .Add(submission.zkey_name)
        .Add(static_cast<int64_t>(submission.witness.empty() ? submission.referenced_input_size
                                                             : submission.witness.size()))
        .AddBytes(submission.seed)
        .Add(absl::ToUnixNanos(now))
        .Add(submission.deadline
                 ? std::optional<int64_t>(absl::ToInt64Nanoseconds(*submission.deadline))
                 : std::nullopt)
        .AddBytes(submission.spec.SerializeAsString())
        .Add(static_cast<int64_t>(submission.memory_bytes));
    // A concurrent submission with the same request_id makes this wait for its commit and
    // then insert nothing.
    absl::StatusOr<Result> row = db.Query(
        "INSERT INTO provd.jobs(id, request_id, priority, state, zkey_name, input_size, seed, "
        "created_ns, deadline_ns, spec, memory_bytes) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
        "ON CONFLICT (request_id) DO NOTHING RETURNING seq",
        params);
    if (!row.ok()) return row.status();
    if (row->rows() == 0) return false;
    order = row->Int(0, 0);
    // At least one chunk, empty for an input kept elsewhere: no chunk at all means lost bytes.
    const absl::string_view witness = submission.witness;
    const size_t chunk_bytes = std::max<size_t>(options_.witness_chunk_bytes, 1);
    const size_t chunks = std::max<size_t>((witness.size() + chunk_bytes - 1) / chunk_bytes, 1);
    for (size_t chunk = 0; chunk < chunks; ++chunk) {
      absl::StatusOr<Result> stored =
          db.Query("INSERT INTO provd.witnesses(job_id, chunk, bytes) VALUES ($1, $2, $3)",
                   Params()
                       .Add(id)
                       .Add(static_cast<int64_t>(chunk))
                       .AddBytes(witness.substr(std::min(chunk * chunk_bytes, witness.size()),
                                                chunk_bytes)));
      if (!stored.ok()) return stored.status();
    }
    JobEvent queued;
    queued.mutable_queued()->set_requeued(false);
    if (auto appended = AppendEvent(db, id, std::move(queued), now, false); !appended.ok()) {
      return appended.status();
    }
    if (absl::Status s = tx->Commit(); !s.ok()) return s;
    return true;
  }();
  if (!inserted.ok()) return inserted.status();
  if (!*inserted) {
    absl::StatusOr<std::optional<Job>> existing = ReadJobByRequestId(db, submission.request_id);
    if (!existing.ok()) return existing.status();
    if (!existing->has_value()) {
      return absl::AbortedError(
          "a job with this request_id was being submitted and was not "
          "committed; submit again");
    }
    return SubmitOutcome{**std::move(existing), true, 0};
  }
  absl::StatusOr<Job> job = ReadJob(db, id, /*full=*/true);
  if (!job.ok()) return job.status();
  return SubmitOutcome{*std::move(job), false, order};
}

absl::StatusOr<std::optional<Job>> PostgresJobStore::FindByRequestId(
    const std::string& request_id) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  return ReadJobByRequestId(**connection, request_id);
}

absl::StatusOr<Job> PostgresJobStore::Get(const std::string& id) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  return ReadJob(**connection, id, /*full=*/true);
}

absl::StatusOr<JobListPage> PostgresJobStore::List(const std::vector<JobState>& states,
                                                   provd::v1::Priority priority, uint32_t page_size,
                                                   const std::string& page_token) {
  absl::StatusOr<int64_t> before = OrderBeforePageToken(page_token);
  if (!before.ok()) return before.status();
  const uint32_t limit = PageLimit(page_size);
  const std::string sql = absl::StrCat("SELECT ", kJobColumns, " FROM provd.jobs WHERE seq < $1",
                                       ListFilterAndOrder(states, priority, limit));
  absl::StatusOr<Result> rows = QueryOnce(sql, Params().Add(*before));
  if (!rows.ok()) return rows.status();
  JobListPage page;
  for (int i = 0; i < rows->rows(); ++i) {
    if (page.jobs.size() == limit) {
      page.next_page_token = PageToken(rows->Int(i - 1, kColumnSeq));
      break;
    }
    page.jobs.push_back(JobFromRow(postgres::Row(*rows, i), /*full=*/false));
  }
  return page;
}

absl::StatusOr<JobState> PostgresJobStore::State(const std::string& id) {
  absl::StatusOr<Result> row =
      QueryOnce("SELECT state FROM provd.jobs WHERE id = $1", Params().Add(id));
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return JobNotFound(id);
  return static_cast<JobState>(row->Int(0, 0));
}

absl::StatusOr<std::vector<JobEvent>> PostgresJobStore::Events(const std::string& id,
                                                               uint64_t from_sequence) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  absl::StatusOr<Result> exists =
      (*connection)->Query("SELECT 1 FROM provd.jobs WHERE id = $1", Params().Add(id));
  if (!exists.ok()) return exists.status();
  if (exists->rows() == 0) return JobNotFound(id);
  return ReadEvents(**connection, id, from_sequence);
}

absl::StatusOr<uint64_t> PostgresJobStore::Append(const std::string& id, JobEvent event) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  return AppendEvent(**connection, id, std::move(event), absl::Now(), /*drop_checkpoints=*/false);
}

absl::StatusOr<uint64_t> PostgresJobStore::AppendRejection(const std::string& id, JobEvent event) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  return AppendEvent(**connection, id, std::move(event), absl::Now(), /*drop_checkpoints=*/true);
}

absl::StatusOr<StartedJob> PostgresJobStore::Start(const std::string& id) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  Connection& db = **connection;
  const absl::Time now = absl::Now();
  absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(db);
  if (!tx.ok()) return tx.status();
  absl::StatusOr<Result> row = db.Query(
      "UPDATE provd.jobs SET state = $2, attempts = attempts + 1, started_ns = $3 "
      "WHERE id = $1 AND state = $4 RETURNING attempts, priority, zkey_name, seed, spec",
      Params()
          .Add(id)
          .Add(int64_t{provd::v1::JOB_STATE_RUNNING})
          .Add(absl::ToUnixNanos(now))
          .Add(int64_t{provd::v1::JOB_STATE_QUEUED}));
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return TransitionRefused(db, id, provd::v1::JOB_STATE_QUEUED);
  StartedJob started{id,
                     static_cast<provd::v1::Priority>(row->Int(0, 1)),
                     row->Bytes(0, 2),
                     row->Bytes(0, 3),
                     static_cast<uint32_t>(row->Int(0, 0)),
                     SpecFromStored(row->Bytes(0, 4), row->Bytes(0, 2))};
  JobEvent event;
  event.mutable_started()->set_attempt(started.attempt);
  if (auto appended = AppendEvent(db, id, std::move(event), now, false); !appended.ok()) {
    return appended.status();
  }
  if (absl::Status s = tx->Commit(); !s.ok()) return s;
  return started;
}

absl::StatusOr<Job> PostgresJobStore::Finish(const std::string& id, const JobEnding& ending) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  Connection& db = **connection;
  const absl::Time now = absl::Now();
  {
    absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(db);
    if (!tx.ok()) return tx.status();
    if (absl::Status s = db.Execute(kDurableCommit); !s.ok()) return s;
    const bool succeeded = ending.state == provd::v1::JOB_STATE_SUCCEEDED;
    Params params;
    params.Add(id).Add(int64_t{ending.state}).Add(absl::ToUnixNanos(now));
    if (succeeded) {
      params.AddNull().AddNull().AddBytes(ending.result.SerializeAsString());
    } else {
      params.Add(static_cast<int64_t>(ending.error.code())).Add(ending.error.message()).AddNull();
    }
    params.Add(int64_t{provd::v1::JOB_STATE_QUEUED}).Add(int64_t{provd::v1::JOB_STATE_RUNNING});
    absl::StatusOr<Result> updated = db.Query(
        "UPDATE provd.jobs SET state = $2, finished_ns = $3, error_code = $4, "
        "error_message = $5, result = $6 WHERE id = $1 AND state IN ($7, $8)",
        params);
    if (!updated.ok()) return updated.status();
    if (updated->affected() != 1) {
      absl::StatusOr<Job> job = ReadJob(db, id, /*full=*/false);
      if (!job.ok()) return job.status();
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", id, " has already ended (", provd::v1::JobState_Name(job->state()), ")"));
    }
    if (auto appended = AppendEvent(db, id, FinalEvent(ending), now, /*drop_checkpoints=*/true);
        !appended.ok()) {
      return appended.status();
    }
    // The witness is a secret of the client's: gone with the commit that ends the job.
    if (absl::StatusOr<Result> dropped =
            db.Query("DELETE FROM provd.witnesses WHERE job_id = $1", Params().Add(id));
        !dropped.ok()) {
      return dropped.status();
    }
    if (absl::Status s = tx->Commit(); !s.ok()) return s;
  }
  return ReadJob(db, id, /*full=*/true);
}

absl::Status PostgresJobStore::Requeue(const std::string& id) {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(**connection);
  if (!tx.ok()) return tx.status();
  if (absl::Status s = RequeueInTransaction(**connection, id, absl::Now()); !s.ok()) return s;
  return tx->Commit();
}

absl::StatusOr<std::vector<QueuedJob>> PostgresJobStore::RecoverQueued() {
  absl::StatusOr<postgres::Pool::Lease> connection = Connect();
  if (!connection.ok()) return connection.status();
  Connection& db = **connection;
  std::set<std::string> interrupted_ids;
  {
    absl::StatusOr<postgres::Transaction> tx = postgres::Transaction::Begin(db);
    if (!tx.ok()) return tx.status();
    absl::StatusOr<Result> running =
        db.Query("SELECT id FROM provd.jobs WHERE state = $1 ORDER BY seq FOR UPDATE",
                 Params().Add(int64_t{provd::v1::JOB_STATE_RUNNING}));
    if (!running.ok()) return running.status();
    const absl::Time now = absl::Now();
    for (int i = 0; i < running->rows(); ++i) {
      const std::string id = running->Bytes(i, 0);
      if (absl::Status s = RequeueInTransaction(db, id, now); !s.ok()) return s;
      interrupted_ids.insert(id);
    }
    if (absl::Status s = tx->Commit(); !s.ok()) return s;
  }
  absl::StatusOr<Result> queued = db.Query(
      "SELECT id, priority, seq, created_ns, deadline_ns, spec, zkey_name, memory_bytes "
      "FROM provd.jobs WHERE state = $1 ORDER BY seq",
      Params().Add(int64_t{provd::v1::JOB_STATE_QUEUED}));
  if (!queued.ok()) return queued.status();
  std::vector<QueuedJob> jobs(static_cast<size_t>(queued->rows()));
  for (int i = 0; i < queued->rows(); ++i) {
    QueuedJob& job = jobs[static_cast<size_t>(i)];
    job.id = queued->Bytes(i, 0);
    job.priority = static_cast<provd::v1::Priority>(queued->Int(i, 1));
    job.order = queued->Int(i, 2);
    job.accepted_at = absl::FromUnixNanos(queued->Int(i, 3));
    if (auto deadline = queued->OptionalInt(i, 4)) {
      job.expires_at = job.accepted_at + absl::Nanoseconds(*deadline);
    }
    job.kind = JobKindLabel(SpecFromStored(queued->Bytes(i, 5), queued->Bytes(i, 6)));
    job.requeued = interrupted_ids.contains(job.id);
    job.memory_bytes = static_cast<uint64_t>(queued->Int(i, 7));
  }
  return jobs;
}

absl::StatusOr<std::string> PostgresJobStore::ReadWitness(const std::string& id) {
  absl::StatusOr<Result> chunks = QueryOnce(
      "SELECT bytes FROM provd.witnesses WHERE job_id = $1 ORDER BY chunk", Params().Add(id));
  if (!chunks.ok()) return chunks.status();
  if (chunks->rows() == 0) {
    return absl::DataLossError(
        absl::StrCat("job ", id, ": its witness is not in the database (has the job ended?)"));
  }
  std::string bytes;
  for (int i = 0; i < chunks->rows(); ++i) bytes += chunks->Bytes(i, 0);
  return bytes;
}

absl::Status PostgresJobStore::SaveCheckpoint(const std::string& id, int round,
                                              absl::string_view binding,
                                              const plan::MsmProgress& progress) {
  return QueryOnce(
             "INSERT INTO provd.checkpoints(job_id, round, binding, chunks_done, chunk_count, "
             "chunk_points, partial_sum) VALUES ($1, $2, $3, $4, $5, $6, $7) "
             "ON CONFLICT (job_id, round) DO UPDATE SET binding = excluded.binding, "
             "chunks_done = excluded.chunks_done, chunk_count = excluded.chunk_count, "
             "chunk_points = excluded.chunk_points, partial_sum = excluded.partial_sum",
             Params()
                 .Add(id)
                 .Add(int64_t{round})
                 .AddBytes(binding)
                 .Add(static_cast<int64_t>(progress.chunks_done))
                 .Add(static_cast<int64_t>(progress.chunk_count))
                 .Add(static_cast<int64_t>(progress.chunk_points))
                 .AddBytes(progress.partial_sum))
      .status();
}

absl::StatusOr<std::optional<plan::MsmProgress>> PostgresJobStore::LoadCheckpoint(
    const std::string& id, int round, absl::string_view binding) {
  absl::StatusOr<Result> row = QueryOnce(
      "SELECT binding, chunks_done, chunk_count, chunk_points, partial_sum "
      "FROM provd.checkpoints WHERE job_id = $1 AND round = $2",
      Params().Add(id).Add(int64_t{round}));
  if (!row.ok()) return row.status();
  if (row->rows() == 0 || row->Bytes(0, 0) != binding) return std::nullopt;
  return plan::MsmProgress{static_cast<size_t>(row->Int(0, 1)), static_cast<size_t>(row->Int(0, 2)),
                           static_cast<size_t>(row->Int(0, 3)), row->Bytes(0, 4)};
}

absl::StatusOr<int64_t> PostgresJobStore::CountInState(JobState state) {
  absl::StatusOr<Result> row =
      QueryOnce("SELECT count(*) FROM provd.jobs WHERE state = $1", Params().Add(int64_t{state}));
  if (!row.ok()) return row.status();
  return row->Int(0, 0);
}

absl::StatusOr<int64_t> PostgresJobStore::RemoveFinishedBefore(absl::Time cutoff) {
  absl::StatusOr<Result> removed = QueryOnce(
      "DELETE FROM provd.jobs WHERE finished_ns IS NOT NULL AND finished_ns < $1 "
      "AND state IN ($2, $3, $4)",
      Params()
          .Add(absl::ToUnixNanos(cutoff))
          .Add(int64_t{provd::v1::JOB_STATE_SUCCEEDED})
          .Add(int64_t{provd::v1::JOB_STATE_FAILED})
          .Add(int64_t{provd::v1::JOB_STATE_CANCELLED}));
  if (!removed.ok()) return removed.status();
  return removed->affected();
}

}  // namespace provd::daemon
