// Turns what happens inside a proof (rounds, device moves, GPU fallbacks) into the job's
// durable events and log lines, each carrying the job id.
#pragma once

#include <string>

#include "arbiter/arbiter.hpp"
#include "daemon/jobs/event_hub.hpp"
#include "daemon/store/job_store.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::daemon {

class JobObserver final : public plan::ProofObserver {
 public:
  JobObserver(std::string job_id, JobStore& store, EventHub& hub)
      : job_id_(std::move(job_id)), store_(store), hub_(hub) {}

  // The job's lease (null: CPU only) tells which backend a round starts on.
  void set_lease(const arbiter::DeviceLease* lease) { lease_ = lease; }

  void RoundStarted(plan::Round round, size_t chunks) override;
  void RoundFinished(plan::Round round, size_t chunks, absl::Duration wall) override;
  void DeviceMoved(const plan::ChunkRef& chunk, plan::DeviceMove move, size_t device,
                   absl::Duration took) override;
  void ChunkFellBack(const plan::ChunkRef& chunk, std::string_view backend,
                     const absl::Status& error) override;

  // Records an event that is not about a round (e.g. the lease's first device).
  void Record(provd::v1::JobEvent event);

 private:
  void SetBackend(provd::v1::JobEvent::RoundStarted& event) const;

  std::string job_id_;
  JobStore& store_;
  EventHub& hub_;
  const arbiter::DeviceLease* lease_ = nullptr;
};

}  // namespace provd::daemon
