// GPU discovery through the CUDA runtime. Safe on hosts without a driver or device: those get an
// empty inventory with the reason, never an error or a crash.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prover_core/gpu_device.hpp"

namespace provd::kernels {

// The CUDA devices visible to this process (CUDA_VISIBLE_DEVICES applies).
GpuInventory ProbeCudaDevices();

struct DeviceMemoryInfo {
  uint64_t free_bytes = 0;
  uint64_t total_bytes = 0;
};

// cudaMemGetInfo of `device`; UNAVAILABLE without one.
absl::StatusOr<DeviceMemoryInfo> QueryDeviceMemory(uint32_t device);

// Runs a known-answer kernel on `device`; INTERNAL with the CUDA error or the mismatch count
// otherwise.
absl::Status SelfTest(uint32_t device);

}  // namespace provd::kernels
