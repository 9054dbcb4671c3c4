// A trace commitment on the CPU plus the devices of an arbiter lease: the entry point of the
// daemon's stark_commit jobs. Chunks go to the lease's device while it holds one, to the CPU
// once it yields, back when it returns (plan::LeasePlacement), exactly as a Groth16 proof's.
//
// Device backends exist for simulated GPUs only: there are no CUDA STARK kernels yet, so a
// lease that arbitrates a real GPU is refused here, and the daemon runs such jobs on the CPU.
#pragma once

#include <atomic>

#include "absl/status/statusor.h"
#include "arbiter/arbiter.hpp"
#include "prover_core/simulated_device.hpp"
#include "prover_core/stark/trace_commitment.hpp"

namespace provd::stark {

struct StarkDevicePlan {
  arbiter::DeviceLease* lease = nullptr;  // null: CPU only
  // Device n of the lease is a simulated GPU when n < simulated_gpus.
  size_t simulated_gpus = 0;
  SimulatedGpuOptions simulated;
};

// FAILED_PRECONDITION when the lease arbitrates a device without a STARK backend; otherwise
// CommitTrace's results.
absl::StatusOr<TraceCommitment> CommitOnDevices(const TraceReader& read_trace,
                                                const TraceShape& shape,
                                                const CommitOptions& options, ThreadPool& pool,
                                                const StarkDevicePlan& devices,
                                                plan::ProofObserver* observer = nullptr,
                                                const std::atomic<bool>* cancelled = nullptr);

}  // namespace provd::stark
