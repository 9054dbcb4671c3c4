// Finds the GPUs this process may use: through kernels/ when provd was built with CUDA, none
// otherwise. Every device must pass a known-answer kernel before it is listed.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/device_memory.hpp"
#include "prover_core/gpu_backend_factory.hpp"
#include "prover_core/gpu_device.hpp"

namespace provd::daemon {

// `only` (may be null) limits the list, and the self-tests, to those device numbers.
GpuInventory DetectGpus(const std::vector<size_t>* only = nullptr);

// The CUDA backends' factory (fault injection from PROVD_CUDA_FAULT_EVERY), or null in a build
// without CUDA. `memory` (may be null) hears of the device memory the backends hold;
// `memory_budget_bytes` caps what one proof holds on a device (0: 90 % of the free memory).
absl::StatusOr<std::unique_ptr<GpuBackendFactory>> MakeGpuBackendFactory(
    DeviceMemoryMeter* memory, uint64_t memory_budget_bytes);

}  // namespace provd::daemon
