#include "daemon/gpu_detect.hpp"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

#if PROVD_HAVE_CUDA
#include "kernels/cuda_backend_check.hpp"
#include "kernels/cuda_backend_factory.hpp"
#include "kernels/cuda_devices.hpp"
#endif

namespace provd::daemon {

GpuInventory DetectGpus(const std::vector<size_t>* only) {
#if PROVD_HAVE_CUDA
  GpuInventory found = kernels::ProbeCudaDevices();
  GpuInventory usable;
  usable.why_none = found.why_none;
  // The backend check's CPU side (milliseconds of MSM and NTT); no threads on hosts without GPUs.
  std::optional<ThreadPool> pool;
  size_t tested = 0;
  for (GpuDevice& device : found.devices) {
    if (only != nullptr && std::find(only->begin(), only->end(), device.index) == only->end()) {
      continue;  // not asked for: no self-test, no CUDA context on it
    }
    ++tested;
    absl::Status s = kernels::SelfTest(device.index);
    if (s.ok()) {
      if (!pool) pool.emplace(2);
      s = kernels::CheckCudaBackendAgainstCpu(device.index, *pool);
    }
    if (absl::IsResourceExhausted(s)) {
      // Other processes hold the device's memory now (the check runs outside the arbiter's
      // lock): that says nothing about its results, and refusing it would leave this process
      // without it until a restart. The known-answer kernels passed; say what was not checked.
      spdlog::warn("{}: the backend check could not run and is skipped: {}", Describe(device),
                   s.ToString());
      s = absl::OkStatus();
    }
    if (!s.ok()) {
      // A device that computes wrong results must never see a job: visible, not fatal.
      spdlog::error("{} failed its self-test and will not be used: {}", Describe(device),
                    s.ToString());
      continue;
    }
    usable.devices.push_back(std::move(device));
  }
  if (usable.devices.empty() && usable.why_none.empty()) {
    usable.why_none = tested > 0 ? "every GPU failed its self-test"
                                 : absl::StrCat("none of the ", found.devices.size(),
                                                " GPU(s) is among those asked for");
  }
  return usable;
#else
  GpuInventory none;
  (void)only;
  none.why_none = "built without CUDA";
  return none;
#endif
}

absl::StatusOr<std::unique_ptr<GpuBackendFactory>> MakeGpuBackendFactory(
    DeviceMemoryMeter* memory, uint64_t memory_budget_bytes) {
#if PROVD_HAVE_CUDA
  kernels::CudaSessionOptions base;
  base.vram_budget_bytes = memory_budget_bytes;
  absl::StatusOr<kernels::CudaSessionOptions> options =
      kernels::CudaBackendFactory::OptionsFromEnvironment(base);
  if (!options.ok()) return options.status();
  if (options->fail_every != 0) {
    spdlog::warn("fault injection: every {}th GPU call of a proof fails (PROVD_CUDA_FAULT_EVERY)",
                 options->fail_every);
  }
  return std::make_unique<kernels::CudaBackendFactory>(*options, memory);
#else
  (void)memory;
  (void)memory_budget_bytes;
  return std::unique_ptr<GpuBackendFactory>();
#endif
}

}  // namespace provd::daemon
