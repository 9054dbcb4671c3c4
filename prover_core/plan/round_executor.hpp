// Runs the chunks of a round on the backends a ChunkPlacement picks, falling back to the CPU
// (backends[0]) when another backend fails a chunk. The fallback is visible: the observer hears
// of it (log, metric, event), and the proof stays correct because a failed chunk changes
// nothing (see backend.hpp). An error that says the device is lost also goes to the placement,
// which stops using that device.
#pragma once

#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "prover_core/device_lost.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::plan {

// B is the backends' interface: Backend<E> for a Groth16 proof, stark::StarkBackend for a trace
// commitment. What the executor needs of it: name(), is_cpu(), and the failure contract of
// backend.hpp (a failed chunk changed nothing).
template <typename B>
class RoundExecutor {
 public:
  // backends[0] must be a CPU backend; placement and observer may be null (all on the CPU).
  RoundExecutor(std::span<B* const> backends, ChunkPlacement* placement, ProofObserver* observer)
      : backends_(backends), placement_(placement), observer_(observer) {}

  absl::Status Validate() const {
    if (backends_.empty() || backends_[0] == nullptr || !backends_[0]->is_cpu()) {
      return absl::InvalidArgumentError("the first backend of a proof must be the CPU");
    }
    return absl::OkStatus();
  }

  // run(B&) -> absl::Status computes one chunk.
  template <typename Run>
  absl::Status RunChunk(const ChunkRef& chunk, Run&& run) {
    size_t choice = placement_ != nullptr ? placement_->Place(chunk) : 0;
    if (choice >= backends_.size()) choice = 0;
    B& backend = *backends_[choice];
    absl::Status status = run(backend);
    if (status.ok() || backend.is_cpu() || absl::IsInvalidArgument(status)) return status;
    if (observer_ != nullptr) observer_->ChunkFellBack(chunk, backend.name(), status);
    if (IsDeviceLost(status) && placement_ != nullptr)
      placement_->DeviceLost(choice, chunk, status);
    return run(*backends_[0]);
  }

  // Times a whole round for the observer.
  template <typename Body>
  absl::Status RunRound(Round round, size_t chunks, Body&& body) {
    if (observer_ != nullptr) observer_->RoundStarted(round, chunks);
    const absl::Time start = absl::Now();
    absl::Status status = body();
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat(RoundName(round), ": ", status.message()));
    }
    if (observer_ != nullptr) observer_->RoundFinished(round, chunks, absl::Now() - start);
    return status;
  }

 private:
  std::span<B* const> backends_;
  ChunkPlacement* placement_;
  ProofObserver* observer_;
};

}  // namespace provd::plan
