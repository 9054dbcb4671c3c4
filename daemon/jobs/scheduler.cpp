#include "daemon/jobs/scheduler.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/jobs/labels.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

constexpr absl::Duration kRetentionInterval = absl::Minutes(1);
// While the store cannot be written (its database is down), dispatching pauses this long
// between tries, and a finished job's end is retried with a backoff up to the longer one.
constexpr absl::Duration kStoreRetry = absl::Seconds(1);
constexpr absl::Duration kMaxFinishRetry = absl::Seconds(5);

int Rank(provd::v1::Priority priority) { return priority == provd::v1::PRIORITY_HIGH ? 0 : 1; }

}  // namespace

absl::Status Scheduler::Start() {
  absl::StatusOr<std::vector<QueuedJob>> queued = store_.RecoverQueued();
  if (!queued.ok()) return queued.status();
  {
    std::lock_guard lock(mutex_);
    for (const QueuedJob& job : *queued) {
      if (job.requeued && options_.metrics != nullptr) options_.metrics->JobRequeued();
      const QueueKey key{Rank(job.priority), job.order};
      queue_.emplace(key, job);
      queued_by_id_.emplace(job.id, key);
    }
    dispatching_ = true;
  }
  if (!queued->empty()) spdlog::info("{} job(s) waiting in the queue from before", queued->size());
  dispatcher_ = std::thread([this] { DispatchLoop(); });
  return absl::OkStatus();
}

void Scheduler::Enqueue(const QueuedJob& job) {
  {
    std::lock_guard lock(mutex_);
    const QueueKey key{Rank(job.priority), job.order};
    queue_.emplace(key, job);
    queued_by_id_.emplace(job.id, key);
  }
  wake_.notify_all();
}

bool Scheduler::Full() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(queue_.size()) >= options_.max_queued;
}

absl::StatusOr<provd::v1::Job> Scheduler::Cancel(const std::string& id, absl::Duration wait) {
  {
    std::lock_guard lock(mutex_);
    if (auto queued = queued_by_id_.find(id); queued != queued_by_id_.end()) {
      JobEnding ending;
      ending.state = provd::v1::JOB_STATE_CANCELLED;
      ending.cancel_reason = "client";
      ending.error = absl::CancelledError("cancelled by a client");
      absl::StatusOr<provd::v1::Job> job = store_.Finish(id, ending);
      if (!job.ok()) return job.status();
      const QueuedJob& cancelled = queue_.at(queued->second);
      if (options_.metrics != nullptr) {
        options_.metrics->JobCompleted(cancelled.kind, PriorityLabel(cancelled.priority),
                                       "cancelled", absl::Now() - cancelled.accepted_at);
      }
      queue_.erase(queued->second);
      queued_by_id_.erase(queued);
      spdlog::info("job {}: cancelled while queued", id);
      hub_.Notify();
      return job;
    }
    if (auto running = running_.find(id); running != running_.end() && !running->second->done) {
      running->second->control.Stop(StopReason::kClient);
      spdlog::info("job {}: cancellation requested; it stops at its next chunk", id);
    }
  }
  // Wait a little for a running job to reach its final state, so that the answer usually shows
  // it; the job's events tell the rest.
  const absl::Time give_up = absl::Now() + wait;
  for (;;) {
    const uint64_t seen = hub_.generation();
    absl::StatusOr<provd::v1::JobState> state = store_.State(id);
    if (!state.ok()) return state.status();
    if (*state != provd::v1::JOB_STATE_RUNNING || absl::Now() >= give_up) return store_.Get(id);
    hub_.WaitForChange(seen, give_up - absl::Now());
  }
}

SchedulerSnapshot Scheduler::Snapshot() const {
  std::lock_guard lock(mutex_);
  SchedulerSnapshot snapshot;
  const absl::Time now = absl::Now();
  for (const auto& [key, job] : queue_) {
    SchedulerSnapshot::PerPriority& p = key.first == 0 ? snapshot.high : snapshot.low;
    ++p.queued;
    p.oldest_queued_age = std::max(p.oldest_queued_age, now - job.accepted_at);
  }
  for (const auto& [id, running] : running_) {
    if (!running->done) ++(running->high ? snapshot.high : snapshot.low).running;
  }
  return snapshot;
}

