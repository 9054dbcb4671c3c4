// A known-answer kernel run that proves a device really executes our code (driver, arch and
// runtime all match) before the prover trusts it with work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace provd::kernels {

struct SelfTestOutcome {
  cudaError_t error = cudaSuccess;  // the first CUDA error, if any
  uint64_t mismatches = 0;          // elements the device computed wrong
};

// Squares 4096 64-bit integers modulo a prime and multiplies 512 pairs in each curve's base
// field on `device`, and compares with the host.
SelfTestOutcome RunSelfTestKernel(int device);

}  // namespace provd::kernels
