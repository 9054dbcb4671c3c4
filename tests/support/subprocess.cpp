#include "tests/support/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/support/temp_dir.hpp"

extern char** environ;

namespace provd::testing {
namespace {

std::atomic<int> next_log_id{0};

}  // namespace

absl::StatusOr<Subprocess> Subprocess::Start(const std::vector<std::string>& argv,
                                             const std::filesystem::path& log_dir) {
  if (argv.empty()) return absl::InvalidArgumentError("empty argv");
  int id = next_log_id.fetch_add(1);
  std::filesystem::path out = log_dir / absl::StrCat("child", id, ".stdout");
  std::filesystem::path err = log_dir / absl::StrCat("child", id, ".stderr");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // The child must not inherit the test's blocked signals (gtest threads may block some).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("spawn ", argv[0], ": ", std::strerror(rc)));
  }
  return Subprocess(pid, out, err);
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stdout_path_(std::move(other.stdout_path_)),
      stderr_path_(std::move(other.stderr_path_)) {}

Subprocess::~Subprocess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

void Subprocess::Signal(int signal_number) const {
  if (pid_ > 0) ::kill(pid_, signal_number);
}

absl::StatusOr<ExitInfo> Subprocess::Wait(absl::Duration timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError("process already reaped");
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      ExitInfo info;
      info.exited = WIFEXITED(status);
      info.code = info.exited ? WEXITSTATUS(status) : WTERMSIG(status);
      info.stdout_text = ReadFile(stdout_path_);
      info.stderr_text = ReadFile(stderr_path_);
      return info;
    }
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("pid ", pid_, " still running after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
}

std::string Subprocess::Stdout() const { return ReadFile(stdout_path_); }
std::string Subprocess::Stderr() const { return ReadFile(stderr_path_); }

absl::StatusOr<ExitInfo> RunToCompletion(const std::vector<std::string>& argv,
                                         const std::filesystem::path& log_dir,
                                         absl::Duration timeout) {
  absl::StatusOr<Subprocess> child = Subprocess::Start(argv, log_dir);
  if (!child.ok()) return child.status();
  return child->Wait(timeout);
}

}  // namespace provd::testing
