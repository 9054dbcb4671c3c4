// Makes the backend of a real GPU for one proof. kernels/ implements it with CUDA
// (kernels/cuda_backend_factory.hpp); prover_core only sees this interface, so it never depends
// on kernels/ and builds without CUDA.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "prover_core/backend.hpp"
#include "prover_core/groth16/engine.hpp"

namespace provd {

class GpuBackendFactory {
 public:
  virtual ~GpuBackendFactory() = default;

  // The backend of CUDA device `device` for a proof over engine E. It may open the device
  // lazily; a device that cannot be used fails its calls, which the round executor then runs
  // on the CPU, visibly.
  virtual std::unique_ptr<Backend<groth16::Bn254Engine>> Make(
      size_t device, std::type_identity<groth16::Bn254Engine>) = 0;
  virtual std::unique_ptr<Backend<groth16::Bls12381Engine>> Make(
      size_t device, std::type_identity<groth16::Bls12381Engine>) = 0;
};

}  // namespace provd
