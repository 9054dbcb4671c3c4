// One lock file of the lock directory, opened by one lease. Locks are Linux open-file-
// description locks (F_OFD_SETLK): unlike POSIX record locks (what Boost.Interprocess's
// file_lock uses), they conflict between two opens of the same file inside one process just as
// between processes, so threads of one daemon arbitrate through the very same mechanism as
// separate processes and no in-process registry can drift from the files. Like record locks
// they vanish when their holder dies (the kernel closes its descriptors), so a crashed prover
// never wedges a GPU. F_OFD_GETLK tests for a conflicting lock without taking anything.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "arbiter/lock_dir.hpp"

namespace provd::arbiter {

enum class LockMode { kShared, kExclusive };

class LockFile {
 public:
  // Opens (creating, mode 0660) `name` in `dir`: O_CLOEXEC so children never inherit a lock,
  // O_NOFOLLOW so a planted symlink cannot redirect it. Lock files are never unlinked.
  static absl::StatusOr<LockFile> Open(const LockDir& dir, const std::string& name);
  // Opens an existing lock file read-only, changing nothing: for inspection (`provd locks`),
  // which may run as a user who cannot write the lock dir. OthersHold() works on it.
  static absl::StatusOr<LockFile> OpenExisting(const std::filesystem::path& path);

  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();  // closing the descriptor drops its lock

  // Non-blocking; false when someone else holds a conflicting lock.
  bool TryLock(LockMode mode);
  void Unlock();
  bool locked() const { return locked_; }
  // True when another open file description (this process or another) holds a lock that
  // conflicts with `mode`; our own lock never counts. Takes nothing.
  bool OthersHold(LockMode mode) const;
  // FAILED_PRECONDITION when the file system cannot do open-file-description locks (some network
  // file systems): arbitration would silently never work there.
  absl::Status CheckLocksWork() const;
  // Replaces the file's contents with `text`, best effort (a record for humans and tools; the
  // protocol never reads it). Call only while holding the exclusive lock.
  void WriteRecord(const std::string& text);

 private:
  explicit LockFile(int fd) : fd_(fd) {}
  int fd_ = -1;
  bool locked_ = false;
};

}  // namespace provd::arbiter
