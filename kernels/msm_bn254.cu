#include "kernels/msm_kernels.cuh"
#include "prover_core/curve/bn254.hpp"

PROVD_INSTANTIATE_CUDA_MSM(Bn254G1)
PROVD_INSTANTIATE_CUDA_MSM(Bn254G2)
