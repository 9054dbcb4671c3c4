// Field arithmetic evaluated on a device, for the parity tests (tests/gpu): the same constexpr
// operations the MSM and NTT kernels use, run over arrays of inputs, so that a test can compare
// every operation with the CPU's result.
#pragma once

#include <cstdint>
#include <span>

#include "absl/status/status.h"

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

}  // namespace provd::kernels
