#include "daemon/store/sqlite_job_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/atomic_file.hpp"
#include "daemon/jobs/labels.hpp"
#include "daemon/store/job_rows.hpp"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;
using provd::v1::JobState;

// 2: jobs.spec and jobs.result (the job kinds besides Groth16). 3: jobs.memory_bytes (the
// memory budget's estimate, so that recovered jobs are admitted as they were at submission).
// An older store is migrated in place at start, one version at a time: its rows keep their
// meaning (a version-1 row is a Groth16 job described by its columns; an older row's estimate
// is 0, unknown).
constexpr int kSchemaVersion = 3;
constexpr const char* kMigrations[] = {
    /* 1 -> 2 */ "ALTER TABLE jobs ADD COLUMN spec BLOB; ALTER TABLE jobs ADD COLUMN result BLOB;",
    /* 2 -> 3 */ "ALTER TABLE jobs ADD COLUMN memory_bytes INTEGER NOT NULL DEFAULT 0;",
};
static_assert(std::size(kMigrations) == kSchemaVersion - 1);
constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- acceptance order
  id TEXT NOT NULL UNIQUE,
  request_id TEXT UNIQUE,                  -- NULL: none given
  priority INTEGER NOT NULL,
  state INTEGER NOT NULL,
  zkey_name TEXT NOT NULL,
  input_size INTEGER NOT NULL,
  seed BLOB NOT NULL,
  created_ns INTEGER NOT NULL,
  started_ns INTEGER,
  finished_ns INTEGER,
  deadline_ns INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  error_code INTEGER,
  error_message TEXT,
  proof_json TEXT,
  public_json TEXT,
  last_event INTEGER NOT NULL DEFAULT 0,
  spec BLOB,                               -- a serialized provd.v1.JobSpec without its inputs;
                                           -- NULL (schema 1 rows): Groth16, zkey_name
  result BLOB,                             -- a serialized provd.v1.JobResult; NULL: Groth16's
                                           -- proof_json and public_json
  memory_bytes INTEGER NOT NULL DEFAULT 0);  -- QueuedJob::memory_bytes; 0: unknown
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, seq);
CREATE INDEX IF NOT EXISTS jobs_by_finish ON jobs(finished_ns) WHERE finished_ns IS NOT NULL;
CREATE TABLE IF NOT EXISTS events(
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  sequence INTEGER NOT NULL,
  body BLOB NOT NULL,                      -- a serialized provd.v1.JobEvent
  PRIMARY KEY(job_id, sequence)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoints(   -- MSM progress of running jobs (plan/checkpoint.hpp)
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  round INTEGER NOT NULL,
  binding BLOB NOT NULL,
  chunks_done INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  chunk_points INTEGER NOT NULL,
  partial_sum BLOB NOT NULL,
  PRIMARY KEY(job_id, round)) WITHOUT ROWID;
)sql";

constexpr char kJobColumns[] =
    "id, request_id, priority, state, zkey_name, input_size, created_ns, started_ns, "
    "finished_ns, deadline_ns, attempts, error_code, error_message, proof_json, public_json, seq, "
    "spec, result";

// While alive, every commit is on disk when it returns (synchronous=FULL; in WAL mode the fsync
// of the log also covers the NORMAL commits before it).
class DurableCommits {
 public:
  explicit DurableCommits(sqlite::Database& db) : db_(db) {
    (void)db_.Execute("PRAGMA synchronous=FULL");
  }
  ~DurableCommits() { (void)db_.Execute("PRAGMA synchronous=NORMAL"); }
  DurableCommits(const DurableCommits&) = delete;
  DurableCommits& operator=(const DurableCommits&) = delete;

 private:
  sqlite::Database& db_;
};

}  // namespace

SqliteJobStore::LockFd::~LockFd() {
  if (fd >= 0) ::close(fd);
}

