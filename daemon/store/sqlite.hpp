// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed binds
// and columns, and transactions that roll back unless committed. Errors are absl::Status
// (INTERNAL with SQLite's message; DATA_LOSS for a corrupt database file) so the job store
// never sees a raw return code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace provd::daemon::sqlite {

class Statement;

class Database {
 public:
  // Opens (creating) the database file, read-write, for use from one thread at a time (the
  // caller serializes access).
  static absl::StatusOr<Database> Open(const std::filesystem::path& path);
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  ~Database();

  // Runs one or more statements that return no rows (schema, pragmas, BEGIN/COMMIT).
  absl::Status Execute(absl::string_view sql);
  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  int64_t changes() const;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_ = nullptr;
  std::string path_;
};

// One prepared statement. Bind parameters by 1-based index, Step() through the rows, read
// columns by 0-based index.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) = delete;
  ~Statement();

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, absl::string_view text);
  Statement& BindBlob(int index, absl::string_view bytes);
  Statement& BindNull(int index);
  Statement& Bind(int index, const std::optional<int64_t>& value);

  // True when a row is ready, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Runs a statement that returns no rows.
  absl::Status Run();

  int64_t Int(int column) const;
  std::optional<int64_t> OptionalInt(int column) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;
  bool IsNull(int column) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, const Database* db) : stmt_(stmt), db_(db) {}

  sqlite3_stmt* stmt_ = nullptr;
  const Database* db_ = nullptr;
  absl::Status bind_error_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless Commit() succeeded, so an
// early return never leaves a transaction open.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(Database& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

}  // namespace provd::daemon::sqlite
