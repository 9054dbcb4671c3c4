#include "prover_core/stark/commit_on_devices.hpp"

#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prover_core/plan/lease_placement.hpp"
#include "prover_core/stark/simulated_stark_gpu.hpp"

namespace provd::stark {

absl::StatusOr<TraceCommitment> CommitOnDevices(const TraceReader& read_trace,
                                                const TraceShape& shape,
                                                const CommitOptions& options, ThreadPool& pool,
                                                const StarkDevicePlan& devices,
                                                plan::ProofObserver* observer,
                                                const std::atomic<bool>* cancelled) {
  if (devices.lease != nullptr) {
    for (size_t id : devices.lease->device_ids()) {
      if (id >= devices.simulated_gpus) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the lease arbitrates device ", id, ", which has no STARK backend (",
            devices.simulated_gpus, " simulated GPUs; there are no CUDA STARK kernels yet)"));
      }
    }
  }
  CpuStarkBackend cpu(pool);
  // Backend n + 1 is device n (plan::LeasePlacement's numbering).
  std::vector<std::unique_ptr<SimulatedStarkGpu>> gpus;
  std::vector<StarkBackend*> backends = {&cpu};
  const size_t device_count = devices.lease != nullptr ? devices.simulated_gpus : 0;
  for (size_t n = 0; n < device_count; ++n) {
    gpus.push_back(std::make_unique<SimulatedStarkGpu>(n, pool, devices.simulated));
    backends.push_back(gpus.back().get());
  }
  std::optional<plan::LeasePlacement> placement;
  if (devices.lease != nullptr) {
    placement.emplace(
        *devices.lease, [&](size_t n) { backends[n + 1]->ReleaseDeviceMemory(); }, observer);
  }
  return CommitTrace(
      read_trace, shape, options,
      CommitContext{backends, &pool, placement ? &*placement : nullptr, observer, cancelled});
}

}  // namespace provd::stark