absl::StatusOr<std::unique_ptr<SqliteJobStore>> SqliteJobStore::Open(
    const std::filesystem::path& data_dir) {
  const std::filesystem::path lock_path = data_dir / "jobs.lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(lock_path.string(), ": cannot open: ", std::strerror(errno)));
  }
  LockFd lock{lock_fd};  // closes it on every early return
  // flock: per open file description, released by the kernel when the process dies.
  if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--data-dir ", data_dir.string(), ": in use by another provd (",
                     lock_path.string(), " is locked); one daemon per data dir"));
  }
  std::filesystem::path spool = data_dir / "spool";
  std::error_code ec;
  std::filesystem::create_directories(spool, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(spool.string(), ": cannot create the spool directory: ", ec.message()));
  }
  std::filesystem::permissions(spool, std::filesystem::perms(0700),
                               std::filesystem::perm_options::replace, ec);
  absl::StatusOr<sqlite::Database> db = sqlite::Database::Open(data_dir / "jobs.sqlite3");
  if (!db.ok()) return db.status();
  lock.fd = -1;  // the store owns it from here
  std::unique_ptr<SqliteJobStore> store(
      new SqliteJobStore(lock_fd, *std::move(db), std::move(spool)));
  if (absl::Status s = store->InitSchema(); !s.ok()) return s;
  if (absl::Status s = store->RemoveOrphanSpoolFiles(); !s.ok()) return s;
  return store;
}

absl::Status SqliteJobStore::InitSchema() {
  // WAL: readers (GetJob, WatchJob) never block the writer. synchronous=NORMAL by default:
  // progress events and MSM checkpoints are consistent after any crash and survive a crash of
  // the process, but the last of them may be lost with the machine's power; the commits that
  // promise something (acceptance, the final state) run with synchronous=FULL (DurableCommits).
  if (absl::Status s = db_.Execute(
          "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = db_.Execute(kSchema); !s.ok()) return s;
  absl::StatusOr<sqlite::Statement> version =
      db_.Prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.ok()) return version.status();
  absl::StatusOr<bool> row = version->Step();
  if (!row.ok()) return row.status();
  if (!*row) {
    absl::StatusOr<sqlite::Statement> insert =
        db_.Prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?)");
    if (!insert.ok()) return insert.status();
    return insert->Bind(1, absl::StrCat(kSchemaVersion)).Run();
  }
  int found = 0;
  if (!absl::SimpleAtoi(version->Text(0), &found) || found < 1 || found > kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(db_.path(), ": job store schema version ",
                                                      version->Text(0), " is not one this provd ",
                                                      "understands (1 to ", kSchemaVersion, ")"));
  }
  if (found == kSchemaVersion) return absl::OkStatus();
  // All steps in one transaction: a crash mid-migration leaves the old version intact.
  absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
  if (!tx.ok()) return tx.status();
  for (int from = found; from < kSchemaVersion; ++from) {
    if (absl::Status s = db_.Execute(kMigrations[from - 1]); !s.ok()) return s;
  }
  absl::StatusOr<sqlite::Statement> update =
      db_.Prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'");
  if (!update.ok()) return update.status();
  if (absl::Status s = update->Bind(1, absl::StrCat(kSchemaVersion)).Run(); !s.ok()) return s;
  if (absl::Status s = tx->Commit(); !s.ok()) return s;
  spdlog::info("{}: job store migrated from schema version {} to {}", db_.path(), found,
               kSchemaVersion);
  return absl::OkStatus();
}

absl::Status SqliteJobStore::RemoveOrphanSpoolFiles() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(spool_dir_, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string id = name.substr(0, name.find('.'));
    absl::StatusOr<sqlite::Statement> query = db_.Prepare("SELECT state FROM jobs WHERE id = ?");
    if (!query.ok()) return query.status();
    absl::StatusOr<bool> row = query->Bind(1, id).Step();
    if (!row.ok()) return row.status();
    // Temp files of an interrupted write, witnesses never committed, and witnesses of jobs that
    // ended but whose file removal did not happen before a crash.
    const bool keep =
        *row && name == id + ".wtns" && !IsFinalState(static_cast<JobState>(query->Int(0)));
    if (!keep) std::filesystem::remove(entry.path(), ec);
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(spool_dir_.string(), ": cannot read the spool: ", ec.message()));
  }
  return absl::OkStatus();
}

std::filesystem::path SqliteJobStore::WitnessPath(const std::string& id) const {
  return spool_dir_ / (id + ".wtns");
}

