#include <vector>

#include "kernels/cuda_resources.cuh"
#include "kernels/self_test.hpp"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"

namespace provd::kernels {
namespace {

// Goldilocks prime: 64-bit products need the 128-bit path on both sides, which is what a
// broken toolchain or arch mismatch would get wrong.
constexpr uint64_t kModulus = 0xffffffff00000001ull;
constexpr int kCount = 4096;
constexpr int kThreads = 256;
static_assert(kCount % kThreads == 0, "self-test size must be a multiple of the block size");

// The device reduces with the Goldilocks identity 2^64 = 2^32 - 1 (mod p); the host checks with
// a plain 128-bit remainder, so the two sides do not share a bug.
__device__ uint64_t DeviceMulMod(uint64_t a, uint64_t b) {
  constexpr uint64_t kEpsilon = 0xffffffffull;  // 2^64 mod p
  uint64_t lo = a * b;
  uint64_t hi = __umul64hi(a, b);
  uint64_t hi_hi = hi >> 32;
  uint64_t hi_lo = hi & kEpsilon;
  uint64_t t0 = lo - hi_hi;
  if (lo < hi_hi) t0 -= kEpsilon;  // borrowed 2^64, which is epsilon mod p
  uint64_t t1 = hi_lo * kEpsilon;
  uint64_t t2 = t0 + t1;
  if (t2 < t1) t2 += kEpsilon;  // carried 2^64
  return t2 >= kModulus ? t2 - kModulus : t2;
}

uint64_t HostMulMod(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % kModulus);
}

__global__ void __launch_bounds__(kThreads)
    SquareModKernel(const uint64_t* in, uint64_t* out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = DeviceMulMod(in[i], in[i]);
}

// The field product the kernels are built with (64-bit limbs, or PTX carry chains with
// PROVD_CUDA_PTX_MONT_MUL) on the curves' base fields, against the host's portable product: a
// device whose product is wrong must not prove.
constexpr int kFieldCount = 512;

template <typename F>
__global__ void __launch_bounds__(kThreads) FieldProductKernel(const F* in, F* out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] * in[(i + 1) % count];
}

// Values spread over the field by an affine recurrence (cheap, unlike random inversions),
// with 0, 1 and -1 among them.
template <typename F>
std::vector<F> FieldInputs() {
  std::vector<F> in(kFieldCount);
  in[0] = F::Zero();
  in[1] = F::One();
  in[2] = -F::One();
  const F g = F::FromUint64(0x9e3779b97f4a7c15ull);
  F x = -F::FromUint64(3);
  for (int i = 3; i < kFieldCount; ++i) {
    x = x * g + F::One();
    in[i] = x;
  }
  return in;
}

// Mismatches of the device's products with the host's, or the first CUDA error.
template <typename F>
cudaError_t CountFieldProductMismatches(uint64_t& mismatches) {
  const std::vector<F> in = FieldInputs<F>();
  constexpr size_t kBytes = kFieldCount * sizeof(F);
  GrowOnlyDeviceBuffer d_in;
  GrowOnlyDeviceBuffer d_out;
  if (cudaError_t err = d_in.reserve(kBytes, nullptr); err != cudaSuccess) return err;
  if (cudaError_t err = d_out.reserve(kBytes, nullptr); err != cudaSuccess) return err;
  if (cudaError_t err = cudaMemcpy(d_in.as<F>(), in.data(), kBytes, cudaMemcpyHostToDevice);
      err != cudaSuccess) {
    return err;
  }
  FieldProductKernel<F><<<(kFieldCount + kThreads - 1) / kThreads, kThreads>>>(
      d_in.as<F>(), d_out.as<F>(), kFieldCount);
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  std::vector<F> out(kFieldCount);
  if (cudaError_t err = cudaMemcpy(out.data(), d_out.as<F>(), kBytes, cudaMemcpyDeviceToHost);
      err != cudaSuccess) {
    return err;
  }
  for (int i = 0; i < kFieldCount; ++i) {
    if (out[i] != F::MulPortable(in[i], in[(i + 1) % kFieldCount])) ++mismatches;
  }
  return cudaSuccess;
}

}  // namespace

SelfTestOutcome RunSelfTestKernel(int device) {
  SelfTestOutcome outcome;
  auto fail = [&outcome](cudaError_t err) {
    outcome.error = err;
    return outcome;
  };
  if (cudaError_t err = cudaSetDevice(device); err != cudaSuccess) return fail(err);

  std::vector<uint64_t> input(kCount);
  // Values near the modulus and spread over 64 bits exercise both reduction branches.
  for (int i = 0; i < kCount; ++i) {
    input[i] = (kModulus - 1) - (static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull) % kModulus;
  }

  constexpr size_t kBytes = kCount * sizeof(uint64_t);
  GrowOnlyDeviceBuffer d_in;
  GrowOnlyDeviceBuffer d_out;
  if (cudaError_t err = d_in.reserve(kBytes, nullptr); err != cudaSuccess) return fail(err);
  if (cudaError_t err = d_out.reserve(kBytes, nullptr); err != cudaSuccess) return fail(err);
  if (cudaError_t err =
          cudaMemcpy(d_in.as<uint64_t>(), input.data(), kBytes, cudaMemcpyHostToDevice);
      err != cudaSuccess) {
    return fail(err);
  }
  SquareModKernel<<<kCount / kThreads, kThreads>>>(d_in.as<uint64_t>(), d_out.as<uint64_t>(),
                                                   kCount);
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return fail(err);
  std::vector<uint64_t> output(kCount);
  if (cudaError_t err =
          cudaMemcpy(output.data(), d_out.as<uint64_t>(), kBytes, cudaMemcpyDeviceToHost);
      err != cudaSuccess) {
    return fail(err);
  }
  for (int i = 0; i < kCount; ++i) {
    if (output[i] != HostMulMod(input[i], input[i])) ++outcome.mismatches;
  }
  if (cudaError_t err = CountFieldProductMismatches<field::Bn254Fq>(outcome.mismatches);
      err != cudaSuccess) {
    return fail(err);
  }
  if (cudaError_t err = CountFieldProductMismatches<field::Bls12381Fq>(outcome.mismatches);
      err != cudaSuccess) {
    return fail(err);
  }
  return outcome;
}

}  // namespace provd::kernels
