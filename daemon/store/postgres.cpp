#include "daemon/store/postgres.hpp"

#include <libpq-fe.h>

#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace provd::daemon::postgres {
namespace {

// Type OIDs of the binary results read here (catalog/pg_type.dat; stable across versions).
constexpr unsigned kBoolOid = 16;
constexpr unsigned kInt8Oid = 20;
constexpr unsigned kInt2Oid = 21;
constexpr unsigned kInt4Oid = 23;

std::string Trimmed(const char* message) {
  return std::string(absl::StripTrailingAsciiWhitespace(message != nullptr ? message : ""));
}

absl::Status ConnectionError(pg_conn* conn, absl::string_view what) {
  return absl::UnavailableError(
      absl::StrCat("postgres: ", what, ": ", Trimmed(PQerrorMessage(conn))));
}

// The status for a failed statement, from its SQLSTATE (PostgreSQL's appendix A).
absl::Status StatementError(pg_conn* conn, const pg_result* result, absl::string_view what) {
  if (result == nullptr || PQstatus(conn) != CONNECTION_OK) {
    return ConnectionError(conn, what);
  }
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const std::string sqlstate = state != nullptr ? state : "";
  std::string text = absl::StrCat("postgres: ", what, ": ", Trimmed(PQresultErrorMessage(result)));
  if (!sqlstate.empty()) absl::StrAppend(&text, " (SQLSTATE ", sqlstate, ")");
  // 08: connection exception; 57P01-03: the server is shutting down or starting; 53: out of
  // resources (disk full, too many connections).
  if (absl::StartsWith(sqlstate, "08") || absl::StartsWith(sqlstate, "57P") ||
      absl::StartsWith(sqlstate, "53")) {
    return absl::UnavailableError(text);
  }
  if (sqlstate == "40001" || sqlstate == "40P01") return absl::AbortedError(text);
  if (sqlstate == "23505") return absl::AlreadyExistsError(text);
  return absl::InternalError(text);
}

// A statement's result that is no error (with or without rows). Null: out of memory, or the
// connection failed.
bool Succeeded(const pg_result* result) {
  if (result == nullptr) return false;
  const ExecStatusType status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

std::string Abbreviated(absl::string_view sql) {
  constexpr size_t kShown = 60;
  std::string shown(sql.substr(0, kShown));
  for (char& c : shown) {
    if (c == '\n') c = ' ';
  }
  return sql.size() > kShown ? absl::StrCat(shown, "...") : shown;
}

}  // namespace

Params& Params::Add(int64_t value) {
  values_.push_back(absl::StrCat(value));
  null_.push_back(false);
  binary_.push_back(0);
  return *this;
}

Params& Params::Add(absl::string_view text) {
  values_.emplace_back(text);
  null_.push_back(false);
  binary_.push_back(0);
  return *this;
}

Params& Params::AddBytes(absl::string_view bytes) {
  values_.emplace_back(bytes);
  null_.push_back(false);
  binary_.push_back(1);
  return *this;
}

Params& Params::AddNull() {
  values_.emplace_back();
  null_.push_back(true);
  binary_.push_back(0);
  return *this;
}

Result::Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}

int Result::rows() const { return PQntuples(result_); }

int64_t Result::affected() const {
  const char* count = PQcmdTuples(result_);
  int64_t n = 0;
  for (const char* c = count; *c >= '0' && *c <= '9'; ++c) n = n * 10 + (*c - '0');
  return n;
}

bool Result::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

int64_t Result::Int(int row, int column) const {
  if (IsNull(row, column)) return 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column));
  const int length = PQgetlength(result_, row, column);
  // Binary integers are big-endian two's complement of their type's width.
  uint64_t value = 0;
  for (int i = 0; i < length; ++i) value = (value << 8) | bytes[i];
  switch (PQftype(result_, column)) {
    case kBoolOid:
      return value != 0;
    case kInt2Oid:
      return static_cast<int16_t>(value);
    case kInt4Oid:
      return static_cast<int32_t>(value);
    case kInt8Oid:
    default:
      return static_cast<int64_t>(value);
  }
}

std::optional<int64_t> Result::OptionalInt(int row, int column) const {
  if (IsNull(row, column)) return std::nullopt;
  return Int(row, column);
}

std::string Result::Bytes(int row, int column) const {
  if (IsNull(row, column)) return {};
  return std::string(PQgetvalue(result_, row, column),
                     static_cast<size_t>(PQgetlength(result_, row, column)));
}

absl::StatusOr<Connection> Connection::Open(const std::string& conninfo) {
  // Defaults first: the expanded conninfo ("dbname", last) overrides any of them. A database
  // outage must surface as an error within seconds, not as a call blocked on a dead socket.
  const char* keywords[] = {"connect_timeout",
                            "keepalives_idle",
                            "keepalives_interval",
                            "keepalives_count",
                            "application_name",
                            "dbname",
                            nullptr};
  const char* values[] = {"5", "10", "5", "3", "provd", conninfo.c_str(), nullptr};
  Connection connection(PQconnectdbParams(keywords, values, /*expand_dbname=*/1));
  if (connection.conn_ == nullptr) {
    return absl::ResourceExhaustedError("postgres: out of memory for a connection");
  }
  if (PQstatus(connection.conn_) != CONNECTION_OK) {
    return ConnectionError(connection.conn_,
                           absl::StrCat("cannot connect to ", RedactedConninfo(conninfo)));
  }
  // Notices (a CREATE ... IF NOT EXISTS that found the table) are not worth a log line.
  PQsetNoticeProcessor(
      connection.conn_, [](void*, const char*) {}, nullptr);
  return connection;
}

