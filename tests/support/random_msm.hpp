// Random MSM inputs for tests: points that are random multiples of the generator (cheap to
// make in bulk), random 256-bit scalars, and the naive sum they must add up to.
#pragma once

#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/msm/pippenger.hpp"
#include "tests/support/random.hpp"

namespace provd::testing {

template <typename C>
struct Instance {
  std::vector<curve::AffinePoint<C>> points;
  std::vector<msm::Scalar> scalars;
};

template <typename C>
Instance<C> RandomInstance(size_t n, uint64_t seed) {
  TestRng rng(seed);
  Instance<C> in;
  // Random multiples of G, derived cheaply: P_i = P_{i-1} + Q with a random Q every 8 points.
  curve::XyzzPoint<C> p = curve::ScalarMul(C::Generator(), rng.NextInt<4>());
  curve::AffinePoint<C> q = curve::ScalarMul(C::Generator(), rng.NextInt<4>()).ToAffine();
  std::vector<curve::XyzzPoint<C>> xyzz;
  for (size_t i = 0; i < n; ++i) {
    if (i % 8 == 0) q = curve::ScalarMul(C::Generator(), rng.NextInt<4>()).ToAffine();
    p.AddAffine(q);
    xyzz.push_back(p);
    in.scalars.push_back(rng.NextInt<4>());
  }
  in.points.resize(n);
  curve::BatchToAffine<C>(xyzz, in.points);
  return in;
}

template <typename C>
curve::XyzzPoint<C> NaiveMsm(const Instance<C>& in) {
  curve::XyzzPoint<C> acc;
  for (size_t i = 0; i < in.points.size(); ++i)
    acc.Add(curve::ScalarMul(in.points[i], in.scalars[i]));
  return acc;
}

}  // namespace provd::testing
