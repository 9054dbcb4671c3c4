// Decides which accepted job runs when. High before low, FIFO within a priority (by acceptance
// order). `slots` jobs run at once; a high-priority job may also start when only the slots are
// full of low-priority work: it then takes a GPU from one of them through the arbiter, and the
// low job carries on on the CPU. Each running job has a thread of its own (low-priority ones at
// a higher nice value), so a proof never waits for another to give up a thread.
//
// Also: cancellation (queued: at once; running: at its next chunk), per-job deadlines, the
// retention of finished jobs, and a shutdown that lets running jobs finish within a grace
// period and puts the rest back in the queue, durably.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/jobs/event_hub.hpp"
#include "daemon/jobs/job_control.hpp"
#include "daemon/jobs/job_runner.hpp"
#include "daemon/metrics.hpp"
#include "daemon/store/job_store.hpp"

namespace provd::daemon {

struct SchedulerOptions {
  size_t slots = 1;            // jobs running at once (more for high priority, see above)
  int64_t max_queued = 10000;  // SubmitJob answers RESOURCE_EXHAUSTED beyond this
  absl::Duration retention = absl::Hours(24 * 7);  // finished jobs are removed after this
  absl::Duration tick = absl::Milliseconds(200);   // how often deadlines are checked
  int low_priority_nice = 19;  // nice value of low-priority job threads (0: unchanged)
  Metrics* metrics = nullptr;  // may be null
  // A job whose QueuedJob::memory_bytes would take the running jobs' sum past this waits (at
  // the head of the queue) until enough of them finish; a job always starts when nothing else
  // runs. 0: no limit.
  uint64_t memory_budget_bytes = 0;
};

// What the scheduler holds right now, for the metrics.
struct SchedulerSnapshot {
  struct PerPriority {
    int64_t queued = 0;
    int64_t running = 0;
    absl::Duration oldest_queued_age;  // zero when none is queued
  };
  PerPriority high, low;
};

class Scheduler {
 public:
  Scheduler(JobStore& store, JobRunner& runner, EventHub& hub, SchedulerOptions options)
      : store_(store), runner_(runner), hub_(hub), options_(options) {}
  ~Scheduler() { Stop(absl::ZeroDuration()); }

  // Requeues what was running when the daemon last stopped, loads the queue from the store and
  // starts dispatching.
  absl::Status Start();

  // A job the store has just accepted.
  void Enqueue(const QueuedJob& job);
  // True when the queue holds max_queued jobs.
  bool Full() const;

  // A queued job is cancelled at once; a running one is asked to stop at its next chunk, and
  // the call waits up to `wait` for it to end. Returns the job as it is then.
  absl::StatusOr<provd::v1::Job> Cancel(const std::string& id, absl::Duration wait);

  SchedulerSnapshot Snapshot() const;

  // Starts nothing more, lets running jobs finish for `grace`, then stops the rest at their
  // next chunk and requeues them durably. Idempotent.
  void Stop(absl::Duration grace);

 private:
  using QueueKey = std::pair<int, int64_t>;  // (0 for high, 1 for low; acceptance order)
  struct Running {
    JobControl control;
    bool high = false;
    uint64_t memory_bytes = 0;
    absl::Time accepted_at;
    std::optional<absl::Time> expires_at;
    std::thread thread;
    bool done = false;
  };

  void DispatchLoop();
  void StartRunnableLocked();
  void ExpireDeadlinesLocked(absl::Time now);
  void ReapLocked();
  void RunJob(StartedJob job, Running* running);
  // store_.Finish, retried while the store is UNAVAILABLE until the scheduler stops.
  absl::StatusOr<provd::v1::Job> FinishDurably(const std::string& id, const JobEnding& ending);

  JobStore& store_;
  JobRunner& runner_;
  EventHub& hub_;
  const SchedulerOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<QueueKey, QueuedJob> queue_;
  std::map<std::string, QueueKey> queued_by_id_;
  std::map<std::string, std::unique_ptr<Running>> running_;
  size_t active_ = 0;           // running jobs whose thread has not finished
  size_t active_high_ = 0;      // of which high priority
  uint64_t active_memory_ = 0;  // their QueuedJob::memory_bytes
  bool dispatching_ = false;
  bool stopped_ = false;
  absl::Time next_retention_ = absl::InfinitePast();
  // While the store cannot be written: no job starts before this (InfinitePast: it can).
  absl::Time store_retry_at_ = absl::InfinitePast();
  std::thread dispatcher_;
};

}  // namespace provd::daemon
