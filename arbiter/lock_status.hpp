// Who holds and who wants each device of a lock directory, for `provd locks`. Open-file-
// description locks do not record a pid (/proc/locks shows -1), so the owners are found the way
// lslocks finds them: the lock lines of /proc/PID/fdinfo for descriptors open on our lock
// files. Processes of other users are only visible to root; the holder's own record (written
// into gpuN.lock on every grant) names it even then.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arbiter/arbiter.hpp"

namespace provd::arbiter {

struct LockHolder {
  pid_t pid = 0;  // 0: unknown (no record, and the process is not visible)
  Priority priority = Priority::kLow;
  absl::Time since = absl::InfinitePast();  // InfinitePast: unknown
};

struct LockWaiter {
  pid_t pid = 0;
  Priority priority = Priority::kLow;
};

struct DeviceLockStatus {
  size_t device = 0;
  std::optional<LockHolder> holder;  // nullopt: free
  std::string error;                 // set when the state could not be read
  std::vector<LockWaiter> waiters;
};

// The holder record a lease writes into gpuN.lock when it takes device N: "pid priority
// unix_ms\n".
std::string HolderRecord(pid_t pid, Priority priority, absl::Time since);
std::optional<LockHolder> ParseHolderRecord(const std::string& text);

// Every device that has a gpuN.lock in `lock_dir`. Changes nothing: files are opened
// read-only. FAILED_PRECONDITION if the directory cannot be read.
absl::StatusOr<std::vector<DeviceLockStatus>> InspectLockDir(const std::filesystem::path& lock_dir);

}  // namespace provd::arbiter
