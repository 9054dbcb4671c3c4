#include "kernels/msm_kernels.cuh"
#include "prover_core/curve/bls12_381.hpp"

PROVD_INSTANTIATE_CUDA_MSM(Bls12381G1)
PROVD_INSTANTIATE_CUDA_MSM(Bls12381G2)
