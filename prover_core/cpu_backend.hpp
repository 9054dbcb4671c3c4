// The host backend: prover_core's own MSM and NTT on the process thread pool.
#pragma once

#include <string>

#include "prover_core/backend.hpp"
#include "prover_core/msm/msm_instances.hpp"

namespace provd {

template <typename E>
class CpuBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;

  // `options` tunes the MSM (window, accumulation); results do not depend on it.
  explicit CpuBackend(ThreadPool& pool, msm::MsmOptions options = {}, std::string name = "cpu")
      : pool_(pool), options_(options), name_(std::move(name)) {}

  std::string_view name() const override { return name_; }
  bool is_cpu() const override { return true; }

  absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return msm::Msm<G1>(points, scalars, pool_, options_);
  }
  absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>> points,
                                             std::span<const msm::Scalar> scalars) override {
    return msm::Msm<G2>(points, scalars, pool_, options_);
  }
  absl::Status NttStages(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                         ntt::Direction direction, size_t first, size_t end) override {
    return ntt::RunStages(data, twiddles, direction, first, end, pool_);
  }
  absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                            const Fr& shift) override {
    return ntt::ShiftToCoset(data, twiddles, shift, pool_);
  }

 private:
  ThreadPool& pool_;
  msm::MsmOptions options_;
  std::string name_;
};

}  // namespace provd
