// MSM instantiations for BLS12-381: G1 and G2.
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/msm/msm_instances.hpp"

namespace provd::msm {

template curve::XyzzPoint<curve::Bls12381G1> PippengerMsm<curve::Bls12381G1>(
    std::span<const curve::AffinePoint<curve::Bls12381G1>>, std::span<const Scalar>, ThreadPool&,
    MsmOptions);
template curve::XyzzPoint<curve::Bls12381G2> PippengerMsm<curve::Bls12381G2>(
    std::span<const curve::AffinePoint<curve::Bls12381G2>>, std::span<const Scalar>, ThreadPool&,
    MsmOptions);

}  // namespace provd::msm
