// The known-answer check of prover_core/backend_check.hpp through the CUDA backend, for both
// curves: what a device passes, after kernels::SelfTest, before it sees a job (daemon/
// gpu_detect.cpp). Header-only on purpose: provd_kernels never links prover_core's compiled code
// (the CPU MSM the check compares with), its callers do.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cuda_backend.hpp"
#include "prover_core/backend_check.hpp"
#include "prover_core/groth16/engine.hpp"

namespace provd::kernels {

// OK, or the first call whose result differed from the CPU's (INTERNAL) or failed (its own
// code), named with the device. The backend's session, and its device memory, end here.
inline absl::Status CheckCudaBackendAgainstCpu(uint32_t device, ThreadPool& pool) {
  auto check = [&]<typename E>() -> absl::Status {
    CudaBackend<E> backend(device, CudaSessionOptions{});
    absl::Status s = CheckBackendAgainstCpu<E>(backend, pool);
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("gpu", device, " backend check: ", s.message()));
  };
  if (absl::Status s = check.operator()<groth16::Bn254Engine>(); !s.ok()) return s;
  return check.operator()<groth16::Bls12381Engine>();
}

}  // namespace provd::kernels
