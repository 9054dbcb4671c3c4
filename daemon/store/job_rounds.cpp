// Job.rounds is not stored: it is derived from the job's events, the one record of what ran
// where, so the two can never disagree.
#include <optional>

#include "daemon/store/job_store.hpp"
#include "google/protobuf/util/time_util.h"

namespace provd::daemon {
namespace {

using google::protobuf::util::TimeUtil;
using provd::v1::Backend;
using provd::v1::JobEvent;

struct OpenSpan {
  Backend backend = provd::v1::BACKEND_CPU;
  std::optional<uint32_t> gpu_index;
  uint32_t first_chunk = 0;
  google::protobuf::Timestamp started;
};

class RoundBuilder {
 public:
  explicit RoundBuilder(provd::v1::Job& job) : job_(job) {}

  void Add(const JobEvent& event) {
    switch (event.event_case()) {
      case JobEvent::kRoundStarted: {
        const auto& started = event.round_started();
        CloseRound(event.time(), std::nullopt);
        round_ = job_.add_rounds();
        round_->set_round_index(started.round_index());
        round_->set_round_name(started.round_name());
        round_->set_chunk_total(started.chunk_total());
        *round_->mutable_started_at() = event.time();
        Open(started.backend(),
             started.has_gpu_index() ? std::optional(started.gpu_index()) : std::nullopt, 0,
             event.time());
        break;
      }
      case JobEvent::kDeviceYielded:
        Move(event.device_yielded().round_index(), event.device_yielded().chunk_index(),
             provd::v1::BACKEND_CPU, std::nullopt, event.time());
        break;
      case JobEvent::kDeviceRetired:
        Move(event.device_retired().round_index(), event.device_retired().chunk_index(),
             provd::v1::BACKEND_CPU, std::nullopt, event.time());
        break;
      case JobEvent::kDeviceReturned:
        Move(event.device_returned().round_index(), event.device_returned().chunk_index(),
             provd::v1::BACKEND_GPU, event.device_returned().gpu_index(), event.time());
        break;
      case JobEvent::kRoundFinished:
        if (round_ != nullptr && round_->round_index() == event.round_finished().round_index()) {
          CloseRound(event.time(), event.time());
        }
        break;
      default:
        break;
    }
  }

 private:
  void Open(Backend backend, std::optional<uint32_t> gpu, uint32_t first,
            const google::protobuf::Timestamp& time) {
    span_ = OpenSpan{backend, gpu, first, time};
  }

  void CloseSpan(uint32_t end_chunk, const google::protobuf::Timestamp& time) {
    if (!span_ || round_ == nullptr) return;
    if (end_chunk > span_->first_chunk) {  // a move before the span's first chunk leaves none
      provd::v1::ChunkSpan* span = round_->add_spans();
      span->set_backend(span_->backend);
      if (span_->gpu_index) span->set_gpu_index(*span_->gpu_index);
      span->set_first_chunk(span_->first_chunk);
      span->set_chunk_count(end_chunk - span_->first_chunk);
      *span->mutable_elapsed() = time - span_->started;
    }
    span_.reset();
  }

  void Move(uint32_t round_index, uint32_t chunk, Backend backend, std::optional<uint32_t> gpu,
            const google::protobuf::Timestamp& time) {
    // A move between rounds shows in the next RoundStarted's backend.
    if (round_ == nullptr || round_->round_index() != round_index || !span_) return;
    CloseSpan(chunk, time);
    Open(backend, gpu, chunk, time);
  }

  void CloseRound(const google::protobuf::Timestamp& time,
                  std::optional<google::protobuf::Timestamp> finished) {
    if (round_ == nullptr) return;
    CloseSpan(round_->chunk_total(), time);
    if (finished) *round_->mutable_finished_at() = *finished;
    round_ = nullptr;
  }

  provd::v1::Job& job_;
  provd::v1::RoundExecution* round_ = nullptr;  // the round whose RoundFinished is pending
  std::optional<OpenSpan> span_;
};

}  // namespace

void RoundsFromEvents(const std::vector<JobEvent>& events, provd::v1::Job& job) {
  job.clear_rounds();
  std::optional<RoundBuilder> builder(std::in_place, job);
  for (const JobEvent& event : events) {
    // A restart, or a rejected proof and its retry on the CPU, begins the rounds afresh: show
    // the attempt that counts, the last one (a ProofRejected event keeps the rounds it ends).
    if (event.has_started() || event.has_proof_rejected()) {
      job.clear_rounds();
      builder.emplace(job);
    }
    builder->Add(event);
  }
}

}  // namespace provd::daemon
