// Turns what happens inside a proof (rounds, device moves, GPU fallbacks) into the job's
// durable events and log lines, each carrying the job id.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/arbiter.hpp"
#include "daemon/jobs/event_hub.hpp"
#include "daemon/metrics.hpp"
#include "daemon/store/job_store.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::daemon {

class JobObserver final : public plan::ProofObserver {
 public:
  // `metrics` may be null; `priority` labels the proving time.
  JobObserver(std::string job_id, const char* priority, JobStore& store, EventHub& hub,
              Metrics* metrics)
      : job_id_(std::move(job_id)),
        priority_(priority),
        store_(store),
        hub_(hub),
        metrics_(metrics) {}

  // The job's lease (null: CPU only) tells which backend a round starts on.
  void set_lease(const arbiter::DeviceLease* lease) { lease_ = lease; }
  // Called after a DeviceRetired event is recorded (may be empty).
  void set_on_device_retired(std::function<void(size_t)> callback) {
    on_device_retired_ = std::move(callback);
  }

  void RoundStarted(plan::Round round, size_t chunks) override;
  void RoundFinished(plan::Round round, size_t chunks, absl::Duration wall) override;
  void DeviceMoved(const plan::ChunkRef& chunk, plan::DeviceMove move, size_t device,
                   absl::Duration took) override;
  void ChunkFellBack(const plan::ChunkRef& chunk, std::string_view backend,
                     const absl::Status& error) override;
  void DeviceRetired(const plan::ChunkRef& chunk, size_t device,
                     const absl::Status& error) override;

  // Records an event that is not about a round (e.g. the lease's first device).
  void Record(provd::v1::JobEvent event);
  // Counts the proving time since the last device move; call when the proof has returned.
  void Finish();

  // What the attempt so far ran where, for its ProofRejected event (reason and the rounds and
  // GPUs filled in); the next events begin a new attempt.
  provd::v1::JobEvent::ProofRejected EndRejectedAttempt(std::string reason);
  // Records a ProofRejected event, dropping the job's MSM progress with it (JobStore); the
  // store's error when it could not (the progress may still be there then).
  absl::Status RecordRejection(provd::v1::JobEvent::ProofRejected rejected);

 private:
  // The lease's device now; nullopt on the CPU.
  std::optional<size_t> Device() const;
  // Backend and GPU index of a RoundStarted or RoundFinished event, from the lease.
  template <typename RoundEvent>
  void SetBackend(RoundEvent& event) const;
  bool OnGpu() const { return Device().has_value(); }
  // Adds the time since the segment began to the backend it ran on, and starts a new one.
  void CloseSegment(bool was_on_gpu);

  std::string job_id_;
  const char* priority_;
  JobStore& store_;
  EventHub& hub_;
  Metrics* metrics_;
  std::optional<absl::Time> segment_start_;  // unset until the first round starts
  const arbiter::DeviceLease* lease_ = nullptr;
  std::function<void(size_t)> on_device_retired_;
  // The events of the current attempt (its rounds, and so its GPUs, are read from them).
  std::vector<provd::v1::JobEvent> attempt_events_;
};

}  // namespace provd::daemon
