// `provd locks`: who holds and who waits for each GPU of a lock directory, as JSON.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace provd::daemon {

struct LocksCommand {
  std::string lock_dir;  // empty: arbiter::DefaultLockDir()
};

void AddLocksFlags(CLI::App& app, LocksCommand& command);

// 0 printed, 1 the lock dir could not be read.
int RunLocks(const LocksCommand& command);

}  // namespace provd::daemon
