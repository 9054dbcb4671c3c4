// Wakes WatchJob streams when any job has a new event. One counter for all jobs: a watcher
// re-reads its job's events from the store after every change, which is cheap at the rate
// events happen (a few per round) and leaves the store the only source of truth.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "absl/time/time.h"

namespace provd::daemon {

class EventHub {
 public:
  uint64_t generation() const {
    std::lock_guard lock(mutex_);
    return generation_;
  }

  void Notify() {
    {
      std::lock_guard lock(mutex_);
      ++generation_;
    }
    changed_.notify_all();
  }

  // Returns once the generation differs from `seen` or `timeout` passed; the new generation.
  uint64_t WaitForChange(uint64_t seen, absl::Duration timeout) const {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                      [&] { return generation_ != seen; });
    return generation_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  uint64_t generation_ = 0;
};

}  // namespace provd::daemon
