#include "daemon/store/sqlite.hpp"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace provd::daemon::sqlite {
namespace {

absl::Status Error(sqlite3* db, int code, absl::string_view what) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  const int primary = code & 0xff;
  std::string text = absl::StrCat("sqlite: ", what, ": ", message);
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) return absl::DataLossError(text);
  if (primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_READONLY ||
      primary == SQLITE_CANTOPEN) {
    return absl::UnavailableError(text);
  }
  return absl::InternalError(text);
}

}  // namespace

absl::StatusOr<Database> Database::Open(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  Database database(db, path.string());  // closes db on every path below
  if (rc != SQLITE_OK) return Error(db, rc, absl::StrCat("open ", path.string()));
  sqlite3_extended_result_codes(db, 1);
  // Another handle (an operator's sqlite3 shell) may hold a lock for a moment: wait for it.
  sqlite3_busy_timeout(db, 5000);
  return database;
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Database::~Database() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

absl::Status Database::Execute(absl::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return absl::OkStatus();
  std::string what = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  absl::Status status = Error(nullptr, rc, what);
  return absl::Status(status.code(), absl::StrCat("sqlite: ", what, " (in: ", sql, ")"));
}

absl::StatusOr<Statement> Database::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(db_, rc, absl::StrCat("prepare \"", sql, "\""));
  return Statement(stmt, this);
}

int64_t Database::changes() const { return sqlite3_changes64(db_); }

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      db_(other.db_),
      bind_error_(std::move(other.bind_error_)) {}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement& Statement::Bind(int index, int64_t value) {
  if (int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = Error(db_->handle(), rc, absl::StrCat("bind parameter ", index));
  }
  return *this;
}

Statement& Statement::Bind(int index, absl::string_view text) {
  if (int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                                   SQLITE_UTF8);
      rc != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = Error(db_->handle(), rc, absl::StrCat("bind parameter ", index));
  }
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  // A zero-length blob must still be a blob, not NULL: sqlite binds NULL for a null pointer.
  static const char kEmpty = 0;
  const void* data = bytes.empty() ? &kEmpty : bytes.data();
  if (int rc = sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_TRANSIENT);
      rc != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = Error(db_->handle(), rc, absl::StrCat("bind parameter ", index));
  }
  return *this;
}

Statement& Statement::BindNull(int index) {
  if (int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = Error(db_->handle(), rc, absl::StrCat("bind parameter ", index));
  }
  return *this;
}

Statement& Statement::Bind(int index, const std::optional<int64_t>& value) {
  return value.has_value() ? Bind(index, *value) : BindNull(index);
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error(db_->handle(), rc, absl::StrCat("run \"", sqlite3_sql(stmt_), "\""));
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  if (!row.ok()) return row.status();
  return absl::OkStatus();
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::optional<int64_t> Statement::OptionalInt(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int(column);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string Statement::Blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return {};
  return std::string(static_cast<const char*>(data),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

absl::StatusOr<Transaction> Transaction::Begin(Database& db) {
  if (absl::Status s = db.Execute("BEGIN IMMEDIATE"); !s.ok()) return s;
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Execute("ROLLBACK");
}

absl::Status Transaction::Commit() {
  absl::Status status = db_->Execute("COMMIT");
  if (status.ok()) db_ = nullptr;
  return status;
}

}  // namespace provd::daemon::sqlite