Connection::Connection(Connection&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

Connection::~Connection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

absl::Status Connection::Execute(absl::string_view sql) {
  const std::string text(sql);
  Result result(PQexec(conn_, text.c_str()));
  if (Succeeded(result.result_)) return absl::OkStatus();
  return StatementError(conn_, result.result_, absl::StrCat("\"", Abbreviated(sql), "\""));
}

absl::StatusOr<Result> Connection::Query(absl::string_view sql, const Params& params) {
  const std::string text(sql);
  const size_t n = params.values_.size();
  std::vector<const char*> values(n);
  std::vector<int> lengths(n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = params.null_[i] ? nullptr : params.values_[i].data();
    lengths[i] = static_cast<int>(params.values_[i].size());
  }
  Result result(PQexecParams(conn_, text.c_str(), static_cast<int>(n), /*paramTypes=*/nullptr,
                             values.data(), lengths.data(), params.binary_.data(),
                             /*resultFormat=binary*/ 1));
  if (Succeeded(result.result_)) return result;
  return StatementError(conn_, result.result_, absl::StrCat("\"", Abbreviated(sql), "\""));
}

bool Connection::healthy() const { return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK; }

bool Connection::reusable() const {
  return healthy() && PQtransactionStatus(conn_) == PQTRANS_IDLE;
}

bool Connection::CheckAlive() {
  // A server ending the session sends a FATAL error and then closes the socket. The first read
  // may take only the error (which libpq, idle, treats as a notice); the end of the stream,
  // which marks the connection broken, shows on the next one. On a live idle connection both
  // reads find nothing and cost a poll each.
  for (int read = 0; read < 2 && healthy(); ++read) {
    if (PQconsumeInput(conn_) != 1) return false;
    (void)PQisBusy(conn_);  // parses what came
  }
  return healthy();
}

absl::Status Connection::Reset() {
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) return ConnectionError(conn_, "reconnect");
  return absl::OkStatus();
}

absl::StatusOr<Transaction> Transaction::Begin(Connection& connection) {
  if (absl::Status s = connection.Execute("BEGIN"); !s.ok()) return s;
  return Transaction(&connection);
}

Transaction::~Transaction() {
  if (connection_ != nullptr && connection_->healthy()) (void)connection_->Execute("ROLLBACK");
}

absl::Status Transaction::Commit() {
  absl::Status status = connection_->Execute("COMMIT");
  connection_ = nullptr;  // committed, or rolled back by the server on failure
  return status;
}

Pool::Pool(std::string conninfo, size_t size, std::function<absl::Status(Connection&)> on_connect)
    : conninfo_(std::move(conninfo)), size_(size), on_connect_(std::move(on_connect)) {}

absl::StatusOr<Pool::Lease> Pool::Acquire() {
  {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [&] { return !idle_.empty() || open_ < size_; });
    // (after the loop below, open_ < size_: a slot is free for a new connection)
    while (!idle_.empty()) {
      Connection connection = std::move(idle_.back());
      idle_.pop_back();
      if (connection.CheckAlive()) return Lease(this, std::move(connection));
      --open_;  // the server went away since: this one is closed, another opened below
    }
    ++open_;  // a slot for the connection opened below, outside the lock
  }
  absl::StatusOr<Connection> connection = Connection::Open(conninfo_);
  absl::Status status = connection.status();
  if (status.ok() && on_connect_) status = on_connect_(*connection);
  if (!status.ok()) {
    std::lock_guard lock(mutex_);
    --open_;
    returned_.notify_one();
    return status;
  }
  return Lease(this, *std::move(connection));
}

void Pool::Release(Connection connection) {
  std::lock_guard lock(mutex_);
  if (connection.reusable()) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;  // closed as it goes out of scope; the next Acquire opens a fresh one
  }
  returned_.notify_one();
}

Pool::Lease::~Lease() {
  if (pool_ != nullptr && connection_.has_value()) pool_->Release(std::move(*connection_));
}

std::string RedactedConninfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "(a connection string that does not parse)";
  }
  std::string shown;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr || std::strcmp(option->keyword, "password") == 0) continue;
    absl::StrAppend(&shown, shown.empty() ? "" : " ", option->keyword, "=", option->val);
  }
  PQconninfoFree(options);
  return shown.empty() ? "(libpq's defaults)" : shown;
}

bool IsPostgresUri(absl::string_view store) {
  return absl::StartsWith(store, "postgres://") || absl::StartsWith(store, "postgresql://");
}

}  // namespace provd::daemon::postgres
