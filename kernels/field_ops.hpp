// Field arithmetic evaluated on a device, for the parity tests (tests/gpu): the same constexpr
// operations the MSM and NTT kernels use, run over arrays of inputs, so that a test can compare
// every operation with the CPU's result. Also both device forms of the Montgomery product side
// by side, for their parity test and gpu_bench, whichever one the build compiled into the
// field (CMake option PROVD_CUDA_PTX_MONT_MUL).
#pragma once

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace provd::kernels {

// The operations, in the order they are written per input pair.
inline constexpr int kFieldOpCount = 7;  // a+b, a-b, a*b, a^2, -a, 2a, a^-1

// out[kFieldOpCount * i + k] = op_k(a[i], b[i]) on CUDA device `device`. F: BN254 and
// BLS12-381 Fq, Fr and Fq2, Goldilocks. UNAVAILABLE without a device.
template <typename F>
absl::Status EvaluateFieldOpsOnDevice(uint32_t device, std::span<const F> a, std::span<const F> b,
                                      std::span<F> out);

// The same operations on the host, in the same order.
template <typename F>
constexpr void EvaluateFieldOps(const F& a, const F& b, F* out) {
  out[0] = a + b;
  out[1] = a - b;
  out[2] = a * b;
  out[3] = a.Square();
  out[4] = -a;
  out[5] = a.Double();
  out[6] = a.Inverse();
}

// The device's two forms of the Montgomery product: 64-bit limbs in portable C++ (the field's
// MulPortable) and 32-bit words on PTX's carry flag (the field's MulWords32).
enum class ProductForm { kLimbs64, kWords32Ptx };

// out[i] = a[i] * b[i] by `form` on device `device`. F: the Montgomery fields (BN254 and
// BLS12-381 Fq and Fr).
template <typename F>
absl::Status MultiplyOnDevice(uint32_t device, ProductForm form, std::span<const F> a,
                              std::span<const F> b, std::span<F> out);

// Seconds of device time for `threads` threads each chaining `rounds` dependent products by
// `form` (x <- x * y): the throughput figure of gpu_bench's BM_FieldProduct.
template <typename F>
absl::StatusOr<double> TimeProductChainsOnDevice(uint32_t device, ProductForm form,
                                                 uint32_t threads, uint32_t rounds);

}  // namespace provd::kernels