absl::StatusOr<std::optional<Job>> SqliteJobStore::FindByRequestIdLocked(
    const std::string& request_id) {
  absl::StatusOr<sqlite::Statement> query = db_.Prepare("SELECT id FROM jobs WHERE request_id = ?");
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = query->Bind(1, request_id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<Job> job = GetLocked(query->Text(0), /*full=*/true);
  if (!job.ok()) return job.status();
  return *std::move(job);
}

absl::StatusOr<SubmitOutcome> SqliteJobStore::Submit(const JobSubmission& submission) {
  if (!submission.request_id.empty()) {
    std::lock_guard lock(mutex_);
    absl::StatusOr<std::optional<Job>> existing = FindByRequestIdLocked(submission.request_id);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) return SubmitOutcome{**std::move(existing), true, 0};
  }
  // The witness goes to disk outside the lock: a large fsync must not stall other requests.
  const std::string id = NewJobId();
  const std::filesystem::path witness_path = WitnessPath(id);
  if (absl::Status s = WriteFileDurably(witness_path, submission.witness, 0600); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot spool the witness: ", s.message()));
  }
  auto drop_witness = [&] {
    std::error_code ec;
    std::filesystem::remove(witness_path, ec);
  };

  std::lock_guard lock(mutex_);
  DurableCommits durable(db_);
  if (!submission.request_id.empty()) {
    // A concurrent submission with the same request_id may have committed meanwhile.
    absl::StatusOr<std::optional<Job>> existing = FindByRequestIdLocked(submission.request_id);
    if (!existing.ok() || existing->has_value()) drop_witness();
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) return SubmitOutcome{**std::move(existing), true, 0};
  }
  const absl::Time now = absl::Now();
  int64_t order = 0;
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
    if (!tx.ok()) return tx.status();
    absl::StatusOr<sqlite::Statement> insert = db_.Prepare(
        "INSERT INTO jobs(id, request_id, priority, state, zkey_name, input_size, seed, "
        "created_ns, deadline_ns, spec, memory_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING seq");
    if (!insert.ok()) return insert.status();
    insert->Bind(1, id)
        .Bind(3, int64_t{submission.priority})
        .Bind(4, int64_t{provd::v1::JOB_STATE_QUEUED})
        .Bind(5, submission.zkey_name)
        .Bind(6, static_cast<int64_t>(submission.witness.empty() ? submission.referenced_input_size
                                                                 : submission.witness.size()))
        .BindBlob(7, submission.seed)
        .Bind(8, absl::ToUnixNanos(now));
    if (submission.request_id.empty()) {
      insert->BindNull(2);
    } else {
      insert->Bind(2, submission.request_id);
    }
    insert->Bind(9, submission.deadline
                        ? std::optional<int64_t>(absl::ToInt64Nanoseconds(*submission.deadline))
                        : std::nullopt);
    // Every kind keeps its spec (a Groth16 job's witness_name lives there); rows of schema
    // version 1 have none and are described by zkey_name.
    insert->BindBlob(10, submission.spec.SerializeAsString());
    insert->Bind(11, static_cast<int64_t>(submission.memory_bytes));
    absl::StatusOr<bool> row = insert->Step();
    if (!row.ok()) return row.status();
    order = insert->Int(0);
    if (absl::Status s = insert->Run(); !s.ok()) return s;
    JobEvent queued;
    queued.mutable_queued()->set_requeued(false);
    if (auto appended = AppendLocked(id, std::move(queued), now); !appended.ok()) {
      return appended.status();
    }
    return tx->Commit();
  }();
  if (!status.ok()) {
    drop_witness();
    return status;
  }
  absl::StatusOr<Job> job = GetLocked(id, /*full=*/true);
  if (!job.ok()) return job.status();
  return SubmitOutcome{*std::move(job), false, order};
}

absl::StatusOr<std::optional<Job>> SqliteJobStore::FindByRequestId(const std::string& request_id) {
  std::lock_guard lock(mutex_);
  return FindByRequestIdLocked(request_id);
}

