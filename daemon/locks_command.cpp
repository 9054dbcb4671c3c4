#include "daemon/locks_command.hpp"

#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "arbiter/lock_status.hpp"
#include "nlohmann/json.hpp"

namespace provd::daemon {

void AddLocksFlags(CLI::App& app, LocksCommand& command) {
  app.add_option("--lock-dir", command.lock_dir,
                 "the lock directory (default: <temp dir>/provd-locks)");
}

int RunLocks(const LocksCommand& command) {
  const std::filesystem::path dir = command.lock_dir.empty()
                                        ? arbiter::DefaultLockDir()
                                        : std::filesystem::path(command.lock_dir);
  absl::StatusOr<std::vector<arbiter::DeviceLockStatus>> devices = arbiter::InspectLockDir(dir);
  if (!devices.ok()) {
    std::cerr << "provd locks: " << devices.status().ToString() << "\n";
    return 1;
  }
  nlohmann::json out = {{"lock_dir", dir.string()}, {"devices", nlohmann::json::array()}};
  for (const arbiter::DeviceLockStatus& device : *devices) {
    nlohmann::json entry = {
        {"device", device.device}, {"holder", nullptr}, {"waiters", nlohmann::json::array()}};
    if (device.holder) {
      const arbiter::LockHolder& h = *device.holder;
      entry["holder"] = {{"pid", h.pid != 0 ? nlohmann::json(h.pid) : nlohmann::json(nullptr)},
                         {"priority", h.pid != 0 ? nlohmann::json(arbiter::PriorityName(h.priority))
                                                 : nlohmann::json(nullptr)},
                         {"since", h.since != absl::InfinitePast()
                                       ? nlohmann::json(absl::FormatTime(
                                             absl::RFC3339_full, h.since, absl::UTCTimeZone()))
                                       : nlohmann::json(nullptr)}};
    }
    if (!device.error.empty()) entry["error"] = device.error;
    for (const arbiter::LockWaiter& waiter : device.waiters) {
      entry["waiters"].push_back(
          {{"pid", waiter.pid}, {"priority", arbiter::PriorityName(waiter.priority)}});
    }
    out["devices"].push_back(entry);
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace provd::daemon
