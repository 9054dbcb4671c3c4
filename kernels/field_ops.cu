#include <chrono>

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

template <typename F>
__device__ __forceinline__ F Product(ProductForm form, const F& a, const F& b) {
  return form == ProductForm::kWords32Ptx
             ? F::template MulWords32<field::words32::PtxCarryChain>(a, b)
             : F::MulPortable(a, b);
}

template <typename F, ProductForm form>
__global__ void ProductKernel(const F* a, const F* b, F* out, uint64_t count) {
  const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < count) out[i] = Product(form, a[i], b[i]);
}

// Each thread's own start value, so that no two threads compute the same chain; the result is
// stored so that the compiler keeps the work.
template <typename F, ProductForm form>
__global__ void ProductChainKernel(F x0, F y, F* out, uint32_t rounds) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F x = x0 + F::FromUint64(i);
  for (uint32_t r = 0; r < rounds; ++r) x = Product(form, x, y);
  out[i] = x;
}

}  // namespace

namespace {

// The frame of the parity kernels: uploads a and b, runs kernel(a, b, out, count) over them in
// blocks of 128 and downloads `out` (per_pair elements per pair).
template <typename F, typename Kernel>
absl::Status RunOverPairs(uint32_t device, const char* name, std::span<const F> a,
                          std::span<const F> b, std::span<F> out, size_t per_pair, Kernel kernel) {
  if (a.size() != b.size() || out.size() != per_pair * a.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": sizes do not match"));
  }
  const std::string what = absl::StrCat("cuda:", device, " ", name);
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
  kernel<<<grid == 0 ? 1 : grid, kBlock, 0, stream.get()>>>(d_a.as<F>(), d_b.as<F>(), d_out.as<F>(),
                                                            a.size());
  PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.data(), d_out.as<void>(), out.size_bytes(),
                                             cudaMemcpyDeviceToHost, stream.get()),
                             what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
  return absl::OkStatus();
}

}  // namespace

template <typename F>
absl::Status EvaluateFieldOpsOnDevice(uint32_t device, std::span<const F> a, std::span<const F> b,
                                      std::span<F> out) {
  return RunOverPairs<F>(device, "field ops", a, b, out, kFieldOpCount, FieldOpsKernel<F>);
}

template <typename F>
absl::Status MultiplyOnDevice(uint32_t device, ProductForm form, std::span<const F> a,
                              std::span<const F> b, std::span<F> out) {
  return RunOverPairs<F>(device, "field products", a, b, out, 1,
                         form == ProductForm::kWords32Ptx
                             ? ProductKernel<F, ProductForm::kWords32Ptx>
                             : ProductKernel<F, ProductForm::kLimbs64>);
}

template <typename F>
absl::StatusOr<double> TimeProductChainsOnDevice(uint32_t device, ProductForm form,
                                                 uint32_t threads, uint32_t rounds) {
  constexpr unsigned kBlock = 256;
  if (threads == 0 || threads % kBlock != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("field product chains: threads must be a positive multiple of ", kBlock));
  }
  const std::string what = absl::StrCat("cuda:", device, " field product chains");
  PROVD_CUDA_RETURN_IF_ERROR(cudaSetDevice(static_cast<int>(device)), what);
  CudaStream stream;
  PROVD_CUDA_RETURN_IF_ERROR(stream.create(), what);
  GrowOnlyDeviceBuffer d_out;
  PROVD_CUDA_RETURN_IF_ERROR(d_out.reserve(uint64_t{threads} * sizeof(F), stream.get()), what);
  auto kernel = form == ProductForm::kWords32Ptx ? ProductChainKernel<F, ProductForm::kWords32Ptx>
                                                 : ProductChainKernel<F, ProductForm::kLimbs64>;
  const F x0 = F::FromUint64(0x9e3779b97f4a7c15ull).Inverse();
  const F y = F::FromUint64(0x6a09e667f3bcc909ull).Inverse();
  // One short launch first, so that module loading is not timed.
  kernel<<<threads / kBlock, kBlock, 0, stream.get()>>>(x0, y, d_out.as<F>(), 1);
  PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
  const auto start = std::chrono::steady_clock::now();
  kernel<<<threads / kBlock, kBlock, 0, stream.get()>>>(x0, y, d_out.as<F>(), rounds);
  PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what);
  PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

#define PROVD_INSTANTIATE_PRODUCTS(Field)                                                      \
  template absl::Status MultiplyOnDevice<Field>(uint32_t, ProductForm, std::span<const Field>, \
                                                std::span<const Field>, std::span<Field>);     \
  template absl::StatusOr<double> TimeProductChainsOnDevice<Field>(uint32_t, ProductForm,      \
                                                                   uint32_t, uint32_t);
PROVD_INSTANTIATE_PRODUCTS(field::Bn254Fq)
PROVD_INSTANTIATE_PRODUCTS(field::Bn254Fr)
PROVD_INSTANTIATE_PRODUCTS(field::Bls12381Fq)
PROVD_INSTANTIATE_PRODUCTS(field::Bls12381Fr)
#undef PROVD_INSTANTIATE_PRODUCTS

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
