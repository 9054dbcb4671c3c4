// Deterministic benchmark inputs: random points are derived cheaply (consecutive sums of a few
// random multiples of the generator, converted to affine in one batch) so that 2^20-point
// inputs take seconds, not minutes, to build.
#pragma once

#include <map>
#include <random>
#include <utility>
#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bigint.hpp"

namespace provd::bench {

inline field::BigInt<4> RandomScalarBelow(std::mt19937_64& rng, const field::BigInt<4>& bound) {
  while (true) {
    field::BigInt<4> v;
    for (auto& limb : v.limbs) limb = rng();
    v.limbs[3] &= (~0ull >> __builtin_clzll(bound.limbs[3]));
    if (v < bound) return v;
  }
}

template <typename C>
std::vector<curve::AffinePoint<C>> RandomPoints(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<curve::AffinePoint<C>> steps;
  for (int i = 0; i < 64; ++i) {
    steps.push_back(curve::ScalarMul(C::Generator(), RandomScalarBelow(rng, C::kOrder)).ToAffine());
  }
  std::vector<curve::XyzzPoint<C>> xyzz(n);
  curve::XyzzPoint<C> acc = curve::ScalarMul(C::Generator(), RandomScalarBelow(rng, C::kOrder));
  for (size_t i = 0; i < n; ++i) {
    acc.AddAffine(steps[rng() % steps.size()]);
    xyzz[i] = acc;
  }
  std::vector<curve::AffinePoint<C>> points(n);
  curve::BatchToAffine<C>(xyzz, points);
  return points;
}

template <typename C>
std::vector<field::BigInt<4>> RandomScalars(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<field::BigInt<4>> scalars(n);
  for (auto& s : scalars) s = RandomScalarBelow(rng, C::kOrder);
  return scalars;
}

// 2^log_n random points and scalars for group C, built once per size and kept for the process.
template <typename C>
const std::pair<std::vector<curve::AffinePoint<C>>, std::vector<field::BigInt<4>>>& MsmInputs(
    size_t log_n) {
  static std::map<size_t,
                  std::pair<std::vector<curve::AffinePoint<C>>, std::vector<field::BigInt<4>>>>
      cache;
  auto it = cache.find(log_n);
  if (it == cache.end()) {
    const size_t n = size_t{1} << log_n;
    it = cache.emplace(log_n, std::make_pair(RandomPoints<C>(n, 1), RandomScalars<C>(n, 2))).first;
  }
  return it->second;
}

}  // namespace provd::bench
