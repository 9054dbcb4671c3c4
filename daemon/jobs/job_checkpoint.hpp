// A job's MSM progress in the job store (plan/checkpoint.hpp): a job restarted after a crash or
// a shutdown resumes each MSM round after its last finished chunk.
#pragma once

#include <string>

#include "daemon/store/job_store.hpp"
#include "prover_core/plan/checkpoint.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {

class JobCheckpoint final : public plan::ProofCheckpoint {
 public:
  JobCheckpoint(std::string job_id, JobStore& store) : job_id_(std::move(job_id)), store_(store) {}

  std::optional<plan::MsmProgress> Load(std::string_view binding, plan::Round round) override {
    absl::StatusOr<std::optional<plan::MsmProgress>> saved = store_.LoadCheckpoint(
        job_id_, static_cast<int>(round), absl::string_view(binding.data(), binding.size()));
    if (!saved.ok()) {
      spdlog::warn("job {}: cannot read the progress of {}: {}", job_id_, plan::RoundName(round),
                   saved.status().ToString());
      return std::nullopt;
    }
    if (*saved) {
      spdlog::info("job {}: {} resumes after chunk {}/{} of an earlier attempt", job_id_,
                   plan::RoundName(round), (*saved)->chunks_done, (*saved)->chunk_count);
    }
    return *std::move(saved);
  }

  void Save(std::string_view binding, plan::Round round,
            const plan::MsmProgress& progress) override {
    if (absl::Status s =
            store_.SaveCheckpoint(job_id_, static_cast<int>(round),
                                  absl::string_view(binding.data(), binding.size()), progress);
        !s.ok()) {
      spdlog::warn("job {}: cannot save the progress of {}: {}", job_id_, plan::RoundName(round),
                   s.ToString());
    }
  }

 private:
  std::string job_id_;
  JobStore& store_;
};

}  // namespace provd::daemon
