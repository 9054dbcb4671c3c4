// The CUDA implementation of prover_core's Backend: one proof's chunks on one device, through a
// CudaSession opened on the first call and closed by ReleaseDeviceMemory (a yield), so a
// low-priority prover that hands its device over holds no VRAM, stream or pinned memory.
//
// Every failure is a Status the round executor turns into a visible CPU fallback; the session
// is dropped after a device error so that the next chunk on this device starts from a clean
// session instead of reusing buffers of a failed call.
#pragma once

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "prover_core/backend.hpp"
#include "prover_core/device_memory.hpp"

namespace provd::kernels {

template <typename E>
class CudaBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;

  // `memory` (may be null) hears of every change of the device memory this backend holds.
  CudaBackend(uint32_t device, CudaSessionOptions options, DeviceMemoryMeter* memory = nullptr)
      : device_(device), options_(options), memory_(memory), name_(absl::StrCat("cuda:", device)) {}
  ~CudaBackend() override { ReleaseDeviceMemory(); }

  std::string_view name() const override { return name_; }
  bool is_cpu() const override { return false; }

  absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return Run([&](CudaSession& s) { return s.Msm<G1>(points, scalars); });
  }
  absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return Run([&](CudaSession& s) { return s.Msm<G2>(points, scalars); });
  }
  absl::Status NttStages(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                         ntt::Direction direction, size_t first, size_t end) override {
    return Run(
        [&](CudaSession& s) { return s.NttStages<Fr>(data, twiddles, direction, first, end); });
  }
  absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                            const Fr& shift) override {
    return Run([&](CudaSession& s) { return s.ShiftToCoset<Fr>(data, twiddles, shift); });
  }

  void ReleaseDeviceMemory() override {
    session_.reset();
    Report();
  }

  // Device memory held now (0 after a release).
  uint64_t device_bytes() const { return session_ != nullptr ? session_->device_bytes() : 0; }

 private:
  template <typename Call>
  auto Run(Call call) -> decltype(call(std::declval<CudaSession&>())) {
    if (session_ == nullptr) {
      absl::StatusOr<std::unique_ptr<CudaSession>> opened = CudaSession::Open(device_, options_);
      if (!opened.ok()) return opened.status();
      session_ = *std::move(opened);
    }
    auto result = call(*session_);
    if (!result.ok() && !absl::IsInvalidArgument(StatusOf(result))) session_.reset();
    Report();
    return result;
  }

  static const absl::Status& StatusOf(const absl::Status& s) { return s; }
  template <typename T>
  static const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
    return s.status();
  }

  void Report() {
    const int64_t now = static_cast<int64_t>(device_bytes());
    if (memory_ != nullptr && now != reported_) memory_->Add(device_, now - reported_);
    reported_ = now;
  }

  uint32_t device_;
  CudaSessionOptions options_;
  DeviceMemoryMeter* memory_;
  std::string name_;
  std::unique_ptr<CudaSession> session_;
  int64_t reported_ = 0;
};

}  // namespace provd::kernels
