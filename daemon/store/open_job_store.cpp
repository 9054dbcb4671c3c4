#include "daemon/store/open_job_store.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/store/postgres.hpp"
#include "daemon/store/postgres_job_store.hpp"
#include "daemon/store/sqlite_job_store.hpp"

namespace provd::daemon {
namespace {

bool IsSqlite(const std::string& store) { return store.empty() || store == "sqlite"; }

}  // namespace

absl::Status ValidateStoreSetting(const std::string& store) {
  if (IsSqlite(store) || postgres::IsPostgresUri(store)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--store ", DescribeStoreSetting(store),
                   ": expected \"sqlite\" (the default: a database in --data-dir) or a "
                   "postgres:// URI"));
}

absl::StatusOr<std::unique_ptr<JobStore>> OpenJobStore(const std::string& store,
                                                       const std::filesystem::path& data_dir) {
  if (absl::Status s = ValidateStoreSetting(store); !s.ok()) return s;
  if (IsSqlite(store)) {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> sqlite = SqliteJobStore::Open(data_dir);
    if (!sqlite.ok()) return sqlite.status();
    return std::unique_ptr<JobStore>(*std::move(sqlite));
  }
  PostgresStoreOptions options;
  options.conninfo = store;
  absl::StatusOr<std::unique_ptr<PostgresJobStore>> postgres =
      PostgresJobStore::Open(std::move(options));
  if (!postgres.ok()) return postgres.status();
  return std::unique_ptr<JobStore>(*std::move(postgres));
}

std::string DescribeStoreSetting(const std::string& store) {
  if (IsSqlite(store)) return "sqlite";
  if (postgres::IsPostgresUri(store)) return postgres::RedactedConninfo(store);
  // Not a store provd knows; it may still hold a secret, so show only its start.
  return absl::StrCat("\"", store.substr(0, std::min<size_t>(store.find_first_of(":@"), 16)),
                      "...\"");
}

}  // namespace provd::daemon
