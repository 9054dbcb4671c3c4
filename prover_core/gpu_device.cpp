#include "prover_core/gpu_device.hpp"

#include "absl/strings/str_format.h"

namespace provd {

std::string Describe(const GpuDevice& device) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return absl::StrFormat("gpu%u: %s, sm_%d%d, %.0f GiB", device.index, device.name,
                         device.compute_major, device.compute_minor,
                         static_cast<double>(device.total_memory_bytes) / kGiB);
}

}  // namespace provd
