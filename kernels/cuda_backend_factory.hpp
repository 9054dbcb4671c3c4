// prover_core's GpuBackendFactory over CUDA: a CudaBackend per device and proof.
#pragma once

#include "kernels/cuda_backend.hpp"
#include "prover_core/gpu_backend_factory.hpp"

namespace provd::kernels {

class CudaBackendFactory final : public GpuBackendFactory {
 public:
  explicit CudaBackendFactory(CudaSessionOptions options = {}, DeviceMemoryMeter* memory = nullptr)
      : options_(options), memory_(memory) {}

  std::unique_ptr<Backend<groth16::Bn254Engine>> Make(
      size_t device, std::type_identity<groth16::Bn254Engine>) override {
    return std::make_unique<CudaBackend<groth16::Bn254Engine>>(static_cast<uint32_t>(device),
                                                               options_, memory_);
  }
  std::unique_ptr<Backend<groth16::Bls12381Engine>> Make(
      size_t device, std::type_identity<groth16::Bls12381Engine>) override {
    return std::make_unique<CudaBackend<groth16::Bls12381Engine>>(static_cast<uint32_t>(device),
                                                                  options_, memory_);
  }

  // Options with fault injection from the environment: PROVD_CUDA_FAULT_EVERY=N makes every
  // N-th GPU call of a proof fail (tests of the CPU fallback on a real GPU), and
  // PROVD_CUDA_FAULT_KIND=lost makes those failures say the device is lost (the prover then
  // retires it; "failure", the default, is an ordinary failed call). INVALID_ARGUMENT for a
  // value that is neither.
  static absl::StatusOr<CudaSessionOptions> OptionsFromEnvironment(CudaSessionOptions base = {});

 private:
  CudaSessionOptions options_;
  DeviceMemoryMeter* memory_;
};

}  // namespace provd::kernels
