// The handle the scheduler keeps on a running job: a way to ask it to stop at its next chunk,
// and why (which decides whether the job ends CANCELLED or goes back to the queue).
#pragma once

#include <atomic>

namespace provd::daemon {

enum class StopReason : int {
  kNone = 0,
  kClient,    // CancelJob: ends CANCELLED ("client")
  kDeadline,  // the job's deadline passed: ends CANCELLED ("deadline")
  kShutdown,  // the daemon stops: the job goes back to the queue, durable, for the next start
};

inline const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kClient:
      return "client";
    case StopReason::kDeadline:
      return "deadline";
    case StopReason::kShutdown:
      return "shutdown";
    case StopReason::kNone:
      break;
  }
  return "none";
}

class JobControl {
 public:
  // The first reason wins: a deadline that passes during shutdown does not turn a requeue into
  // a cancellation, nor the other way round.
  void Stop(StopReason reason) {
    int expected = static_cast<int>(StopReason::kNone);
    reason_.compare_exchange_strong(expected, static_cast<int>(reason));
    stop_.store(true, std::memory_order_release);
  }
  StopReason reason() const { return static_cast<StopReason>(reason_.load()); }
  // What the prover polls before every chunk.
  const std::atomic<bool>* flag() const { return &stop_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> reason_{static_cast<int>(StopReason::kNone)};
};

}  // namespace provd::daemon
