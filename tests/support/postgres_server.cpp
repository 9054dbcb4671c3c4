#include "tests/support/postgres_server.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/subprocess.hpp"

namespace provd::testing {
namespace {

constexpr char kServerUser[] = "nobody";
constexpr absl::Duration kCommandTimeout = absl::Seconds(60);

// PROVD_TEST_PG_BINDIR, or the newest /usr/lib/postgresql/<version>/bin with an initdb.
std::filesystem::path FindBinDir() {
  if (const char* dir = std::getenv("PROVD_TEST_PG_BINDIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::filesystem::path best;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb") &&
        (best.empty() || entry.path().filename() > best.parent_path().filename())) {
      best = entry.path() / "bin";
    }
  }
  return best;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->bin_dir_ = FindBinDir();
  if (server->bin_dir_.empty()) {
    return absl::FailedPreconditionError(
        "no PostgreSQL server binaries under /usr/lib/postgresql: install postgresql-15 "
        "(scripts/install-deps.sh does) or set PROVD_TEST_PG_BINDIR");
  }
  if (::geteuid() == 0) {
    const passwd* user = ::getpwnam(kServerUser);
    if (user == nullptr) return absl::FailedPreconditionError("no user `nobody` to run postgres");
    if (::chown(server->dir_.path().c_str(), user->pw_uid, user->pw_gid) != 0) {
      return absl::InternalError(absl::StrCat("chown ", server->dir_.path().string(), " failed"));
    }
    server->drop_privileges_ = true;
  }
  const std::string data = (server->dir_ / "data").string();
  absl::StatusOr<ExitInfo> initdb = RunToCompletion(
      server->AsServerUser({(server->bin_dir_ / "initdb").string(), "-D", data, "-U", "provd",
                            "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"}),
      server->dir_.path(), kCommandTimeout);
  if (!initdb.ok()) return initdb.status();
  if (!initdb->exited || initdb->code != 0) {
    return absl::InternalError(absl::StrCat("initdb failed: ", initdb->stderr_text));
  }
  if (absl::Status s = server->Restart(); !s.ok()) return s;
  return server;
}

PostgresServer::~PostgresServer() {
  if (running_) (void)PgCtl({"-m", "immediate", "stop"});
}

std::vector<std::string> PostgresServer::AsServerUser(std::vector<std::string> argv) const {
  if (!drop_privileges_) return argv;
  std::vector<std::string> wrapped = {"/usr/bin/setpriv", absl::StrCat("--reuid=", kServerUser),
                                      "--regid=nogroup", "--clear-groups"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

absl::Status PostgresServer::PgCtl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      (bin_dir_ / "pg_ctl").string(), "-D", (dir_ / "data").string(), "-w", "-t", "30"};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<ExitInfo> done = RunToCompletion(AsServerUser(argv), dir_.path(), kCommandTimeout);
  if (!done.ok()) return done.status();
  if (!done->exited || done->code != 0) {
    return absl::InternalError(absl::StrCat("pg_ctl ", args.back(), " failed: ", done->stderr_text,
                                            ReadFile(dir_ / "server.log")));
  }
  return absl::OkStatus();
}

absl::Status PostgresServer::Stop() {
  if (absl::Status s = PgCtl({"-m", "fast", "stop"}); !s.ok()) return s;
  running_ = false;
  return absl::OkStatus();
}

absl::Status PostgresServer::Restart() {
  // A unix socket in the temp dir only; fsync off: a test's server need not survive the power.
  const std::string options =
      absl::StrCat("-k ", dir_.path().string(), " -c listen_addresses='' -c fsync=off ",
                   "-c max_connections=100");
  if (absl::Status s = PgCtl({"-o", options, "-l", (dir_ / "server.log").string(), "start"});
      !s.ok()) {
    return s;
  }
  running_ = true;
  return absl::OkStatus();
}

std::string PostgresServer::Uri(const std::string& name) const {
  return absl::StrCat("postgresql:///", name, "?host=", dir_.path().string(), "&user=provd");
}

absl::StatusOr<std::string> PostgresServer::Psql(const std::string& sql) {
  absl::StatusOr<ExitInfo> done =
      RunToCompletion({(bin_dir_ / "psql").string(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                       Uri("postgres"), "-c", sql},
                      dir_.path(), kCommandTimeout);
  if (!done.ok()) return done.status();
  if (!done->exited || done->code != 0) {
    return absl::InternalError(absl::StrCat("psql -c \"", sql, "\" failed: ", done->stderr_text));
  }
  return done->stdout_text;
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase(const std::string& name) {
  if (absl::StatusOr<std::string> done = Psql(absl::StrCat("CREATE DATABASE ", name)); !done.ok()) {
    return done.status();
  }
  return Uri(name);
}

}  // namespace provd::testing
