#include "kernels/cuda_devices.hpp"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "kernels/cuda_status.hpp"
#include "kernels/self_test.hpp"

namespace provd::kernels {
namespace {

std::string CudaErrorText(cudaError_t err) {
  return absl::StrCat(cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

}  // namespace

GpuInventory ProbeCudaDevices() {
  GpuInventory inventory;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // cudaErrorNoDevice / cudaErrorInsufficientDriver on CPU-only hosts: expected, not fatal.
    inventory.why_none = absl::StrCat("CUDA runtime: ", CudaErrorText(err));
    (void)cudaGetLastError();  // clear the sticky error so later calls start clean
    return inventory;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuDevice device;
    device.index = static_cast<uint32_t>(i);
    device.name = prop.name;
    device.total_memory_bytes = prop.totalGlobalMem;
    device.compute_major = prop.major;
    device.compute_minor = prop.minor;
    inventory.devices.push_back(std::move(device));
  }
  if (inventory.devices.empty()) inventory.why_none = "CUDA runtime: no devices";
  return inventory;
}

absl::StatusOr<DeviceMemoryInfo> QueryDeviceMemory(uint32_t device) {
  const std::string what = absl::StrCat("cuda:", device, " memory");
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device)), what);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes), what);
  return DeviceMemoryInfo{free_bytes, total_bytes};
}

absl::Status SelfTest(uint32_t device) {
  SelfTestOutcome outcome = RunSelfTestKernel(static_cast<int>(device));
  if (outcome.error != cudaSuccess) {
    return absl::InternalError(
        absl::StrCat("gpu", device, " self-test: ", CudaErrorText(outcome.error)));
  }
  if (outcome.mismatches != 0) {
    return absl::InternalError(absl::StrCat("gpu", device, " self-test: ", outcome.mismatches,
                                            " wrong results out of 4096"));
  }
  return absl::OkStatus();
}

}  // namespace provd::kernels