void Scheduler::Stop(absl::Duration grace) {
  std::unique_lock lock(mutex_);
  if (stopped_) return;
  stopped_ = true;
  dispatching_ = false;
  wake_.notify_all();
  if (active_ > 0) {
    spdlog::info("waiting up to {} for {} running job(s)", absl::FormatDuration(grace), active_);
    wake_.wait_for(lock, absl::ToChronoNanoseconds(grace), [this] { return active_ == 0; });
  }
  if (active_ > 0) {
    spdlog::info("requeueing {} unfinished job(s)", active_);
    for (auto& [id, running] : running_) {
      if (!running->done) running->control.Stop(StopReason::kShutdown);
    }
    wake_.wait(lock, [this] { return active_ == 0; });
  }
  ReapLocked();
  lock.unlock();
  wake_.notify_all();
  if (dispatcher_.joinable()) dispatcher_.join();
}

void Scheduler::DispatchLoop() {
  std::unique_lock lock(mutex_);
  while (!stopped_) {
    ReapLocked();
    const absl::Time now = absl::Now();
    ExpireDeadlinesLocked(now);
    if (now >= next_retention_) {
      next_retention_ = now + kRetentionInterval;
      absl::StatusOr<int64_t> removed = store_.RemoveFinishedBefore(now - options_.retention);
      if (!removed.ok()) {
        spdlog::error("cannot remove expired jobs: {}", removed.status().ToString());
      } else if (*removed > 0) {
        spdlog::info("removed {} job(s) finished more than {} ago", *removed,
                     absl::FormatDuration(options_.retention));
      }
    }
    if (dispatching_ && absl::Now() >= store_retry_at_) StartRunnableLocked();
    wake_.wait_for(lock, absl::ToChronoNanoseconds(options_.tick));
  }
}

void Scheduler::StartRunnableLocked() {
  while (!queue_.empty()) {
    auto next = queue_.begin();
    const bool high = next->second.priority == provd::v1::PRIORITY_HIGH;
    // A high job needs a slot among high jobs only: it preempts low ones through the arbiter.
    if (high ? active_high_ >= options_.slots : active_ >= options_.slots) return;
    // Memory is not preempted the way a GPU is: a job that does not fit waits, high or low,
    // and the ones behind it wait too (FIFO is kept; nothing overtakes it forever).
    const uint64_t budget = options_.memory_budget_bytes;
    if (budget != 0 && active_ > 0 && active_memory_ + next->second.memory_bytes > budget) return;
    QueuedJob job = next->second;
    queue_.erase(next);
    queued_by_id_.erase(job.id);
    absl::StatusOr<StartedJob> started = store_.Start(job.id);
    if (!started.ok() && absl::IsUnavailable(started.status())) {
      // The job is still QUEUED in the store: it keeps its place here, and nothing starts
      // until the store can be written again.
      const QueueKey key{Rank(job.priority), job.order};
      queued_by_id_.emplace(job.id, key);
      queue_.emplace(key, std::move(job));
      if (store_retry_at_ == absl::InfinitePast()) {
        spdlog::error("the job store cannot be written; no job starts until it can: {}",
                      started.status().ToString());
      }
      store_retry_at_ = absl::Now() + kStoreRetry;
      return;
    }
    if (store_retry_at_ != absl::InfinitePast()) {
      spdlog::info("the job store can be written again; starting jobs");
      store_retry_at_ = absl::InfinitePast();
    }
    if (!started.ok()) {
      spdlog::error("job {}: cannot start: {}", job.id, started.status().ToString());
      continue;
    }
    hub_.Notify();
    auto running = std::make_unique<Running>();
    running->high = high;
    running->memory_bytes = job.memory_bytes;
    active_memory_ += job.memory_bytes;
    running->accepted_at = job.accepted_at;
    if (options_.metrics != nullptr) {
      options_.metrics->JobStarted(PriorityLabel(job.priority), absl::Now() - job.accepted_at);
    }
    running->expires_at = job.expires_at;
    Running* handle = running.get();
    ++active_;
    if (high) ++active_high_;
    spdlog::info("job {}: started (attempt {}, {} priority, key {})", job.id, started->attempt,
                 high ? "high" : "low", started->zkey_name);
    running->thread =
        std::thread([this, started = *std::move(started), handle] { RunJob(started, handle); });
    running_.emplace(job.id, std::move(running));
  }
}

