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
#include "prover_core/device_lost.hpp"
#include "prover_core/device_memory.hpp"

namespace provd {

struct SimulatedGpuOptions {
  uint64_t vram_bytes = uint64_t{16} << 30;
  absl::Duration latency_per_call = absl::ZeroDuration();
  // Fault injection for tests: every n-th kernel call fails with UNAVAILABLE (0: never).
  uint64_t fail_every = 0;
  // Fault injection for tests: the device is lost at the n-th kernel call, which fails, and
  // so does every later one, with UNAVAILABLE marked IsDeviceLost, as CUDA answers after a
  // sticky error (0: never).
  uint64_t lost_at_call = 0;
  // Fault injection for tests: each MSM result is wrong with this probability (one set bit of
  // its X coordinate cleared), as from a kernel bug or a flipped bit in device memory; the call
  // reports success. Draws come from `corrupt_seed` and the device number.
  double corrupt_probability = 0;
  uint64_t corrupt_seed = 0;
  // Told of every allocation and release of "device memory" (may be null).
  DeviceMemoryMeter* memory = nullptr;
};

template <typename E>
class SimulatedGpuBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;

  SimulatedGpuBackend(size_t device, ThreadPool& pool, SimulatedGpuOptions options = {})
      : cpu_(pool),
        options_(options),
        device_(device),
        name_(absl::StrCat("simulated-gpu:", device)),
        corrupt_rng_(options.corrupt_seed ^ (0x9e3779b97f4a7c15ull * (device + 1))) {}
  ~SimulatedGpuBackend() override { ReleaseDeviceMemory(); }

  std::string_view name() const override { return name_; }
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
    if (absl::Status s = BeginCall(); !s.ok()) return s;
    absl::StatusOr<std::span<uint8_t>> device = Upload(std::as_bytes(data));
    if (!device.ok()) return device.status();
    std::span<Fr> on_device(reinterpret_cast<Fr*>(device->data()), data.size());
    absl::Status s = cpu_.NttStages(on_device, twiddles, direction, first, end);
    if (s.ok()) std::memcpy(data.data(), device->data(), device->size());  // download
    return s;
  }
  absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                            const Fr& shift) override {
    if (absl::Status s = BeginCall(); !s.ok()) return s;
    absl::StatusOr<std::span<uint8_t>> device = Upload(std::as_bytes(data));
    if (!device.ok()) return device.status();
    std::span<Fr> on_device(reinterpret_cast<Fr*>(device->data()), data.size());
    absl::Status s = cpu_.ShiftToCoset(on_device, twiddles, shift);
    if (s.ok()) std::memcpy(data.data(), device->data(), device->size());  // download
    return s;
  }

  void ReleaseDeviceMemory() override {
    Account(-static_cast<int64_t>(memory_.size()));
    std::vector<uint8_t>().swap(memory_);
    ++releases_;
  }

  uint64_t bytes_resident() const { return memory_.size(); }
  uint64_t uploads() const { return uploads_; }
  uint64_t releases() const { return releases_; }
  uint64_t corrupted() const { return corrupted_; }

 private:
  absl::Status BeginCall() {
    if (options_.latency_per_call > absl::ZeroDuration()) absl::SleepFor(options_.latency_per_call);
    ++calls_;
    if (options_.lost_at_call != 0 && calls_ >= options_.lost_at_call) {
      return MarkDeviceLost(absl::UnavailableError(
          absl::StrCat(name_, ": injected loss of the device (every call fails from call ",
                       options_.lost_at_call, " on)")));
    }
    if (options_.fail_every != 0 && calls_ % options_.fail_every == 0) {
      return absl::UnavailableError(absl::StrCat(name_, ": injected device failure"));
    }
    return absl::OkStatus();
  }

  // Copies `bytes` into device memory (one slab, reused by the next upload).
  absl::StatusOr<std::span<uint8_t>> Upload(std::span<const std::byte> bytes) {
    if (bytes.size() > options_.vram_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(name_, ": ", bytes.size(),
                                                       " bytes do not fit in ", options_.vram_bytes,
                                                       " bytes of VRAM"));
    }
    if (memory_.size() < bytes.size()) {
      Account(static_cast<int64_t>(bytes.size() - memory_.size()));
      memory_.resize(bytes.size());
    }
    std::memcpy(memory_.data(), bytes.data(), bytes.size());
    ++uploads_;
    return std::span<uint8_t>(memory_.data(), bytes.size());
  }

  void Account(int64_t delta) {
    if (options_.memory != nullptr && delta != 0) options_.memory->Add(device_, delta);
  }

  template <typename Point, typename Kernel>
  auto RunMsm(std::span<const Point> points, std::span<const msm::Scalar> scalars, Kernel kernel)
      -> decltype(kernel(points, scalars)) {
    if (absl::Status s = BeginCall(); !s.ok()) return s;
    const size_t point_bytes = points.size_bytes();
    std::vector<std::byte> staging(point_bytes + scalars.size_bytes());
    std::memcpy(staging.data(), points.data(), point_bytes);
    std::memcpy(staging.data() + point_bytes, scalars.data(), scalars.size_bytes());
    absl::StatusOr<std::span<uint8_t>> device = Upload(staging);
    if (!device.ok()) return device.status();
    auto result =
        kernel(std::span(reinterpret_cast<const Point*>(device->data()), points.size()),
               std::span(reinterpret_cast<const msm::Scalar*>(device->data() + point_bytes),
                         scalars.size()));
    if (result.ok() && options_.corrupt_probability > 0 &&
        std::uniform_real_distribution<double>(0, 1)(corrupt_rng_) < options_.corrupt_probability) {
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
  SimulatedGpuOptions options_;
  size_t device_;
  std::string name_;
  std::vector<uint8_t> memory_;
  uint64_t calls_ = 0;
  uint64_t uploads_ = 0;
  uint64_t releases_ = 0;
  std::mt19937_64 corrupt_rng_;
  uint64_t corrupted_ = 0;
};

}  // namespace provd
