// Finds the GPUs this process may use: through kernels/ when provd was built with CUDA, none
// otherwise. Every device must pass a known-answer kernel before it is listed.
#pragma once

#include "prover_core/gpu_device.hpp"

namespace provd::daemon {

GpuInventory DetectGpus();

}  // namespace provd::daemon
