// Waiting for a job to finish in spite of an unreliable connection: the daemon keeps accepted
// jobs across restarts and its events are numbered, so a client that reconnects and resumes the
// watch after the last event it saw misses nothing. Used by `provctl submit --wait` and
// `provctl watch`; usable by any C++ client.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/prover_client.hpp"
#include "provd/v1/prover.pb.h"

namespace provd::client {

// Exponential backoff with jitter, so that a fleet of clients cut off by one daemon restart does
// not reconnect in lockstep.
class Backoff {
 public:
  Backoff(absl::Duration initial, absl::Duration max) : initial_(initial), max_(max) {}
  // The delay before the next try: initial, then doubling up to max, each +-20%.
  absl::Duration Next();
  // Starts over at `initial` (after a try made progress).
  void Reset() { next_ = absl::ZeroDuration(); }

 private:
  absl::Duration initial_;
  absl::Duration max_;
  absl::Duration next_ = absl::ZeroDuration();
  absl::BitGen random_;
};

// Called before each retry with the error of the try that failed and the delay before the next.
using RetryObserver = std::function<void(const absl::Status& error, absl::Duration delay)>;

struct RetryPolicy {
  // Tries in all, the first included; 0: no limit other than the deadline.
  int max_attempts = 1;
  // No retry starts after this; the last error is returned instead.
  absl::Time deadline = absl::InfiniteFuture();
  RetryObserver on_retry;
};

// UNAVAILABLE (no connection, daemon restarting or shutting down) and DEADLINE_EXCEEDED (no
// answer in time): errors after which repeating an idempotent call may succeed.
bool IsTransient(const absl::Status& status);

// Submits `request`, retrying transient errors only when it has a request_id: the daemon then
// returns the job of the first attempt that got through instead of creating a second one.
absl::StatusOr<provd::v1::SubmitJobResponse> SubmitJobWithRetry(
    ProverClient& client, const provd::v1::SubmitJobRequest& request, const RetryPolicy& policy);

// GetJob, retrying transient errors (GetJob is read-only, so always safe to repeat).
absl::StatusOr<provd::v1::Job> GetJobWithRetry(ProverClient& client, const std::string& job_id,
                                               const RetryPolicy& policy);

// The state a final event (succeeded, failed, cancelled) leaves the job in; nullopt for others.
std::optional<provd::v1::JobState> FinalStateOf(const provd::v1::JobEvent& event);

// True for SUCCEEDED, FAILED and CANCELLED.
bool IsFinalState(provd::v1::JobState state);

struct FollowOptions {
  // The first event to report; 0 and 1 both mean from the start.
  uint64_t from_sequence = 0;
  // When to give up waiting (FollowResult::final_state stays unset).
  absl::Time deadline = absl::InfiniteFuture();
  // Whether to reconnect when the first watch fails before delivering any event. True once the
  // job is known to exist (right after SubmitJob); false for a plain watch, so that a wrong
  // address or a daemon that is not running fails at once instead of being waited for.
  bool retry_before_first_event = false;
  // Called once per event, in sequence order, never twice for the same sequence number.
  std::function<void(const provd::v1::JobEvent&)> on_event;
  // Called before each reconnection.
  RetryObserver on_reconnect;
};

struct FollowResult {
  // The job's final state; unset when the deadline passed first.
  std::optional<provd::v1::JobState> final_state;
  // The final event (succeeded, failed with its error, cancelled with its reason); unset when
  // the deadline passed first or the stream had no events left to send (from_sequence past
  // the end of a finished job).
  std::optional<provd::v1::JobEvent> final_event;
  // The sequence number of the last event seen (0: none).
  uint64_t last_sequence = 0;
};

// Watches `job_id` until its final event, reconnecting with backoff after UNAVAILABLE or
// CANCELLED (what a client sees when the daemon stops or restarts) and resuming after the last
// event seen. Returns an error only for a failure that reconnecting cannot fix (NOT_FOUND,
// PERMISSION_DENIED, INVALID_ARGUMENT, ...).
absl::StatusOr<FollowResult> FollowJob(ProverClient& client, const std::string& job_id,
                                       const FollowOptions& options);

}  // namespace provd::client
