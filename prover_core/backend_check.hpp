// A known-answer check of a device backend against the CPU: small MSMs on G1 and G2 with the
// cases a bucket method gets wrong first (zero and all-ones scalars, the largest scalar, equal
// and opposite points, the point at infinity), a stage range of an NTT in each direction, and a
// coset shift, each compared bit for bit with the CPU backend. A device must pass it before it
// sees a job (daemon/gpu_detect.cpp, after kernels::SelfTest, through
// kernels::CheckCudaBackendAgainstCpu): a wrong result there would be a wrong proof, not an error.
//
// Sized to take milliseconds: every path of the device's MSM (several windows, both signs of
// digits, buckets with many points) and of its NTT (passes, both stage tables, the finish with
// both power tables) runs, but not every size.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "prover_core/backend.hpp"
#include "prover_core/cpu_backend.hpp"

namespace provd {
namespace backend_check_internal {

// n points: multiples of the generator with a repeat, an opposite pair and infinity among them.
template <typename C>
std::vector<curve::AffinePoint<C>> Points(size_t n) {
  std::vector<curve::XyzzPoint<C>> xyzz(n);
  curve::XyzzPoint<C> p;
  for (size_t i = 0; i < n; ++i) {
    p.AddAffine(C::Generator());
    p = p.Double();  // 2 (p + G): multiples that are not consecutive
    xyzz[i] = p;
  }
  std::vector<curve::AffinePoint<C>> points(n);
  curve::BatchToAffine<C>(xyzz, points);
  if (n > 6) {
    points[3] = points[2];
    points[5] = -points[4];
    points[6] = curve::AffinePoint<C>::Infinity();
  }
  return points;
}

// n scalars spread over [0, r) with 0, 1, r - 1 and 2^k - 1 for a window-sized k among them.
template <typename Fr>
std::vector<msm::Scalar> Scalars(size_t n) {
  std::vector<msm::Scalar> scalars(n);
  Fr x = Fr::FromUint64(0x9e3779b97f4a7c15ull);
  const Fr step = Fr::FromUint64(0xd1b54a32d192ed03ull);
  for (size_t i = 0; i < n; ++i) {
    x = x * step + Fr::One();
    scalars[i] = x.ToCanonical();
  }
  if (n > 4) {
    scalars[0] = msm::Scalar::FromUint64(0);
    scalars[1] = msm::Scalar::FromUint64(1);
    scalars[2] = (-Fr::One()).ToCanonical();
    scalars[4] = msm::Scalar::FromUint64(0xffff);
  }
  return scalars;
}

template <typename Fr>
std::vector<Fr> Values(size_t n) {
  std::vector<Fr> values(n);
  Fr x = Fr::FromUint64(7);
  for (Fr& v : values) {
    x = x * x + Fr::FromUint64(3);
    v = x;
  }
  return values;
}

}  // namespace backend_check_internal

template <typename E>
absl::Status CheckBackendAgainstCpu(Backend<E>& device, ThreadPool& pool) {
  using Fr = typename E::Fr;
  namespace in = backend_check_internal;
  CpuBackend<E> cpu(pool);
  const std::string name(device.name());
  auto compare = [&](const char* what, auto on_device, auto on_cpu) -> absl::Status {
    auto expected = on_cpu(static_cast<Backend<E>&>(cpu));
    auto got = on_device(device);
    if (!expected.ok()) {
      return absl::InternalError(absl::StrCat(what, " on the CPU: ", expected.status().ToString()));
    }
    if (!got.ok()) {
      return absl::Status(got.status().code(),
                          absl::StrCat(name, " ", what, ": ", got.status().message()));
    }
    if (!(*got == *expected)) {
      return absl::InternalError(absl::StrCat(name, " ", what, " differs from the CPU's"));
    }
    return absl::OkStatus();
  };

  // 2^12 + 5 points: several windows, buckets of many points, a batch that is not a power of 2.
  const std::vector<curve::AffinePoint<typename E::G1>> g1 =
      in::Points<typename E::G1>((size_t{1} << 12) + 5);
  const std::vector<msm::Scalar> s1 = in::Scalars<Fr>(g1.size());
  auto msm_g1 = [&](Backend<E>& b) { return b.MsmG1(g1, s1); };
  if (absl::Status s = compare("G1 MSM of 4101 points", msm_g1, msm_g1); !s.ok()) return s;

  const std::vector<curve::AffinePoint<typename E::G2>> g2 = in::Points<typename E::G2>(515);
  const std::vector<msm::Scalar> s2 = in::Scalars<Fr>(g2.size());
  auto msm_g2 = [&](Backend<E>& b) { return b.MsmG2(g2, s2); };
  if (absl::Status s = compare("G2 MSM of 515 points", msm_g2, msm_g2); !s.ok()) return s;

  // 2^13 values: more than the finish's 2^12-entry power table, so both tables are read.
  constexpr size_t kLogN = 13;
  absl::StatusOr<std::shared_ptr<const ntt::Twiddles<Fr>>> tw = ntt::GetTwiddles<Fr>(kLogN, pool);
  if (!tw.ok()) return tw.status();
  const std::vector<Fr> values = in::Values<Fr>(size_t{1} << kLogN);
  for (ntt::Direction direction : {ntt::Direction::kForward, ntt::Direction::kInverse}) {
    auto stages = [&](Backend<E>& b) -> absl::StatusOr<std::vector<Fr>> {
      std::vector<Fr> data = values;
      if (absl::Status s = b.NttStages(data, **tw, direction, 2, kLogN); !s.ok()) return s;
      return data;
    };
    const char* what = direction == ntt::Direction::kForward ? "NTT stages 2..13 of 2^13"
                                                             : "inverse NTT stages 2..13 of 2^13";
    if (absl::Status s = compare(what, stages, stages); !s.ok()) return s;
  }
  auto coset = [&](Backend<E>& b) -> absl::StatusOr<std::vector<Fr>> {
    std::vector<Fr> data = values;
    if (absl::Status s = b.ShiftToCoset(data, **tw, ntt::RootOfUnity<Fr>(kLogN + 1)); !s.ok())
      return s;
    return data;
  };
  return compare("coset shift of 2^13", coset, coset);
}

}  // namespace provd
