// MSM instantiations for BN254: G1 (the A, B1, C, H rounds) and G2 (the B2 round).
#include "prover_core/curve/bn254.hpp"
#include "prover_core/msm/msm_instances.hpp"

namespace provd::msm {

template curve::XyzzPoint<curve::Bn254G1> PippengerMsm<curve::Bn254G1>(
    std::span<const curve::AffinePoint<curve::Bn254G1>>, std::span<const Scalar>, ThreadPool&,
    MsmOptions);
template curve::XyzzPoint<curve::Bn254G2> PippengerMsm<curve::Bn254G2>(
    std::span<const curve::AffinePoint<curve::Bn254G2>>, std::span<const Scalar>, ThreadPool&,
    MsmOptions);

}  // namespace provd::msm
