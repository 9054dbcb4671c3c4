#include "kernels/cuda_backend_factory.hpp"

#include <cstdlib>

#include "absl/strings/numbers.h"

namespace provd::kernels {

absl::StatusOr<CudaSessionOptions> CudaBackendFactory::OptionsFromEnvironment(
    CudaSessionOptions base) {
  const char* every = std::getenv("PROVD_CUDA_FAULT_EVERY");
  if (every == nullptr || *every == '\0') return base;
  uint64_t n = 0;
  if (!absl::SimpleAtoi(every, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PROVD_CUDA_FAULT_EVERY=\"", every, "\" is not a number"));
  }
  base.fail_every = n;
  return base;
}

}  // namespace provd::kernels
