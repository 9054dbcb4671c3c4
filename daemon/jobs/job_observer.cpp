#include "daemon/jobs/job_observer.hpp"

#include <set>

#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

using google::protobuf::util::TimeUtil;

uint32_t RoundIndex(plan::Round round) { return static_cast<uint32_t>(plan::PlanIndex(round)); }

}  // namespace

void JobObserver::Record(provd::v1::JobEvent event) {
  attempt_events_.push_back(event);
  // A progress event that cannot be written is logged, not fatal: the proof itself is fine, and
  // the final state (written with its own transaction) is what clients depend on.
  if (absl::StatusOr<uint64_t> s = store_.Append(job_id_, std::move(event)); !s.ok()) {
    spdlog::warn("job {}: cannot record an event: {}", job_id_, s.status().ToString());
  }
  hub_.Notify();
}

provd::v1::JobEvent::ProofRejected JobObserver::EndRejectedAttempt(std::string reason) {
  provd::v1::JobEvent::ProofRejected rejected;
  rejected.set_reason(std::move(reason));
  // The store's own reading of events into rounds: the event shows what GetJob showed.
  provd::v1::Job attempt;
  RoundsFromEvents(attempt_events_, attempt);
  *rejected.mutable_rounds() = std::move(*attempt.mutable_rounds());
  std::set<uint32_t> gpus;  // those that ran at least one chunk
  for (const provd::v1::RoundExecution& round : rejected.rounds()) {
    for (const provd::v1::ChunkSpan& span : round.spans()) {
      if (span.backend() == provd::v1::BACKEND_GPU) gpus.insert(span.gpu_index());
    }
  }
  for (uint32_t gpu : gpus) rejected.add_gpu_indices(gpu);
  attempt_events_.clear();
  return rejected;
}

absl::Status JobObserver::RecordRejection(provd::v1::JobEvent::ProofRejected rejected) {
  provd::v1::JobEvent event;
  *event.mutable_proof_rejected() = std::move(rejected);
  absl::StatusOr<uint64_t> appended = store_.AppendRejection(job_id_, std::move(event));
  if (!appended.ok()) {
    spdlog::warn("job {}: cannot record the rejected proof: {}", job_id_,
                 appended.status().ToString());
  }
  hub_.Notify();
  return appended.status();
}

void JobObserver::CloseSegment(bool was_on_gpu) {
  const absl::Time now = absl::Now();
  if (segment_start_ && metrics_ != nullptr) {
    metrics_->ProvingTime(priority_, was_on_gpu, now - *segment_start_);
  }
  segment_start_ = now;
}

void JobObserver::Finish() {
  if (segment_start_) CloseSegment(OnGpu());
  segment_start_.reset();
}

std::optional<size_t> JobObserver::Device() const {
  return lease_ != nullptr ? lease_->device() : std::nullopt;
}

template <typename RoundEvent>
void JobObserver::SetBackend(RoundEvent& event) const {
  const std::optional<size_t> device = Device();
  event.set_backend(device ? provd::v1::BACKEND_GPU : provd::v1::BACKEND_CPU);
  if (device) event.set_gpu_index(static_cast<uint32_t>(*device));
}

void JobObserver::RoundStarted(plan::Round round, size_t chunks) {
  provd::v1::JobEvent event;
  auto* started = event.mutable_round_started();
  started->set_round_index(RoundIndex(round));
  started->set_round_name(plan::RoundName(round));
  started->set_chunk_total(static_cast<uint32_t>(chunks));
  SetBackend(*started);
  if (!segment_start_) segment_start_ = absl::Now();
  spdlog::debug("job {}: round {} started on {} ({} chunks)", job_id_, plan::RoundName(round),
                started->backend() == provd::v1::BACKEND_GPU ? "gpu" : "cpu", chunks);
  Record(std::move(event));
}

