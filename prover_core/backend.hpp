// What a device offers the prover: the heavy kernel of each round, one chunk at a time. The CPU
// backend (cpu_backend.hpp) and the CUDA backend (kernels/) implement it with bit-identical
// results, so the round executor may move any chunk between them.
//
// Contract for every implementation: on error nothing the caller owns has changed (an NTT
// chunk that fails leaves `data` as it was, an MSM chunk returns no partial sum), so the
// executor can rerun the chunk elsewhere. INVALID_ARGUMENT means the request itself was wrong
// and is not retried on another backend.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/msm/pippenger.hpp"
#include "prover_core/ntt/ntt.hpp"

namespace provd {

// E bundles G1, G2 (curves) and Fr (their scalar field); see groth16/engine.hpp.
template <typename E>
class Backend {
 public:
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using Fr = typename E::Fr;

  virtual ~Backend() = default;
  // For logs and events: "cpu", "cuda:0", ...
  virtual std::string_view name() const = 0;
  // True for the host backend, the one that failures fall back to.
  virtual bool is_cpu() const = 0;

  virtual absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>> points,
                                                     std::span<const msm::Scalar> scalars) = 0;
  virtual absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>> points,
                                                     std::span<const msm::Scalar> scalars) = 0;
  // DIF stages [first, end) of an NTT over `data` (ntt::RunStages semantics).
  virtual absl::Status NttStages(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                                 ntt::Direction direction, size_t first, size_t end) = 0;
  // ntt::ShiftToCoset over `data` in one call (a whole round of the Groth16 prover's LDE): a
  // device moves the column once each way and keeps the permutations and scalings on board.
  virtual absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                                    const Fr& shift) = 0;
  // Frees every device buffer and stream the backend holds (before its lease yields the
  // device); later calls upload again what they need. Nothing to do for the CPU.
  virtual void ReleaseDeviceMemory() {}
};

}  // namespace provd