absl::StatusOr<std::vector<JobEvent>> SqliteJobStore::EventsLocked(const std::string& id,
                                                                   uint64_t from_sequence) {
  absl::StatusOr<sqlite::Statement> query =
      db_.Prepare("SELECT body FROM events WHERE job_id = ? AND sequence >= ? ORDER BY sequence");
  if (!query.ok()) return query.status();
  query->Bind(1, id).Bind(2, static_cast<int64_t>(std::min<uint64_t>(from_sequence, INT64_MAX)));
  std::vector<JobEvent> events;
  for (;;) {
    absl::StatusOr<bool> row = query->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (!events.emplace_back().ParseFromString(query->Blob(0))) {
      return absl::DataLossError(absl::StrCat("job ", id, ": an event does not parse"));
    }
  }
  return events;
}

absl::StatusOr<Job> SqliteJobStore::GetLocked(const std::string& id, bool full) {
  absl::StatusOr<sqlite::Statement> query =
      db_.Prepare(absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE id = ?"));
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = query->Bind(1, id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return JobNotFound(id);
  Job job = JobFromRow(*query, full);
  if (full) {
    absl::StatusOr<std::vector<JobEvent>> all = EventsLocked(id, 1);
    if (!all.ok()) return all.status();
    RoundsFromEvents(*all, job);
  }
  return job;
}

absl::StatusOr<Job> SqliteJobStore::Get(const std::string& id) {
  std::lock_guard lock(mutex_);
  return GetLocked(id, /*full=*/true);
}

absl::StatusOr<JobListPage> SqliteJobStore::List(const std::vector<JobState>& states,
                                                 provd::v1::Priority priority, uint32_t page_size,
                                                 const std::string& page_token) {
  absl::StatusOr<int64_t> before = OrderBeforePageToken(page_token);
  if (!before.ok()) return before.status();
  const uint32_t limit = PageLimit(page_size);
  const std::string sql = absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE seq < ?",
                                       ListFilterAndOrder(states, priority, limit));

  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> query = db_.Prepare(sql);
  if (!query.ok()) return query.status();
  query->Bind(1, *before);
  JobListPage page;
  int64_t last_seq = 0;
  for (;;) {
    absl::StatusOr<bool> row = query->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (page.jobs.size() == limit) {
      page.next_page_token = PageToken(last_seq);
      break;
    }
    page.jobs.push_back(JobFromRow(*query, /*full=*/false));
    last_seq = query->Int(15);
  }
  return page;
}

absl::StatusOr<JobState> SqliteJobStore::State(const std::string& id) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> query = db_.Prepare("SELECT state FROM jobs WHERE id = ?");
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = query->Bind(1, id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return JobNotFound(id);
  return static_cast<JobState>(query->Int(0));
}

absl::StatusOr<std::vector<JobEvent>> SqliteJobStore::Events(const std::string& id,
                                                             uint64_t from_sequence) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> exists = db_.Prepare("SELECT 1 FROM jobs WHERE id = ?");
  if (!exists.ok()) return exists.status();
  absl::StatusOr<bool> found = exists->Bind(1, id).Step();
  if (!found.ok()) return found.status();
  if (!*found) return JobNotFound(id);
  return EventsLocked(id, from_sequence);
}

