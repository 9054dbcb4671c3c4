#include "kernels/cuda_status.hpp"

#include "absl/strings/str_cat.h"
#include "prover_core/device_lost.hpp"

namespace provd::kernels {

bool IsStickyCudaError(cudaError_t err) {
  switch (err) {
    // The runtime's documentation of each: "This leaves the process in an inconsistent state
    // and any further CUDA work will return the same error. To continue using CUDA, the
    // process must be terminated and relaunched."
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorExternalDevice:
    // Uncorrectable memory or link errors: not documented as sticky, but the device needs a
    // reset (nvidia-smi, the driver) before anything computed there can be trusted.
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
      return true;
    default:
      return false;
  }
}

absl::Status CudaStatus(cudaError_t err, absl::string_view what) {
  if (err == cudaSuccess) return absl::OkStatus();
  (void)cudaGetLastError();
  std::string message =
      absl::StrCat(what, ": ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
  if (err == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  if (IsStickyCudaError(err)) {
    return MarkDeviceLost(absl::UnavailableError(
        absl::StrCat(message, "; the device is lost to this process until it restarts")));
  }
  return absl::UnavailableError(message);
}

}  // namespace provd::kernels
