// Runs a real binary (provd, provctl) as a child process for integration tests, with its output
// captured to files, a deadline on every wait, and a SIGKILL on destruction so that a failing
// test never leaves a daemon behind.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace provd::testing {

struct ExitInfo {
  bool exited = false;  // false: killed by a signal
  int code = 0;         // exit code, or the signal number
  std::string stdout_text;
  std::string stderr_text;
};

class Subprocess {
 public:
  // Starts `argv` (argv[0] is the binary path) with stdout/stderr going to files in `log_dir`.
  static absl::StatusOr<Subprocess> Start(const std::vector<std::string>& argv,
                                          const std::filesystem::path& log_dir);
  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&&) = delete;
  ~Subprocess();

  pid_t pid() const { return pid_; }
  void Signal(int signal_number) const;
  // Waits at most `timeout`; DEADLINE_EXCEEDED (the child keeps running) if it has not exited.
  absl::StatusOr<ExitInfo> Wait(absl::Duration timeout);
  // What the child wrote so far.
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  Subprocess(pid_t pid, std::filesystem::path out, std::filesystem::path err)
      : pid_(pid), stdout_path_(std::move(out)), stderr_path_(std::move(err)) {}

  pid_t pid_ = -1;
  std::filesystem::path stdout_path_;
  std::filesystem::path stderr_path_;
};

// Runs `argv` to completion (at most `timeout`) and returns how it ended.
absl::StatusOr<ExitInfo> RunToCompletion(const std::vector<std::string>& argv,
                                         const std::filesystem::path& log_dir,
                                         absl::Duration timeout);

}  // namespace provd::testing
