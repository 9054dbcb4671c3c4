// A PostgreSQL server of a test's own: initdb and pg_ctl from Debian's postgresql-15 in a temp
// dir, listening on a unix socket there and nowhere else, removed when the object goes. initdb
// refuses to run as root, so when the tests run as root the server runs as `nobody`.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/support/temp_dir.hpp"

namespace provd::testing {

class PostgresServer {
 public:
  // FAILED_PRECONDITION, naming the package, when the server's binaries are not installed.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Creates an empty database and returns its URI, as --store takes it.
  absl::StatusOr<std::string> CreateDatabase(const std::string& name);
  // A URI of database `name` (which need not exist).
  std::string Uri(const std::string& name) const;

  // An outage: the server stops (fast shutdown: sessions are cut) and starts again on the same
  // data.
  absl::Status Stop();
  absl::Status Restart();

 private:
  PostgresServer() = default;
  absl::Status PgCtl(const std::vector<std::string>& args);
  absl::StatusOr<std::string> Psql(const std::string& sql);
  std::vector<std::string> AsServerUser(std::vector<std::string> argv) const;

  TempDir dir_;
  std::filesystem::path bin_dir_;
  bool drop_privileges_ = false;
  bool running_ = false;
};

}  // namespace provd::testing
