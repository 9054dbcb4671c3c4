// A stand-in GPU for machines without one (`--simulated-gpus N`), so that CI exercises device
// arbitration, backend switching and re-upload: "device memory" is separate host memory,
// accounted against a VRAM budget; every kernel call uploads its inputs into it, runs the CPU
// kernel on that copy and downloads the result;
// ReleaseDeviceMemory() frees it all, as a yielding prover must. An optional per-call latency
// stands for transfers and launches, so a simulated proof lasts long enough to be preempted.
//
// Results are the CPU's, so schedules that mix it with the CPU backend give identical proofs,
// unless a test asks for wrong ones (corrupt_probability): a GPU that lies, for the daemon's
// verification of every proof to catch.
#pragma once

#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "prover_core/cpu_backend.hpp"
#include "prover_core/simulated_device.hpp"

namespace provd {

template <typename E>
class SimulatedGpuBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;

  SimulatedGpuBackend(size_t device, ThreadPool& pool, SimulatedGpuOptions options = {})
      : cpu_(pool),
        device_(device, absl::StrCat("simulated-gpu:", device), options),
        corrupt_rng_(options.corrupt_seed ^ (0x9e3779b97f4a7c15ull * (device + 1))) {}
  std::string_view name() const override { return device_.name(); }
  bool is_cpu() const override { return false; }

  absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return RunMsm(points, scalars, [&](auto p, auto s) { return cpu_.MsmG1(p, s); });
  }
  absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return RunMsm(points, scalars, [&](auto p, auto s) { return cpu_.MsmG2(p, s); });
  }
  absl::Status NttStages(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                         ntt::Direction direction, size_t first, size_t end) override {
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    absl::StatusOr<std::span<uint8_t>> device = device_.Upload(std::as_bytes(data));
    if (!device.ok()) return device.status();
    std::span<Fr> on_device(reinterpret_cast<Fr*>(device->data()), data.size());
    absl::Status s = cpu_.NttStages(on_device, twiddles, direction, first, end);
    if (s.ok()) std::memcpy(data.data(), device->data(), device->size());  // download
    return s;
  }
  absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                            const Fr& shift) override {
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    absl::StatusOr<std::span<uint8_t>> device = device_.Upload(std::as_bytes(data));
    if (!device.ok()) return device.status();
    std::span<Fr> on_device(reinterpret_cast<Fr*>(device->data()), data.size());
    absl::Status s = cpu_.ShiftToCoset(on_device, twiddles, shift);
    if (s.ok()) std::memcpy(data.data(), device->data(), device->size());  // download
    return s;
  }

  void ReleaseDeviceMemory() override { device_.Release(); }

  uint64_t bytes_resident() const { return device_.bytes_resident(); }
  uint64_t uploads() const { return device_.uploads(); }
  uint64_t releases() const { return device_.releases(); }
  uint64_t corrupted() const { return corrupted_; }

 private:
  template <typename Point, typename Kernel>
  auto RunMsm(std::span<const Point> points, std::span<const msm::Scalar> scalars, Kernel kernel)
      -> decltype(kernel(points, scalars)) {
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    const size_t point_bytes = points.size_bytes();
    std::vector<std::byte> staging(point_bytes + scalars.size_bytes());
    std::memcpy(staging.data(), points.data(), point_bytes);
    std::memcpy(staging.data() + point_bytes, scalars.data(), scalars.size_bytes());
    absl::StatusOr<std::span<uint8_t>> device = device_.Upload(staging);
    if (!device.ok()) return device.status();
    auto result =
        kernel(std::span(reinterpret_cast<const Point*>(device->data()), points.size()),
               std::span(reinterpret_cast<const msm::Scalar*>(device->data() + point_bytes),
                         scalars.size()));
    if (result.ok() && device_.options().corrupt_probability > 0 &&
        std::uniform_real_distribution<double>(0, 1)(corrupt_rng_) <
            device_.options().corrupt_probability) {
      *result = Corrupt(*result);
      ++corrupted_;
    }
    return result;
  }

  // The point with one set bit of its X coordinate (of X's first component over Fq2) cleared,
  // so that X stays a canonical field element: a wrong point, almost surely off the curve.
  template <typename Point>
  Point Corrupt(const Point& p) {
    using F = typename Point::Field;
    auto flip = [&]<typename Fq>(const Fq& v) {
      typename Fq::Int bits = v.ToCanonical();
      std::vector<std::pair<size_t, int>> set;
      for (size_t limb = 0; limb < Fq::Int::kLimbs; ++limb) {
        for (int b = 0; b < 64; ++b) {
          if ((bits.limbs[limb] >> b) & 1) set.emplace_back(limb, b);
        }
      }
      if (set.empty()) return Fq::One();
      const auto [limb, b] = set[corrupt_rng_() % set.size()];
      bits.limbs[limb] &= ~(uint64_t{1} << b);
      return Fq::FromCanonical(bits);
    };
    F x = p.x();
    if constexpr (requires { typename F::Base; }) {
      x = F(flip(x.c0()), x.c1());
    } else {
      x = flip(x);
    }
    if (p.IsInfinity()) return Point::FromCoordinates(x, p.y(), F::One(), F::One());
    return Point::FromCoordinates(x, p.y(), p.zz(), p.zzz());
  }

  CpuBackend<E> cpu_;
  SimulatedDevice device_;
  std::mt19937_64 corrupt_rng_;
  uint64_t corrupted_ = 0;
};

}  // namespace provd
