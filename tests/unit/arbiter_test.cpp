// The GPU priority protocol across threads of one process and across real processes: who gets
// a device, who yields, who waits, what a crash frees, and that no two provers ever own one
// device at once. Every wait is bounded so that a deadlock fails the test instead of hanging.
#include "arbiter/arbiter.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "arbiter/lock_status.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::arbiter {
namespace {

using ::provd::testing::IsOk;

// Polls `condition` every millisecond for at most `timeout`.
template <typename Condition>
bool Eventually(Condition condition, absl::Duration timeout = absl::Seconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (condition()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return condition();
}

class ArbiterTest : public ::testing::Test {
 protected:
  std::unique_ptr<Arbiter> Open(size_t devices) {
    absl::StatusOr<std::unique_ptr<Arbiter>> arbiter = Arbiter::Open(dir_ / "locks", devices);
    EXPECT_THAT(arbiter, IsOk());
    return arbiter.ok() ? *std::move(arbiter) : nullptr;
  }
  DeviceLease Acquire(Arbiter& arbiter, Priority priority,
                      absl::Duration wait = absl::ZeroDuration()) {
    absl::StatusOr<DeviceLease> lease = arbiter.Acquire(priority, wait);
    if (!lease.ok()) throw std::runtime_error(lease.status().ToString());
    return *std::move(lease);
  }
  testing::TempDir dir_;
};

TEST_F(ArbiterTest, TwoLeasesOfOneProcessNeverShareADevice) {
  // POSIX record locks would let both threads of one process "own" device 0; OFD locks do not.
  auto arbiter = Open(1);
  DeviceLease first = Acquire(*arbiter, Priority::kLow);
  DeviceLease second = Acquire(*arbiter, Priority::kLow);
  EXPECT_EQ(first.device(), std::optional<size_t>(0));
  EXPECT_EQ(second.device(), std::nullopt);
  EXPECT_FALSE(second.TryReturn());
  EXPECT_FALSE(first.should_yield());  // an equal priority never preempts
}

TEST_F(ArbiterTest, HighPreemptsLowWhichReturnsAfterwards) {
  auto arbiter = Open(1);
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(low.device(), std::optional<size_t>(0));
  std::optional<DeviceLease> high;
  std::thread waiter([&] { high.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  ASSERT_TRUE(Eventually([&] { return low.should_yield(); }));
  low.Yield();
  EXPECT_EQ(low.device(), std::nullopt);
  waiter.join();
  EXPECT_EQ(high->device(), std::optional<size_t>(0));
  EXPECT_FALSE(low.TryReturn());  // the high holds it
  high.reset();                   // the high proof ends
  EXPECT_TRUE(Eventually([&] { return low.TryReturn(); }));
  EXPECT_EQ(low.device(), std::optional<size_t>(0));
}

TEST_F(ArbiterTest, LowNeverWaitsAndHighSettlesForTheCpuIfNobodyYields) {
  auto arbiter = Open(1);
  DeviceLease holder = Acquire(*arbiter, Priority::kHigh);
  ASSERT_EQ(holder.device(), std::optional<size_t>(0));
  DeviceLease low = Acquire(*arbiter, Priority::kLow, absl::Seconds(30));
  EXPECT_EQ(low.device(), std::nullopt);
  // Another high waits its deadline behind an equal-priority holder, then runs on the CPU.
  DeviceLease high = Acquire(*arbiter, Priority::kHigh, absl::Milliseconds(50));
  EXPECT_EQ(high.device(), std::nullopt);
  EXPECT_FALSE(holder.should_yield());
}

TEST_F(ArbiterTest, AFreeDeviceIsTakenBeforeAnyoneIsPreempted) {
  auto arbiter = Open(2);
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(low.device(), std::optional<size_t>(0));
  DeviceLease high = Acquire(*arbiter, Priority::kHigh, absl::Seconds(10));
  EXPECT_EQ(high.device(), std::optional<size_t>(1));
  absl::SleepFor(absl::Milliseconds(5));
  EXPECT_FALSE(low.should_yield());
}

TEST_F(ArbiterTest, TheLowestPriorityHolderIsPreempted) {
  auto arbiter = Open(2);
  DeviceLease high_holder = Acquire(*arbiter, Priority::kHigh);
  DeviceLease low_holder = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(high_holder.device(), std::optional<size_t>(0));
  ASSERT_EQ(low_holder.device(), std::optional<size_t>(1));
  std::optional<DeviceLease> high;
  std::thread waiter([&] { high.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  ASSERT_TRUE(Eventually([&] { return low_holder.should_yield(); }));
  low_holder.Yield();
  waiter.join();
  EXPECT_EQ(high->device(), std::optional<size_t>(1));
  EXPECT_FALSE(high_holder.should_yield());
}

TEST_F(ArbiterTest, TwoHighsArrivingTogetherPreemptBothLows) {
  auto arbiter = Open(2);
  DeviceLease a = Acquire(*arbiter, Priority::kLow);
  DeviceLease b = Acquire(*arbiter, Priority::kLow);
  ASSERT_TRUE(a.device().has_value() && b.device().has_value());
  std::optional<DeviceLease> h1, h2;
  std::thread t1([&] { h1.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  std::thread t2([&] { h2.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  // The lows behave like provers between chunks until both highs are served.
  const bool both_yielded = Eventually([&] {
    for (DeviceLease* low : {&a, &b}) {
      if (low->should_yield()) low->Yield();
    }
    return !a.device().has_value() && !b.device().has_value();
  });
  t1.join();
  t2.join();
  EXPECT_TRUE(both_yielded);
  ASSERT_TRUE(h1->device().has_value());
  ASSERT_TRUE(h2->device().has_value());
  EXPECT_NE(*h1->device(), *h2->device());
}

TEST_F(ArbiterTest, AHighThatSettledForTheCpuStillTakesTheDeviceLater) {
  auto arbiter = Open(1);
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  DeviceLease high = Acquire(*arbiter, Priority::kHigh, absl::Milliseconds(20));
  EXPECT_EQ(high.device(), std::nullopt);  // the low did not yield in time (it was busy)
  ASSERT_TRUE(Eventually([&] { return low.should_yield(); }));  // but the flag is still up
  low.Yield();
  EXPECT_TRUE(Eventually([&] { return high.TryReturn(); }));
  EXPECT_FALSE(low.TryReturn());
}

TEST_F(ArbiterTest, ARetiredDeviceIsNeitherTakenNorWaitedForByThisProcess) {
  auto arbiter = Open(2);
  DeviceLease a = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(a.device(), std::optional<size_t>(0));
  a.Retire();
  EXPECT_EQ(a.device(), std::nullopt);
  EXPECT_TRUE(arbiter->retired(0));
  EXPECT_FALSE(arbiter->retired(1));
  EXPECT_FALSE(arbiter->retired(7));  // not arbitrated at all

  // Another process (another arbiter over the same lock dir) still may use device 0: the lock
  // went with the retirement, and its CUDA context there is its own. It takes both devices.
  auto other = Open(2);
  EXPECT_FALSE(other->retired(0));
  DeviceLease theirs0 = Acquire(*other, Priority::kLow);
  DeviceLease theirs1 = Acquire(*other, Priority::kLow);
  ASSERT_EQ(theirs0.device(), std::optional<size_t>(0));
  ASSERT_EQ(theirs1.device(), std::optional<size_t>(1));
  absl::SleepFor(absl::Milliseconds(5));  // past the probe interval of a's last answer
  EXPECT_FALSE(a.TryReturn());
  EXPECT_EQ(Acquire(*arbiter, Priority::kLow).device(), std::nullopt);

  // Both are held at low priority, device 0 first in the list: a high prover of this process
  // must flag device 1 all the same, since it could not use device 0.
  std::optional<DeviceLease> high;
  std::thread waiter([&] { high.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  const bool asked = Eventually([&] { return theirs1.should_yield(); });
  EXPECT_FALSE(theirs0.should_yield());
  theirs1.Yield();
  waiter.join();
  EXPECT_TRUE(asked);
  ASSERT_TRUE(high.has_value());
  EXPECT_EQ(high->device(), std::optional<size_t>(1));
  EXPECT_FALSE(theirs0.should_yield());

  // Once the other process lets device 0 go, this one still never takes it.
  theirs0.Yield();
  EXPECT_EQ(Acquire(*arbiter, Priority::kLow).device(), std::nullopt);
}

TEST_F(ArbiterTest, RetiringADeviceAnotherLeaseHoldsMakesThatLeaseYield) {
  auto arbiter = Open(2);
  DeviceLease holder = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(holder.device(), std::optional<size_t>(0));
  EXPECT_FALSE(holder.should_yield());
  arbiter->Retire(0);
  arbiter->Retire(9);  // not arbitrated: nothing happens
  EXPECT_TRUE(arbiter->retired(0));
  EXPECT_TRUE(holder.should_yield());  // at once, without waiting for a probe
  holder.Yield();
  EXPECT_EQ(holder.device(), std::nullopt);
  // It never comes back to device 0, and another lease gets device 1.
  absl::SleepFor(absl::Milliseconds(5));
  DeviceLease other = Acquire(*arbiter, Priority::kLow);
  EXPECT_EQ(other.device(), std::optional<size_t>(1));
  EXPECT_FALSE(holder.TryReturn());
  EXPECT_EQ(holder.device(), std::nullopt);
}

TEST_F(ArbiterTest, AMovedFromLeaseOwnsNothing) {
  auto arbiter = Open(1);
  DeviceLease first = Acquire(*arbiter, Priority::kLow);
  DeviceLease second = std::move(first);
  EXPECT_EQ(second.device(), std::optional<size_t>(0));
  EXPECT_EQ(first.device(), std::nullopt);  // NOLINT(bugprone-use-after-move): what we test
  EXPECT_FALSE(first.should_yield());
  first.Yield();
  EXPECT_EQ(second.device(), std::optional<size_t>(0));
}

TEST_F(ArbiterTest, NoTwoLeasesEverOwnADeviceUnderStress) {
  auto arbiter = Open(2);
  std::array<std::atomic<int>, 2> owner{-1, -1};
  std::atomic<int> violations{0};
  std::atomic<int> grants{0};
  auto claim = [&](std::optional<size_t> device, int id) {
    if (!device) return;
    int expected = -1;
    if (!owner[*device].compare_exchange_strong(expected, id)) ++violations;
    ++grants;
  };
  auto release = [&](std::optional<size_t> device, int id) {
    if (!device) return;
    int expected = id;
    if (!owner[*device].compare_exchange_strong(expected, -1)) ++violations;
  };
  std::vector<std::thread> threads;
  const absl::Time end = absl::Now() + absl::Milliseconds(1500);
  for (int id = 0; id < 6; ++id) {
    threads.emplace_back([&, id] {
      std::mt19937 rng(static_cast<unsigned>(id));
      while (absl::Now() < end) {
        const Priority priority = rng() % 3 == 0 ? Priority::kHigh : Priority::kLow;
        absl::StatusOr<DeviceLease> lease = arbiter->Acquire(priority, absl::Milliseconds(20));
        if (!lease.ok()) {
          ++violations;
          return;
        }
        claim(lease->device(), id);
        for (int step = 0; step < 20; ++step) {
          if (lease->should_yield()) {
            release(lease->device(), id);
            lease->Yield();
          } else if (!lease->device()) {
            if (lease->TryReturn()) claim(lease->device(), id);
          }
          absl::SleepFor(absl::Microseconds(rng() % 500));
        }
        release(lease->device(), id);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(grants.load(), 20);
}

TEST_F(ArbiterTest, ASubsetOfDevicesArbitratesOnlyThose) {
  absl::StatusOr<std::unique_ptr<Arbiter>> only_one = Arbiter::OpenDevices(dir_ / "locks", {1});
  ASSERT_THAT(only_one, IsOk());
  DeviceLease on_one = Acquire(**only_one, Priority::kLow);
  EXPECT_EQ(on_one.device(), std::optional<size_t>(1));
  auto both = Open(2);
  DeviceLease first = Acquire(*both, Priority::kLow);
  DeviceLease second = Acquire(*both, Priority::kLow);
  EXPECT_EQ(first.device(), std::optional<size_t>(0));
  EXPECT_EQ(second.device(), std::nullopt);  // device 1 is taken through the subset arbiter
  EXPECT_THAT(Arbiter::OpenDevices(dir_ / "locks", {2, 2}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("twice")));
}

TEST_F(ArbiterTest, InspectionNamesTheHolderAndTheWaiters) {
  auto arbiter = Open(2);
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  DeviceLease other = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(other.device(), std::optional<size_t>(1));
  std::optional<DeviceLease> high;
  std::thread waiter([&] { high.emplace(Acquire(*arbiter, Priority::kHigh, absl::Seconds(10))); });
  ASSERT_TRUE(Eventually([&] { return low.should_yield() || other.should_yield(); }));
  absl::StatusOr<std::vector<DeviceLockStatus>> status = InspectLockDir(dir_ / "locks");
  ASSERT_THAT(status, IsOk());
  ASSERT_EQ(status->size(), 2u);
  size_t waiters = 0;
  for (const DeviceLockStatus& device : *status) {
    ASSERT_TRUE(device.holder.has_value());
    EXPECT_EQ(device.holder->pid, ::getpid());
    EXPECT_EQ(device.holder->priority, Priority::kLow);
    EXPECT_LT(absl::Now() - device.holder->since, absl::Minutes(1));
    for (const LockWaiter& w : device.waiters) {
      EXPECT_EQ(w.pid, ::getpid());
      EXPECT_EQ(w.priority, Priority::kHigh);
      ++waiters;
    }
  }
  EXPECT_EQ(waiters, 1u);  // the high flags one device only
  low.Yield();
  other.Yield();
  waiter.join();
  ASSERT_TRUE(high->device().has_value());
  high.reset();
  status = InspectLockDir(dir_ / "locks");
  ASSERT_THAT(status, IsOk());
  for (const DeviceLockStatus& device : *status) {
    EXPECT_FALSE(device.holder.has_value());
    EXPECT_TRUE(device.waiters.empty());
  }
}

// Real processes, through the stand-in prover arbiter_lease_tool.
class ArbiterProcessTest : public ArbiterTest {
 protected:
  testing::Subprocess Spawn(const char* priority, int wait_ms, int hold_ms) {
    absl::StatusOr<testing::Subprocess> process =
        testing::Subprocess::Start({ARBITER_LEASE_TOOL, (dir_ / "locks").string(), "1", priority,
                                    std::to_string(wait_ms), std::to_string(hold_ms)},
                                   dir_.path());
    if (!process.ok()) throw std::runtime_error(process.status().ToString());
    return *std::move(process);
  }
  static bool Printed(const testing::Subprocess& process, const std::string& line) {
    return Eventually([&] { return process.Stdout().find(line + "\n") != std::string::npos; });
  }
};

TEST_F(ArbiterProcessTest, ALowProverInAnotherProcessYieldsAndReturns) {
  auto arbiter = Open(1);
  testing::Subprocess low = Spawn("low", 0, 20000);
  ASSERT_TRUE(Printed(low, "granted 0")) << low.Stdout() << low.Stderr();
  {
    const absl::Time asked = absl::Now();
    DeviceLease high = Acquire(*arbiter, Priority::kHigh, absl::Seconds(10));
    EXPECT_EQ(high.device(), std::optional<size_t>(0));
    EXPECT_LT(absl::Now() - asked, absl::Seconds(5));
    EXPECT_TRUE(Printed(low, "yielded cpu"));
  }
  EXPECT_TRUE(Printed(low, "returned 0")) << low.Stdout();
}

TEST_F(ArbiterProcessTest, KillingTheHolderFreesTheDevice) {
  auto arbiter = Open(1);
  testing::Subprocess holder = Spawn("high", 0, 0);
  ASSERT_TRUE(Printed(holder, "granted 0")) << holder.Stderr();
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  EXPECT_EQ(low.device(), std::nullopt);
  holder.Signal(SIGKILL);
  ASSERT_THAT(holder.Wait(absl::Seconds(10)), IsOk());
  EXPECT_TRUE(Eventually([&] { return low.TryReturn(); }));
}

TEST_F(ArbiterProcessTest, KillingAWaitingHighLetsTheLowKeepTheDevice) {
  auto arbiter = Open(1);
  DeviceLease low = Acquire(*arbiter, Priority::kLow);
  ASSERT_EQ(low.device(), std::optional<size_t>(0));
  testing::Subprocess high = Spawn("high", 60000, 0);
  ASSERT_TRUE(Eventually([&] { return low.should_yield(); })) << high.Stderr();
  high.Signal(SIGKILL);
  ASSERT_THAT(high.Wait(absl::Seconds(10)), IsOk());
  EXPECT_TRUE(Eventually([&] { return !low.should_yield(); }));
  // And a low on the CPU may return to a device whose waiting high died.
  low.Yield();
  EXPECT_TRUE(low.TryReturn() || Eventually([&] { return low.TryReturn(); }));
}

TEST_F(ArbiterProcessTest, NoTwoProcessesEverOwnADeviceUnderStress) {
  auto arbiter = Open(2);  // creates the lock dir the tools share
  std::vector<testing::Subprocess> tools;
  for (int seed = 1; seed <= 4; ++seed) {
    absl::StatusOr<testing::Subprocess> tool =
        testing::Subprocess::Start({ARBITER_LEASE_TOOL, (dir_ / "locks").string(), "2", "stress",
                                    std::to_string(seed), "1500"},
                                   dir_.path());
    ASSERT_THAT(tool, IsOk());
    tools.push_back(*std::move(tool));
  }
  for (testing::Subprocess& tool : tools) {
    absl::StatusOr<testing::ExitInfo> exit = tool.Wait(absl::Seconds(30));
    ASSERT_THAT(exit, IsOk());
    EXPECT_TRUE(exit->exited && exit->code == 0) << exit->stdout_text << exit->stderr_text;
    EXPECT_THAT(exit->stdout_text, ::testing::HasSubstr("violations 0"));
    EXPECT_THAT(exit->stdout_text, ::testing::Not(::testing::HasSubstr("grants 0 ")));
  }
}

}  // namespace
}  // namespace provd::arbiter
