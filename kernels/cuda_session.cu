#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_session_resources.cuh"
#include "prover_core/device_lost.hpp"

namespace provd::kernels {

absl::StatusOr<std::unique_ptr<CudaSession>> CudaSession::Open(uint32_t device,
                                                               CudaSessionOptions options) {
  int count = 0;
  PROVD_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count), "CUDA devices");
  if (device >= static_cast<uint32_t>(count)) {
    return absl::UnavailableError(
        absl::StrCat("CUDA device ", device, " does not exist (", count, " visible)"));
  }
  const std::string what = absl::StrCat("cuda:", device);
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device)), what);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes), what);
  uint64_t budget = free_bytes / 10 * 9;
  if (options.vram_budget_bytes != 0 && options.vram_budget_bytes < budget) {
    budget = options.vram_budget_bytes;
  }
  return std::unique_ptr<CudaSession>(new CudaSession(device, options, budget));
}

CudaSession::CudaSession(uint32_t device, CudaSessionOptions options, uint64_t budget)
    : device_(device), options_(options), budget_(budget), resources_(new Resources) {}

CudaSession::~CudaSession() { Release(); }

void CudaSession::Release() {
  (void)cudaSetDevice(static_cast<int>(device_));
  resources_->ReleaseAll();
  // After a sticky error every call above fails, and the failures stay in this thread's
  // last-error slot: a later launch on another (healthy) device would read it back from
  // cudaGetLastError and be taken for lost too.
  (void)cudaGetLastError();
}

uint64_t CudaSession::device_bytes() const { return resources_->device_bytes(); }

absl::Status CudaSession::BeginCall() {
  const std::string what = absl::StrCat("cuda:", device_);
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device_)), what);
  // Launch checks read cudaGetLastError: start from a clean slot, whatever an earlier call of
  // this thread (on any device) left there.
  (void)cudaGetLastError();
  if (resources_->stream.get() == nullptr) {
    PROVD_CUDA_RETURN_IF_ERROR(resources_->stream.create(), what);
  }
  ++calls_;
  return absl::OkStatus();
}

absl::Status CudaSession::InjectedFault(absl::string_view what) const {
  if (options_.fail_every == 0 || calls_ % options_.fail_every != 0) return absl::OkStatus();
  const absl::Status fault = absl::UnavailableError(
      absl::StrCat(what, " (call ", calls_, "): injected launch failure (fault injection)"));
  return options_.fault_is_loss ? MarkDeviceLost(fault) : fault;
}

}  // namespace provd::kernels
