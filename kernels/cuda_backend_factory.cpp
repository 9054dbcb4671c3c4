#include "kernels/cuda_backend_factory.hpp"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace provd::kernels {

absl::StatusOr<CudaSessionOptions> CudaBackendFactory::OptionsFromEnvironment(
    CudaSessionOptions base) {
  const char* kind = std::getenv("PROVD_CUDA_FAULT_KIND");
  const absl::string_view kind_name = kind != nullptr ? kind : "";
  if (!kind_name.empty() && kind_name != "failure" && kind_name != "lost") {
    return absl::InvalidArgumentError(absl::StrCat("PROVD_CUDA_FAULT_KIND=\"", kind_name,
                                                   "\" is neither \"failure\" nor \"lost\""));
  }
  if (!kind_name.empty()) base.fault_is_loss = kind_name == "lost";
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