void JobObserver::RoundFinished(plan::Round round, size_t /*chunks*/, absl::Duration wall) {
  provd::v1::JobEvent event;
  auto* finished = event.mutable_round_finished();
  finished->set_round_index(RoundIndex(round));
  finished->set_round_name(plan::RoundName(round));
  SetBackend(*finished);
  *finished->mutable_elapsed() = TimeUtil::NanosecondsToDuration(absl::ToInt64Nanoseconds(wall));
  if (metrics_ != nullptr)
    metrics_->RoundFinished(plan::RoundName(round), finished->backend() == provd::v1::BACKEND_GPU,
                            wall);
  spdlog::debug("job {}: round {} finished in {}", job_id_, plan::RoundName(round),
                absl::FormatDuration(wall));
  Record(std::move(event));
}

void JobObserver::DeviceMoved(const plan::ChunkRef& chunk, plan::DeviceMove move, size_t device,
                              absl::Duration took) {
  // The segment before the move ran on the GPU exactly when this move is a yield.
  CloseSegment(/*was_on_gpu=*/move == plan::DeviceMove::kYielded);
  if (metrics_ != nullptr) {
    if (move == plan::DeviceMove::kYielded) {
      metrics_->GpuYielded(device, took);
    } else {
      metrics_->GpuReturned(device);
    }
  }
  provd::v1::JobEvent event;
  if (move == plan::DeviceMove::kYielded) {
    auto* yielded = event.mutable_device_yielded();
    yielded->set_gpu_index(static_cast<uint32_t>(device));
    yielded->set_round_index(RoundIndex(chunk.round));
    yielded->set_chunk_index(static_cast<uint32_t>(chunk.index));
    *yielded->mutable_latency() = TimeUtil::NanosecondsToDuration(absl::ToInt64Nanoseconds(took));
  } else {
    auto* returned = event.mutable_device_returned();
    returned->set_gpu_index(static_cast<uint32_t>(device));
    returned->set_round_index(RoundIndex(chunk.round));
    returned->set_chunk_index(static_cast<uint32_t>(chunk.index));
  }
  spdlog::info("job {}: {} gpu {} before chunk {}/{} of {} ({})", job_id_,
               plan::DeviceMoveName(move), device, chunk.index, chunk.count,
               plan::RoundName(chunk.round), absl::FormatDuration(took));
  Record(std::move(event));
}

void JobObserver::ChunkFellBack(const plan::ChunkRef& chunk, std::string_view backend,
                                const absl::Status& error) {
  provd::v1::JobEvent event;
  auto* fallback = event.mutable_gpu_fallback();
  const std::optional<size_t> device = Device();
  fallback->set_gpu_index(static_cast<uint32_t>(device.value_or(0)));
  fallback->set_round_index(RoundIndex(chunk.round));
  fallback->set_chunk_index(static_cast<uint32_t>(chunk.index));
  fallback->set_reason(error.ToString());
  if (metrics_ != nullptr) metrics_->GpuFellBack(device.value_or(0), error.code());
  spdlog::warn("job {}: chunk {}/{} of {} failed on {} and runs on the CPU instead: {}", job_id_,
               chunk.index, chunk.count, plan::RoundName(chunk.round), backend, error.ToString());
  Record(std::move(event));
}

void JobObserver::DeviceRetired(const plan::ChunkRef& chunk, size_t device,
                                const absl::Status& error) {
  // The chunk that failed ran on the GPU; what follows runs on the CPU (or another GPU, which a
  // DeviceReturned event will say).
  CloseSegment(/*was_on_gpu=*/true);
  provd::v1::JobEvent event;
  auto* retired = event.mutable_device_retired();
  retired->set_gpu_index(static_cast<uint32_t>(device));
  retired->set_round_index(RoundIndex(chunk.round));
  retired->set_chunk_index(static_cast<uint32_t>(chunk.index));
  retired->set_reason(error.ToString());
  spdlog::error(
      "job {}: gpu {} is unusable by this daemon and is retired until the daemon restarts; no "
      "job will use it before then: {}",
      job_id_, device, error.ToString());
  Record(std::move(event));
  if (on_device_retired_) on_device_retired_(device);
}

}  // namespace provd::daemon
