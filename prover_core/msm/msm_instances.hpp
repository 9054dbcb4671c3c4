// Declares the MSM instantiations compiled once in msm_<curve>.cpp, so that users of the MSM
// do not recompile the kernel in every translation unit.
#pragma once

#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "prover_core/msm/pippenger.hpp"

namespace provd::msm {

#define PROVD_DECLARE_MSM(Curve)                                                               \
  extern template curve::XyzzPoint<curve::Curve> PippengerMsm<curve::Curve>(                   \
      std::span<const curve::AffinePoint<curve::Curve>>, std::span<const Scalar>, ThreadPool&, \
      MsmOptions);

PROVD_DECLARE_MSM(Bn254G1)
PROVD_DECLARE_MSM(Bn254G2)
PROVD_DECLARE_MSM(Bls12381G1)
PROVD_DECLARE_MSM(Bls12381G2)

#undef PROVD_DECLARE_MSM

}  // namespace provd::msm
