#include "client/job_follow.hpp"

#include <algorithm>

#include "absl/functional/function_ref.h"

namespace provd::client {
namespace {

// A restart of the daemon takes seconds; 5 s keeps a waiting client responsive without
// hammering a daemon that is down for longer.
constexpr absl::Duration kInitialDelay = absl::Milliseconds(250);
constexpr absl::Duration kMaxDelay = absl::Seconds(5);

// What a watcher sees when the daemon stops or restarts under it: UNAVAILABLE when the
// connection drops, CANCELLED when the server cancels its streams while shutting down, and
// DEADLINE_EXCEEDED from a proxy's stream timeout (ours is checked before this is asked).
bool IsReconnectable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kCancelled ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

// The delay to wait before the next try, cut short by `deadline`; zero when none is left.
absl::Duration DelayBefore(absl::Time deadline, Backoff& backoff) {
  return std::max(absl::ZeroDuration(), std::min(backoff.Next(), deadline - absl::Now()));
}

template <typename T>
absl::StatusOr<T> CallWithRetry(ProverClient& client, const RetryPolicy& policy,
                                absl::FunctionRef<absl::StatusOr<T>()> call) {
  Backoff backoff(kInitialDelay, kMaxDelay);
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<T> result = call();
    if (result.ok() || !IsTransient(result.status())) return result;
    if (policy.max_attempts > 0 && attempt >= policy.max_attempts) return result;
    const absl::Duration delay = DelayBefore(policy.deadline, backoff);
    if (delay <= absl::ZeroDuration()) return result;
    if (policy.on_retry) policy.on_retry(result.status(), delay);
    client.PauseBeforeRetry(absl::ToChronoTime(absl::Now() + delay));
  }
}

}  // namespace

absl::Duration Backoff::Next() {
  next_ = next_ == absl::ZeroDuration() ? initial_ : std::min(next_ * 2, max_);
  return next_ * absl::Uniform(random_, 0.8, 1.2);
}

bool IsTransient(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

absl::StatusOr<provd::v1::SubmitJobResponse> SubmitJobWithRetry(
    ProverClient& client, const provd::v1::SubmitJobRequest& request, const RetryPolicy& policy) {
  RetryPolicy effective = policy;
  // Without a request_id a retry after a lost response would create a second job.
  if (request.request_id().empty()) effective.max_attempts = 1;
  return CallWithRetry<provd::v1::SubmitJobResponse>(client, effective,
                                                     [&] { return client.SubmitJob(request); });
}

absl::StatusOr<provd::v1::Job> GetJobWithRetry(ProverClient& client, const std::string& job_id,
                                               const RetryPolicy& policy) {
  return CallWithRetry<provd::v1::Job>(client, policy, [&] { return client.GetJob(job_id); });
}

std::optional<provd::v1::JobState> FinalStateOf(const provd::v1::JobEvent& event) {
  switch (event.event_case()) {
    case provd::v1::JobEvent::kSucceeded:
      return provd::v1::JOB_STATE_SUCCEEDED;
    case provd::v1::JobEvent::kFailed:
      return provd::v1::JOB_STATE_FAILED;
    case provd::v1::JobEvent::kCancelled:
      return provd::v1::JOB_STATE_CANCELLED;
    default:
      return std::nullopt;
  }
}

bool IsFinalState(provd::v1::JobState state) {
  return state == provd::v1::JOB_STATE_SUCCEEDED || state == provd::v1::JOB_STATE_FAILED ||
         state == provd::v1::JOB_STATE_CANCELLED;
}

absl::StatusOr<FollowResult> FollowJob(ProverClient& client, const std::string& job_id,
                                       const FollowOptions& options) {
  FollowResult result;
  result.last_sequence = options.from_sequence > 0 ? options.from_sequence - 1 : 0;
  bool job_exists = options.retry_before_first_event;
  Backoff backoff(kInitialDelay, kMaxDelay);
  auto on_event = [&](const provd::v1::JobEvent& event) {
    // A resumed stream starts after the last event seen; this guards against a server that
    // repeats events anyway, so that callers never see one twice.
    if (event.sequence() <= result.last_sequence) return;
    result.last_sequence = event.sequence();
    job_exists = true;
    backoff.Reset();  // the connection works again: the next outage starts with a short delay
    if (std::optional<provd::v1::JobState> final_state = FinalStateOf(event)) {
      result.final_state = final_state;
      result.final_event = event;
    }
    if (options.on_event) options.on_event(event);
  };

  while (absl::Now() < options.deadline) {
    provd::v1::WatchJobRequest request;
    request.set_job_id(job_id);
    request.set_from_sequence(result.last_sequence + 1);
    absl::Status status = client.WatchJob(request, absl::ToChronoTime(options.deadline), on_event);
    // Once the final event is in, how the stream ended no longer matters.
    if (result.final_state) return result;
    if (status.ok()) {
      // The stream ended without a final event: either from_sequence was past the job's last
      // event (the job is finished) or the daemon closed the stream early because it is
      // stopping (the job is not). The job's state tells which.
      absl::StatusOr<provd::v1::Job> job = client.GetJob(job_id);
      if (job.ok() && IsFinalState(job->state())) {
        result.final_state = job->state();
        return result;
      }
      job_exists = job_exists || job.ok();
      status = job.ok() ? absl::UnavailableError("the event stream ended before the job finished")
                        : job.status();
    }
    if (absl::Now() >= options.deadline) break;
    if (!job_exists || !IsReconnectable(status)) return status;
    const absl::Duration delay = DelayBefore(options.deadline, backoff);
    if (options.on_reconnect) options.on_reconnect(status, delay);
    client.PauseBeforeRetry(absl::ToChronoTime(absl::Now() + delay));
  }
  return result;  // the deadline passed first
}

}  // namespace provd::client
