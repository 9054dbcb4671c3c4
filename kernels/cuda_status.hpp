// The one place CUDA errors become absl::Status. Out-of-memory is RESOURCE_EXHAUSTED; every other
// device error is UNAVAILABLE. Neither is INVALID_ARGUMENT, so the round executor reruns the
// chunk on the CPU (visibly) instead of failing the proof. A sticky error (the context is
// ruined until the process restarts) is also marked IsDeviceLost (prover_core/device_lost.hpp),
// so the prover retires the device instead of failing on it chunk after chunk.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace provd::kernels {

// True for the errors after which every CUDA call of this process on the device fails (or
// cannot be trusted) until the process restarts.
bool IsStickyCudaError(cudaError_t err);

// OK for cudaSuccess; otherwise "<what>: cudaErrorX (text)". Clears the runtime's last error so
// that the next call starts clean (sticky errors, e.g. a lost device, stay sticky).
absl::Status CudaStatus(cudaError_t err, absl::string_view what);

}  // namespace provd::kernels

// Returns the CUDA error of `expr` as a Status from the enclosing function.
#define PROVD_CUDA_RETURN_IF_ERROR(expr, what)                              \
  do {                                                                      \
    if (cudaError_t provd_cuda_err = (expr); provd_cuda_err != cudaSuccess) \
      return ::provd::kernels::CudaStatus(provd_cuda_err, (what));          \
  } while (false)
