// What the prover knows of one GPU, whichever runtime found it. kernels/ fills these in from
// CUDA; a build without CUDA, or a machine without a GPU, simply has none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace provd {

struct GpuDevice {
  uint32_t index = 0;  // the runtime's device ordinal; also names gpuN.lock
  std::string name;    // e.g. "NVIDIA H200"
  uint64_t total_memory_bytes = 0;
  int compute_major = 0;  // compute capability, e.g. 9.0 for Hopper
  int compute_minor = 0;
};

// The GPUs usable by this process, and why there are none when the list is empty.
struct GpuInventory {
  std::vector<GpuDevice> devices;
  std::string why_none;  // e.g. "built without CUDA", "no CUDA driver"; empty when devices exist
};

// One line for logs: "gpu0: NVIDIA H200, sm_90, 141 GiB".
std::string Describe(const GpuDevice& device);

}  // namespace provd
