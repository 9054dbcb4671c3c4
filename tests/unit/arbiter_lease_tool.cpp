// A prover stand-in for the arbiter's process tests: acquires a lease, then behaves like a
// prover between chunks (every millisecond: yield when asked, return when possible) and reports
// each transition on stdout, one line each, flushed at once.
// Usage: arbiter_lease_tool LOCK_DIR DEVICES low|high WAIT_MS HOLD_MS (HOLD_MS 0: until killed)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/time/clock.h"
#include "arbiter/arbiter.hpp"

int main(int argc, char** argv) {
  using provd::arbiter::Arbiter;
  using provd::arbiter::Priority;
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s LOCK_DIR DEVICES low|high WAIT_MS HOLD_MS\n", argv[0]);
    return 2;
  }
  const Priority priority = std::string(argv[3]) == "high" ? Priority::kHigh : Priority::kLow;
  auto arbiter = Arbiter::Open(argv[1], std::strtoul(argv[2], nullptr, 10));
  if (!arbiter.ok()) {
    std::fprintf(stderr, "%s\n", arbiter.status().ToString().c_str());
    return 1;
  }
  std::printf("waiting\n");
  std::fflush(stdout);
  auto lease = (*arbiter)->Acquire(priority, absl::Milliseconds(std::atol(argv[4])));
  if (!lease.ok()) {
    std::fprintf(stderr, "%s\n", lease.status().ToString().c_str());
    return 1;
  }
  auto report = [&](const char* what) {
    if (lease->device().has_value()) {
      std::printf("%s %zu\n", what, *lease->device());
    } else {
      std::printf("%s cpu\n", what);
    }
    std::fflush(stdout);
  };
  report("granted");
  const long hold_ms = std::atol(argv[5]);
  const absl::Time end =
      hold_ms == 0 ? absl::InfiniteFuture() : absl::Now() + absl::Milliseconds(hold_ms);
  while (absl::Now() < end) {
    if (lease->should_yield()) {
      lease->Yield();
      report("yielded");
    } else if (!lease->device().has_value() && lease->TryReturn()) {
      report("returned");
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  report("done");
  return 0;
}