absl::StatusOr<uint64_t> SqliteJobStore::AppendLocked(const std::string& id, JobEvent event,
                                                      absl::Time now) {
  absl::StatusOr<sqlite::Statement> bump =
      db_.Prepare("UPDATE jobs SET last_event = last_event + 1 WHERE id = ? RETURNING last_event");
  if (!bump.ok()) return bump.status();
  absl::StatusOr<bool> row = bump->Bind(1, id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return JobNotFound(id);
  const auto sequence = static_cast<uint64_t>(bump->Int(0));
  if (absl::Status s = bump->Run(); !s.ok()) return s;  // finish the UPDATE
  event.set_job_id(id);
  event.set_sequence(sequence);
  *event.mutable_time() = TimestampFromUnixNanos(absl::ToUnixNanos(now));
  absl::StatusOr<sqlite::Statement> insert =
      db_.Prepare("INSERT INTO events(job_id, sequence, body) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  if (absl::Status s = insert->Bind(1, id)
                           .Bind(2, static_cast<int64_t>(sequence))
                           .BindBlob(3, event.SerializeAsString())
                           .Run();
      !s.ok()) {
    return s;
  }
  return sequence;
}

absl::StatusOr<uint64_t> SqliteJobStore::Append(const std::string& id, JobEvent event) {
  return AppendCommitted(id, std::move(event), /*drop_checkpoints=*/false);
}

absl::StatusOr<uint64_t> SqliteJobStore::AppendRejection(const std::string& id, JobEvent event) {
  return AppendCommitted(id, std::move(event), /*drop_checkpoints=*/true);
}

absl::StatusOr<uint64_t> SqliteJobStore::AppendCommitted(const std::string& id, JobEvent event,
                                                         bool drop_checkpoints) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
  if (!tx.ok()) return tx.status();
  absl::StatusOr<uint64_t> sequence = AppendLocked(id, std::move(event), absl::Now());
  if (!sequence.ok()) return sequence.status();
  if (drop_checkpoints) {
    if (absl::Status s = DropCheckpointsLocked(id); !s.ok()) return s;
  }
  if (absl::Status s = tx->Commit(); !s.ok()) return s;
  return sequence;
}

absl::Status SqliteJobStore::DropCheckpointsLocked(const std::string& id) {
  absl::StatusOr<sqlite::Statement> drop = db_.Prepare("DELETE FROM checkpoints WHERE job_id = ?");
  if (!drop.ok()) return drop.status();
  return drop->Bind(1, id).Run();
}

absl::Status SqliteJobStore::SetStateLocked(const std::string& id, JobState from, JobState to) {
  absl::StatusOr<sqlite::Statement> update =
      db_.Prepare("UPDATE jobs SET state = ? WHERE id = ? AND state = ?");
  if (!update.ok()) return update.status();
  if (absl::Status s = update->Bind(1, int64_t{to}).Bind(2, id).Bind(3, int64_t{from}).Run();
      !s.ok()) {
    return s;
  }
  if (db_.changes() == 1) return absl::OkStatus();
  absl::StatusOr<Job> job = GetLocked(id, /*full=*/false);
  if (!job.ok()) return job.status();
  return absl::FailedPreconditionError(absl::StrCat("job ", id, " is ",
                                                    provd::v1::JobState_Name(job->state()),
                                                    ", not ", provd::v1::JobState_Name(from)));
}

