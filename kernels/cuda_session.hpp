// One prover's work on one CUDA device: MSM and NTT stages over prover_core's types, with the
// device memory, pinned staging memory and stream they need. No CUDA types in this header, so
// host code (the backend, the daemon) includes it with a plain C++ compiler.
//
// Results are exactly the CPU's: the kernels run prover_core's own field and curve code
// (constexpr, compiled for the device) in the steps of msm_steps.hpp and ntt::DifButterfly.
//
// Thread-compatible, not thread-safe: one session per prover, used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/msm/pippenger.hpp"
#include "prover_core/ntt/ntt.hpp"

namespace provd::kernels {

struct CudaSessionOptions {
  // Most device memory this session may hold; 0: 90 % of what cudaMemGetInfo reports free when
  // the session opens. MSMs larger than the budget run in batches that fit.
  uint64_t vram_budget_bytes = 0;
  // GPU MSM window width (0: chosen from the batch size, msm_steps.hpp).
  uint32_t msm_window_bits = 0;
  // Most digit pairs one thread of the GPU MSM's bucket step adds (0: msm_steps.hpp's default).
  uint32_t msm_sub_run_pairs = 0;
  // Fault injection for tests: every n-th call (MSM or NTT) fails after its inputs are on the
  // device, as a launch failure would (0: never). The daemon reads it from
  // PROVD_CUDA_FAULT_EVERY.
  uint64_t fail_every = 0;
  // Fault injection: the injected failures say the device is lost (IsDeviceLost), as a sticky
  // error would, so the prover retires the device. PROVD_CUDA_FAULT_KIND=lost.
  bool fault_is_loss = false;
  // Waits for the device after each phase of a call (upload, sort, buckets, ...) and records its
  // wall time in last_call_phases(): for benchmarks and diagnosis, since the waits cost overlap.
  bool time_phases = false;
};

// One phase of a call and its wall time (summed over the call's batches).
struct CudaPhase {
  std::string name;
  double milliseconds = 0;
};

class CudaSession {
 public:
  // UNAVAILABLE when `device` does not exist or cannot be used (no driver, no GPU).
  static absl::StatusOr<std::unique_ptr<CudaSession>> Open(uint32_t device,
                                                           CudaSessionOptions options = {});
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  // sum_i scalars[i] * points[i] (C: a G1 or G2 of BN254 or BLS12-381). INVALID_ARGUMENT when
  // the sizes differ; RESOURCE_EXHAUSTED / UNAVAILABLE on device errors (nothing of the
  // caller's changes).
  template <typename C>
  absl::StatusOr<curve::XyzzPoint<C>> Msm(std::span<const curve::AffinePoint<C>> points,
                                          std::span<const msm::Scalar> scalars);

  // ntt::RunStages on the device (F: BN254 Fr, BLS12-381 Fr or Goldilocks): `data` is
  // uploaded, stages [first, end) run, and `data` is overwritten only on success. The stage
  // table is kept on the device for the next call over the same domain.
  template <typename F>
  absl::Status NttStages(std::span<F> data, const ntt::Twiddles<F>& twiddles,
                         ntt::Direction direction, size_t first, size_t end);

  // ntt::ShiftToCoset on the device (the fields of NttStages): `data` moves once each way, and
  // is overwritten only on success. Both stage tables of the domain stay on the device.
  template <typename F>
  absl::Status ShiftToCoset(std::span<F> data, const ntt::Twiddles<F>& twiddles, const F& shift);

  // ntt::CosetLde of `columns` polynomials at once (the STARK trace's LDE): `evals` holds each
  // column's values on the domain of `small` one column after another, and `out` receives each
  // column's values on the coset shift * <w> of `large`'s domain (a power-of-two blow-up, 1
  // allowed). Columns run in groups that fit the VRAM budget; on error `out` may hold some
  // groups' results and the call can be rerun (evals never changes).
  template <typename F>
  absl::Status CosetLde(std::span<const F> evals, std::span<F> out, size_t columns,
                        const ntt::Twiddles<F>& small, const ntt::Twiddles<F>& large,
                        const F& shift);

  // Frees every device buffer, the pinned staging memory and the stream; later calls allocate
  // again. What a prover yielding its device calls.
  void Release();

  uint32_t device() const { return device_; }
  // Device memory this session holds now.
  uint64_t device_bytes() const;
  uint64_t vram_budget_bytes() const { return budget_; }
  // The phases of the last MSM or NTT call, in order (empty unless options.time_phases).
  const std::vector<CudaPhase>& last_call_phases() const { return phases_; }

  struct Resources;  // cuda_session_resources.cuh

 private:
  CudaSession(uint32_t device, CudaSessionOptions options, uint64_t budget);
  // Makes `device_` current and the stream exist; counts the call for fault injection.
  absl::Status BeginCall();
  // The error the call just begun must return once its inputs are on the device, as a launch
  // failure would (fault injection; OK: none).
  absl::Status InjectedFault(absl::string_view what) const;

  uint32_t device_;
  CudaSessionOptions options_;
  uint64_t budget_;
  uint64_t calls_ = 0;
  std::vector<CudaPhase> phases_;
  std::unique_ptr<Resources> resources_;
};

}  // namespace provd::kernels
