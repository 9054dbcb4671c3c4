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
  if (cudaSetDevice(static_cast<int>(device_)) != cudaSuccess) (void)cudaGetLastError();
  resources_->ReleaseAll();
}

uint64_t CudaSession::device_bytes() const { return resources_->device_bytes(); }

absl::Status CudaSession::BeginCall() {
  const std::string what = absl::StrCat("cuda:", device_);
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device_)), what);
  if (resources_->stream.get() == nullptr) {
    PROVD_CUDA_RETURN_IF_ERROR(resources_->stream.create(), what);
  }
  ++calls_;
  return absl::OkStatus();
}

absl::Status CudaSession::InjectedFault() const {
  if (options_.fail_every == 0 || calls_ % options_.fail_every != 0) return absl::OkStatus();
  const absl::Status fault = absl::UnavailableError(absl::StrCat(
      "cuda:", device_, " call ", calls_, ": injected launch failure (fault injection)"));
  return options_.fault_is_loss ? MarkDeviceLost(fault) : fault;
}

}  // namespace provd::kernels
