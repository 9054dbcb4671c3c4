// A thin RAII layer over libpq: a connection, parameters sent as text or raw bytes, results
// read in binary (so a bytea column arrives as its bytes, not as hex), and transactions that
// roll back unless committed. Errors are absl::Status, decided once from the SQLSTATE:
// UNAVAILABLE when the server cannot be reached or is shutting down (the daemon retries and
// reconnects), ABORTED for a serialization failure or deadlock (the transaction may be run
// again), ALREADY_EXISTS for a unique violation, INTERNAL for the rest; the message names what
// was being done and carries the server's own words.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct pg_conn;
struct pg_result;

namespace provd::daemon::postgres {

// Statement parameters ($1, $2, ...), in order. Integers and text travel as text (the server
// infers their types from the statement); bytes travel in binary, so a 16 MiB witness chunk is
// sent as is.
class Params {
 public:
  Params& Add(int64_t value);
  Params& Add(absl::string_view text);
  Params& Add(const char* text) { return Add(absl::string_view(text)); }
  Params& Add(const std::string& text) { return Add(absl::string_view(text)); }
  Params& AddBytes(absl::string_view bytes);
  Params& AddNull();
  Params& Add(const std::optional<int64_t>& value) {
    return value.has_value() ? Add(*value) : AddNull();
  }

 private:
  friend class Connection;
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> binary_;
};

// One statement's outcome, all rows in memory.
class Result {
 public:
  Result(Result&& other) noexcept;
  Result& operator=(Result&& other) noexcept;
  ~Result();

  int rows() const;
  // Rows an INSERT, UPDATE or DELETE touched.
  int64_t affected() const;

  bool IsNull(int row, int column) const;
  // int2, int4, int8 or bool columns.
  int64_t Int(int row, int column) const;
  std::optional<int64_t> OptionalInt(int row, int column) const;
  // text or bytea columns: the raw bytes; empty for NULL.
  std::string Bytes(int row, int column) const;

 private:
  friend class Connection;
  explicit Result(pg_result* result) : result_(result) {}
  pg_result* result_ = nullptr;
};

class Connection {
 public:
  // `conninfo` is a libpq connection string or a postgres:// URI: host, port, dbname, user,
  // sslmode, passfile and the rest are libpq's, as is the password from PGPASSWORD or
  // ~/.pgpass. provd sets a connect timeout of 5 s and TCP keepalives, which the string
  // overrides. UNAVAILABLE when the server cannot be reached.
  static absl::StatusOr<Connection> Open(const std::string& conninfo);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();

  // Runs one or more statements without parameters (schema, BEGIN/COMMIT, SET).
  absl::Status Execute(absl::string_view sql);
  absl::StatusOr<Result> Query(absl::string_view sql, const Params& params = {});

  // False once the connection broke (the server restarted, the network failed); Reset then
  // reconnects with the same settings.
  bool healthy() const;
  // Healthy and outside any transaction: fit to hand to the pool's next user.
  bool reusable() const;
  // Reads what the server sent an idle connection, without a round trip: a server that shut
  // down or ended this session (pg_terminate_backend) has said so, and the connection then
  // reads as broken. False when it is.
  bool CheckAlive();
  absl::Status Reset();

 private:
  explicit Connection(pg_conn* conn) : conn_(conn) {}
  pg_conn* conn_ = nullptr;
};

// One row of a Result, read like an sqlite::Statement (so that one template reads both).
class Row {
 public:
  Row(const Result& result, int row) : result_(result), row_(row) {}
  int64_t Int(int column) const { return result_.Int(row_, column); }
  std::optional<int64_t> OptionalInt(int column) const { return result_.OptionalInt(row_, column); }
  std::string Text(int column) const { return result_.Bytes(row_, column); }
  std::string Blob(int column) const { return result_.Bytes(row_, column); }

 private:
  const Result& result_;
  int row_;
};

// BEGIN on construction; ROLLBACK on destruction unless Commit() succeeded, so an early return
// never leaves a transaction open on a pooled connection.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(Connection& connection);
  Transaction(Transaction&& other) noexcept : connection_(other.connection_) {
    other.connection_ = nullptr;
  }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(Connection* connection) : connection_(connection) {}
  Connection* connection_;
};

// Connections to one database, opened on demand up to `size` and reused. One that broke is
// dropped when it comes back, so the next Acquire connects afresh: a restarted server costs the
// calls in flight, not the daemon.
class Pool {
 public:
  // `on_connect` runs on every new connection before its first use (session settings).
  Pool(std::string conninfo, size_t size, std::function<absl::Status(Connection&)> on_connect);
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // A connection for the holder alone; back to the pool when it goes out of scope.
  class Lease {
   public:
    Lease(Lease&& other) noexcept
        : pool_(std::exchange(other.pool_, nullptr)), connection_(std::move(other.connection_)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Connection& operator*() { return *connection_; }
    Connection* operator->() { return &*connection_; }

   private:
    friend class Pool;
    Lease(Pool* pool, Connection connection) : pool_(pool), connection_(std::move(connection)) {}
    Pool* pool_;
    std::optional<Connection> connection_;
  };

  // Waits while all `size` connections are in use. UNAVAILABLE when a new connection is needed
  // and the server cannot be reached.
  absl::StatusOr<Lease> Acquire();

  const std::string& conninfo() const { return conninfo_; }

 private:
  void Release(Connection connection);

  const std::string conninfo_;
  const size_t size_;
  const std::function<absl::Status(Connection&)> on_connect_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<Connection> idle_;
  size_t open_ = 0;  // idle and leased
};

// The connection string with its password (if any) left out: what may be logged.
std::string RedactedConninfo(const std::string& conninfo);

// True for strings that name a PostgreSQL store: postgres:// or postgresql:// URIs.
bool IsPostgresUri(absl::string_view store);

}  // namespace provd::daemon::postgres
