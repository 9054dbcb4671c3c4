#include "absl/strings/str_cat.h"
#include "kernels/cuda_resources.cuh"
#include "kernels/cuda_status.hpp"
#include "kernels/field_ops.hpp"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"

namespace provd::kernels {
namespace {

template <typename F>
__global__ void FieldOpsKernel(const F* a, const F* b, F* out, uint64_t count) {
  const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) EvaluateFieldOps(a[i], b[i], out + kFieldOpCount * i);
}

}  // namespace

template <typename F>
absl::Status EvaluateFieldOpsOnDevice(uint32_t device, std::span<const F> a, std::span<const F> b,
                                      std::span<F> out) {
  if (a.size() != b.size() || out.size() != kFieldOpCount * a.size()) {
    return absl::InvalidArgumentError("field ops: sizes do not match");
  }
  const std::string what = absl::StrCat("cuda:", device, " field ops");
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device)), what);
  CudaStream stream;
  PROVD_CUDA_RETURN_IF_ERROR(stream.create(), what);
  GrowOnlyDeviceBuffer d_a, d_b, d_out;
  PROVD_CUDA_RETURN_IF_ERROR(d_a.reserve(a.size_bytes(), stream.get()), what);
  PROVD_CUDA_RETURN_IF_ERROR(d_b.reserve(b.size_bytes(), stream.get()), what);
  PROVD_CUDA_RETURN_IF_ERROR(d_out.reserve(out.size_bytes(), stream.get()), what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d_a.as<void>(), a.data(), a.size_bytes(),
                                             cudaMemcpyHostToDevice, stream.get()),
                             what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d_b.as<void>(), b.data(), b.size_bytes(),
                                             cudaMemcpyHostToDevice, stream.get()),
                             what);
  constexpr unsigned kBlock = 128;
  const unsigned grid = static_cast<unsigned>((a.size() + kBlock - 1) / kBlock);
  FieldOpsKernel<F><<<grid == 0 ? 1 : grid, kBlock, 0, stream.get()>>>(d_a.as<F>(), d_b.as<F>(),
                                                                       d_out.as<F>(), a.size());
  PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.data(), d_out.as<void>(), out.size_bytes(),
                                             cudaMemcpyDeviceToHost, stream.get()),
                             what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
  return absl::OkStatus();
}

#define PROVD_INSTANTIATE_FIELD_OPS(Field)                                                \
  template absl::Status EvaluateFieldOpsOnDevice<Field>(uint32_t, std::span<const Field>, \
                                                        std::span<const Field>, std::span<Field>);
PROVD_INSTANTIATE_FIELD_OPS(field::Bn254Fq)
PROVD_INSTANTIATE_FIELD_OPS(field::Bn254Fr)
PROVD_INSTANTIATE_FIELD_OPS(field::Bn254Fq2)
PROVD_INSTANTIATE_FIELD_OPS(field::Bls12381Fq)
PROVD_INSTANTIATE_FIELD_OPS(field::Bls12381Fr)
PROVD_INSTANTIATE_FIELD_OPS(field::Bls12381Fq2)
PROVD_INSTANTIATE_FIELD_OPS(field::Goldilocks)
#undef PROVD_INSTANTIATE_FIELD_OPS

}  // namespace provd::kernels