void Scheduler::ExpireDeadlinesLocked(absl::Time now) {
  std::vector<std::string> expired;
  for (const auto& [key, job] : queue_) {
    if (job.expires_at && *job.expires_at <= now && now >= store_retry_at_) {
      expired.push_back(job.id);
    }
  }
  for (const std::string& id : expired) {
    JobEnding ending;
    ending.state = provd::v1::JOB_STATE_CANCELLED;
    ending.cancel_reason = "deadline";
    ending.error = absl::DeadlineExceededError("the job's deadline passed while it was queued");
    if (absl::StatusOr<provd::v1::Job> job = store_.Finish(id, ending); !job.ok()) {
      spdlog::error("job {}: cannot cancel at its deadline: {}", id, job.status().ToString());
      if (absl::IsUnavailable(job.status())) {
        // Still queued in the store: it stays queued here too, tried again once the store
        // can be written.
        store_retry_at_ = now + kStoreRetry;
        break;
      }
    } else {
      spdlog::info("job {}: deadline passed while queued; cancelled", id);
      const QueuedJob& expired_job = queue_.at(queued_by_id_.at(id));
      if (options_.metrics != nullptr) {
        options_.metrics->JobCompleted(expired_job.kind, PriorityLabel(expired_job.priority),
                                       "cancelled", now - expired_job.accepted_at);
      }
    }
    queue_.erase(queued_by_id_.at(id));
    queued_by_id_.erase(id);
    hub_.Notify();
  }
  for (auto& [id, running] : running_) {
    if (!running->done && running->expires_at && *running->expires_at <= now &&
        running->control.reason() == StopReason::kNone) {
      spdlog::info("job {}: deadline passed; stopping it at its next chunk", id);
      running->control.Stop(StopReason::kDeadline);
    }
  }
}

void Scheduler::ReapLocked() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (!it->second->done) {
      ++it;
      continue;
    }
    it->second->thread.join();  // it has marked itself done: only its return is left
    it = running_.erase(it);
  }
}

absl::StatusOr<provd::v1::Job> Scheduler::FinishDurably(const std::string& id,
                                                        const JobEnding& ending) {
  // A proof must not be lost to a database outage: its end is retried until the store takes it
  // or the daemon stops (the job is then still RUNNING in the store, and the next start
  // requeues it).
  absl::Duration backoff = absl::Milliseconds(250);
  for (;;) {
    absl::StatusOr<provd::v1::Job> finished = store_.Finish(id, ending);
    if (finished.ok() || !absl::IsUnavailable(finished.status())) return finished;
    spdlog::warn("job {}: cannot record its end yet, retrying in {}: {}", id,
                 absl::FormatDuration(backoff), finished.status().ToString());
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, absl::ToChronoNanoseconds(backoff), [this] { return stopped_; })) {
      return finished;
    }
    backoff = std::min(backoff * 2, kMaxFinishRetry);
  }
}

void Scheduler::RunJob(StartedJob job, Running* running) {
  if (!running->high && options_.low_priority_nice > 0) {
    // Linux applies nice per thread: this one, which also works inside its proof's loops.
    (void)::setpriority(PRIO_PROCESS, 0, options_.low_priority_nice);
  }
  std::optional<JobEnding> ending = runner_.Run(job, running->control);
  if (!ending) {
    if (absl::Status s = store_.Requeue(job.id); !s.ok()) {
      // Left RUNNING in the store: the next start requeues it.
      spdlog::error("job {}: cannot requeue: {}", job.id, s.ToString());
    } else {
      spdlog::info("job {}: stopped for shutdown; queued again", job.id);
      if (options_.metrics != nullptr) options_.metrics->JobRequeued();
    }
  } else {
    absl::StatusOr<provd::v1::Job> finished = FinishDurably(job.id, *ending);
    if (finished.ok() && options_.metrics != nullptr) {
      options_.metrics->JobCompleted(JobKindLabel(job.spec), PriorityLabel(job.priority),
                                     OutcomeLabel(ending->state),
                                     absl::Now() - running->accepted_at);
    }
    if (!finished.ok()) {
      spdlog::error("job {}: cannot record its end ({}): {}", job.id,
                    provd::v1::JobState_Name(ending->state), finished.status().ToString());
    } else if (ending->state == provd::v1::JOB_STATE_SUCCEEDED) {
      spdlog::info("job {}: succeeded", job.id);
    } else {
      spdlog::info("job {}: {}: {}", job.id, provd::v1::JobState_Name(ending->state),
                   ending->error.ToString());
    }
  }
  hub_.Notify();
  {
    std::lock_guard lock(mutex_);
    running->done = true;
    --active_;
    if (running->high) --active_high_;
    active_memory_ -= running->memory_bytes;
  }
  wake_.notify_all();
}

}  // namespace provd::daemon
