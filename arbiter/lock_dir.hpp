// The lock directory: one namespace of GPU lock files shared by every process, user and
// container that arbitrates the same GPUs. Opening it at start-up proves that lock files can be
// created there and that everyone in it speaks the same protocol, so a misconfigured path fails
// loudly instead of leaving a process to arbitrate alone.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace provd::arbiter {

// The version of the lock-file protocol; processes that disagree on it must not share a dir.
inline constexpr int kLockProtocolVersion = 1;

// temp_directory_path()/provd-locks. Note that temp_directory_path() honours TMPDIR: services
// that must arbitrate together should all be given the same --lock-dir explicitly.
std::filesystem::path DefaultLockDir();

class LockDir {
 public:
  // Creates the directory if needed (mode 02770: group members share it and files inherit its
  // group) and checks that it is a writable directory holding a PROTOCOL file of our version,
  // writing that file if the directory is new. Errors name the path and what is wrong with it.
  static absl::StatusOr<LockDir> Open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }

  // The path of a lock file inside the directory, e.g. File("gpu0.lock").
  std::filesystem::path File(const std::string& name) const { return path_ / name; }

 private:
  explicit LockDir(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;
};

}  // namespace provd::arbiter