absl::StatusOr<StartedJob> SqliteJobStore::Start(const std::string& id) {
  std::lock_guard lock(mutex_);
  const absl::Time now = absl::Now();
  absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
  if (!tx.ok()) return tx.status();
  if (absl::Status s =
          SetStateLocked(id, provd::v1::JOB_STATE_QUEUED, provd::v1::JOB_STATE_RUNNING);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<sqlite::Statement> update = db_.Prepare(
      "UPDATE jobs SET attempts = attempts + 1, started_ns = ? WHERE id = ? "
      "RETURNING attempts, priority, zkey_name, seed, spec");
  if (!update.ok()) return update.status();
  absl::StatusOr<bool> row = update->Bind(1, absl::ToUnixNanos(now)).Bind(2, id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return JobNotFound(id);
  StartedJob started{id,
                     static_cast<provd::v1::Priority>(update->Int(1)),
                     update->Text(2),
                     update->Blob(3),
                     static_cast<uint32_t>(update->Int(0)),
                     SpecFromStored(update->Blob(4), update->Text(2))};
  if (absl::Status s = update->Run(); !s.ok()) return s;
  JobEvent event;
  event.mutable_started()->set_attempt(started.attempt);
  if (auto appended = AppendLocked(id, std::move(event), now); !appended.ok()) {
    return appended.status();
  }
  if (absl::Status s = tx->Commit(); !s.ok()) return s;
  return started;
}

absl::StatusOr<Job> SqliteJobStore::Finish(const std::string& id, const JobEnding& ending) {
  std::lock_guard lock(mutex_);
  DurableCommits durable(db_);
  const absl::Time now = absl::Now();
  {
    absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
    if (!tx.ok()) return tx.status();
    absl::StatusOr<sqlite::Statement> update = db_.Prepare(
        "UPDATE jobs SET state = ?, finished_ns = ?, error_code = ?, error_message = ?, "
        "proof_json = ?, public_json = ?, result = ? WHERE id = ? AND state IN (?, ?)");
    if (!update.ok()) return update.status();
    const bool succeeded = ending.state == provd::v1::JOB_STATE_SUCCEEDED;
    update->Bind(1, int64_t{ending.state}).Bind(2, absl::ToUnixNanos(now));
    if (succeeded) {
      update->BindNull(3).BindNull(4);
      update->Bind(5, ending.result.proof_json()).Bind(6, ending.result.public_json());
      update->BindBlob(7, ending.result.SerializeAsString());
    } else {
      update->Bind(3, static_cast<int64_t>(ending.error.code()))
          .Bind(4, ending.error.message())
          .BindNull(5)
          .BindNull(6)
          .BindNull(7);
    }
    update->Bind(8, id)
        .Bind(9, int64_t{provd::v1::JOB_STATE_QUEUED})
        .Bind(10, int64_t{provd::v1::JOB_STATE_RUNNING});
    if (absl::Status s = update->Run(); !s.ok()) return s;
    if (db_.changes() != 1) {
      absl::StatusOr<Job> job = GetLocked(id, /*full=*/false);
      if (!job.ok()) return job.status();
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", id, " has already ended (", provd::v1::JobState_Name(job->state()), ")"));
    }
    if (auto appended = AppendLocked(id, FinalEvent(ending), now); !appended.ok()) {
      return appended.status();
    }
    if (absl::Status s = DropCheckpointsLocked(id); !s.ok()) return s;
    if (absl::Status s = tx->Commit(); !s.ok()) return s;
  }
  // The witness is a secret of the client's: gone as soon as nothing needs it. A crash before
  // this line leaves the file to RemoveOrphanSpoolFiles.
  std::error_code ec;
  std::filesystem::remove(WitnessPath(id), ec);
  return GetLocked(id, /*full=*/true);
}

absl::Status SqliteJobStore::RequeueLocked(const std::string& id, absl::Time now) {
  if (absl::Status s =
          SetStateLocked(id, provd::v1::JOB_STATE_RUNNING, provd::v1::JOB_STATE_QUEUED);
      !s.ok()) {
    return s;
  }
  JobEvent event;
  event.mutable_queued()->set_requeued(true);
  return AppendLocked(id, std::move(event), now).status();
}

absl::Status SqliteJobStore::Requeue(const std::string& id) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
  if (!tx.ok()) return tx.status();
  if (absl::Status s = RequeueLocked(id, absl::Now()); !s.ok()) return s;
  return tx->Commit();
}

absl::StatusOr<std::vector<QueuedJob>> SqliteJobStore::RecoverQueued() {
  std::lock_guard lock(mutex_);
  std::set<std::string> interrupted_ids;
  {
    absl::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::Begin(db_);
    if (!tx.ok()) return tx.status();
    absl::StatusOr<sqlite::Statement> running =
        db_.Prepare("SELECT id FROM jobs WHERE state = ? ORDER BY seq");
    if (!running.ok()) return running.status();
    running->Bind(1, int64_t{provd::v1::JOB_STATE_RUNNING});
    for (;;) {
      absl::StatusOr<bool> row = running->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      interrupted_ids.insert(running->Text(0));
    }
    const absl::Time now = absl::Now();
    for (const std::string& id : interrupted_ids) {
      if (absl::Status s = RequeueLocked(id, now); !s.ok()) return s;
    }
    if (absl::Status s = tx->Commit(); !s.ok()) return s;
  }
  absl::StatusOr<sqlite::Statement> queued = db_.Prepare(
      "SELECT id, priority, seq, created_ns, deadline_ns, spec, zkey_name, memory_bytes "
      "FROM jobs WHERE state = ? ORDER BY seq");
  if (!queued.ok()) return queued.status();
  queued->Bind(1, int64_t{provd::v1::JOB_STATE_QUEUED});
  std::vector<QueuedJob> jobs;
  for (;;) {
    absl::StatusOr<bool> row = queued->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    QueuedJob& job = jobs.emplace_back();
    job.id = queued->Text(0);
    job.priority = static_cast<provd::v1::Priority>(queued->Int(1));
    job.order = queued->Int(2);
    job.accepted_at = absl::FromUnixNanos(queued->Int(3));
    job.kind = JobKindLabel(SpecFromStored(queued->Blob(5), queued->Text(6)));
    if (auto deadline = queued->OptionalInt(4)) {
      job.expires_at = job.accepted_at + absl::Nanoseconds(*deadline);
    }
    job.requeued = interrupted_ids.contains(job.id);
    job.memory_bytes = static_cast<uint64_t>(queued->Int(7));
  }
  return jobs;
}

absl::Status SqliteJobStore::SaveCheckpoint(const std::string& id, int round,
                                            absl::string_view binding,
                                            const plan::MsmProgress& progress) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> upsert = db_.Prepare(
      "INSERT OR REPLACE INTO checkpoints(job_id, round, binding, chunks_done, chunk_count, "
      "chunk_points, partial_sum) VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (!upsert.ok()) return upsert.status();
  return upsert->Bind(1, id)
      .Bind(2, int64_t{round})
      .BindBlob(3, binding)
      .Bind(4, static_cast<int64_t>(progress.chunks_done))
      .Bind(5, static_cast<int64_t>(progress.chunk_count))
      .Bind(6, static_cast<int64_t>(progress.chunk_points))
      .BindBlob(7, progress.partial_sum)
      .Run();
}

absl::StatusOr<std::optional<plan::MsmProgress>> SqliteJobStore::LoadCheckpoint(
    const std::string& id, int round, absl::string_view binding) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> query = db_.Prepare(
      "SELECT binding, chunks_done, chunk_count, chunk_points, partial_sum FROM checkpoints "
      "WHERE job_id = ? AND round = ?");
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = query->Bind(1, id).Bind(2, int64_t{round}).Step();
  if (!row.ok()) return row.status();
  if (!*row || query->Blob(0) != binding) return std::nullopt;
  return plan::MsmProgress{static_cast<size_t>(query->Int(1)), static_cast<size_t>(query->Int(2)),
                           static_cast<size_t>(query->Int(3)), query->Blob(4)};
}

