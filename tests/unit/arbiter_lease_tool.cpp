// A prover stand-in for the arbiter's process tests: acquires a lease, then behaves like a
// prover between chunks (every millisecond: yield when asked, return when possible) and reports
// each transition on stdout, one line each, flushed at once.
// Usage: arbiter_lease_tool LOCK_DIR DEVICES low|high WAIT_MS HOLD_MS (HOLD_MS 0: until killed)
//        arbiter_lease_tool LOCK_DIR DEVICES stress SEED MILLISECONDS
// Stress mode acquires at random priorities and yields/returns at random for the given time;
// on every grant it creates OWNER_DIR/ownerN with O_EXCL (OWNER_DIR = LOCK_DIR/../owners) and
// removes it before letting go, so two owners at once show up as a failed create. It prints
// "grants G violations V" at the end and exits 1 on any violation.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "absl/time/clock.h"
#include "arbiter/arbiter.hpp"

namespace {

int Stress(provd::arbiter::Arbiter& arbiter, const std::filesystem::path& owners, unsigned seed,
           long millis) {
  using provd::arbiter::Priority;
  std::filesystem::create_directories(owners);
  std::mt19937 rng(seed);
  long grants = 0;
  long violations = 0;
  auto claim = [&](std::optional<size_t> device) {
    if (!device) return;
    ++grants;
    const std::string path = (owners / ("owner" + std::to_string(*device))).string();
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
      ++violations;
    } else {
      ::close(fd);
    }
  };
  auto release = [&](std::optional<size_t> device) {
    if (device) ::unlink((owners / ("owner" + std::to_string(*device))).c_str());
  };
  const absl::Time end = absl::Now() + absl::Milliseconds(millis);
  while (absl::Now() < end) {
    const Priority priority = rng() % 3 == 0 ? Priority::kHigh : Priority::kLow;
    auto lease = arbiter.Acquire(priority, absl::Milliseconds(20));
    if (!lease.ok()) return 1;
    claim(lease->device());
    for (int step = 0; step < 10; ++step) {
      if (lease->should_yield()) {
        release(lease->device());
        lease->Yield();
      } else if (!lease->device() && lease->TryReturn()) {
        claim(lease->device());
      }
      absl::SleepFor(absl::Microseconds(rng() % 1000));
    }
    release(lease->device());
  }
  std::printf("grants %ld violations %ld\n", grants, violations);
  return violations == 0 ? 0 : 1;
}

}  // namespace

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
  if (std::string(argv[3]) == "stress") {
    return Stress(**arbiter, std::filesystem::path(argv[1]).parent_path() / "owners",
                  static_cast<unsigned>(std::atol(argv[4])), std::atol(argv[5]));
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