absl::StatusOr<std::string> SqliteJobStore::ReadWitness(const std::string& id) {
  std::string path = WitnessPath(id).string();
  FILE* file = std::fopen(path.c_str(), "rbe");
  if (file == nullptr) {
    return absl::DataLossError(absl::StrCat("job ", id, ": the spooled witness ", path,
                                            " cannot be read: ", std::strerror(errno)));
  }
  std::string bytes;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) bytes.append(buffer, n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return absl::DataLossError(absl::StrCat("job ", id, ": cannot read ", path));
  return bytes;
}

absl::StatusOr<int64_t> SqliteJobStore::CountInState(JobState state) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> query =
      db_.Prepare("SELECT COUNT(*) FROM jobs WHERE state = ?");
  if (!query.ok()) return query.status();
  absl::StatusOr<bool> row = query->Bind(1, int64_t{state}).Step();
  if (!row.ok()) return row.status();
  return query->Int(0);
}

absl::StatusOr<int64_t> SqliteJobStore::RemoveFinishedBefore(absl::Time cutoff) {
  std::lock_guard lock(mutex_);
  absl::StatusOr<sqlite::Statement> remove = db_.Prepare(
      "DELETE FROM jobs WHERE finished_ns IS NOT NULL AND finished_ns < ? AND state IN (?, ?, ?)");
  if (!remove.ok()) return remove.status();
  if (absl::Status s = remove->Bind(1, absl::ToUnixNanos(cutoff))
                           .Bind(2, int64_t{provd::v1::JOB_STATE_SUCCEEDED})
                           .Bind(3, int64_t{provd::v1::JOB_STATE_FAILED})
                           .Bind(4, int64_t{provd::v1::JOB_STATE_CANCELLED})
                           .Run();
      !s.ok()) {
    return s;
  }
  return db_.changes();
}

}  // namespace provd::daemon
