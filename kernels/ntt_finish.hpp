// The step that ends a device NTT: ntt::Finish's bit reversal, optionally fused with a scaling
// by n^-1 * shift^i, which is the inverse transform's 1/n and ntt::ScaleByPowers(shift) of a
// coset step in one pass over memory. Plain constexpr C++ like ntt_passes.hpp: the kernel runs
// FinishElement one thread per index, and the host tests run the very same function over
// every index against ntt::Finish and ntt::ScaleByPowers.
//
// The factor of index i is low[i mod 2^log_low] * high[i >> log_low] with
// low[j] = n^-1 * shift^j and high[k] = shift^(k 2^log_low): two short tables instead of n
// powers, and the same field element as the CPU's (field products are exact, so how the power
// is grouped cannot change the canonical result).
#pragma once

#include <cstdint>
#include <vector>

#include "prover_core/ntt/ntt.hpp"

namespace provd::kernels {

// 2^12 entries in the low table: at 2^24 points both tables together are 8192 elements.
inline constexpr uint32_t kLogLowPowers = 12;

template <typename F>
struct FinishScale {
  const F* low = nullptr;  // null: permutation only
  const F* high = nullptr;
  uint32_t log_low = 0;

  constexpr F At(uint64_t i) const {
    return low[i & ((uint64_t{1} << log_low) - 1)] * high[i >> log_low];
  }
};

// Index i's share of the finish over data[0, 2^log_n): the pair (i, rev(i)) is swapped (and
// both scaled) by the smaller index, so every element is written by exactly one index.
template <typename F>
constexpr void FinishElement(F* data, uint64_t i, uint32_t log_n, const FinishScale<F>& scale) {
  const uint64_t r = ntt::ReverseBits(i, log_n);
  if (r < i) return;
  if (scale.low == nullptr) {
    if (r == i) return;
    const F a = data[i];
    data[i] = data[r];
    data[r] = a;
    return;
  }
  const F a = data[i];
  data[i] = data[r] * scale.At(i);
  if (r != i) data[r] = a * scale.At(r);
}

// The tables of FinishScale for a 2^log_n-point inverse transform (1/n = n_inv) followed by the
// scaling by shift^i, laid out as one array: low (2^log_low entries), then high.
template <typename F>
struct CosetScaleTables {
  uint32_t log_low = 0;
  std::vector<F> values;

  uint64_t low_size() const { return uint64_t{1} << log_low; }
  FinishScale<F> View(const F* base) const { return {base, base + low_size(), log_low}; }
};

template <typename F>
CosetScaleTables<F> MakeCosetScaleTables(uint32_t log_n, const F& n_inv, const F& shift) {
  CosetScaleTables<F> tables;
  tables.log_low = log_n < kLogLowPowers ? log_n : kLogLowPowers;
  const uint64_t low = tables.low_size();
  const uint64_t high = (uint64_t{1} << log_n) >> tables.log_low;
  tables.values.reserve(low + high);
  F power = n_inv;
  for (uint64_t j = 0; j < low; ++j, power *= shift) tables.values.push_back(power);
  const F step = shift.Pow(low);
  power = F::One();
  for (uint64_t k = 0; k < high; ++k, power *= step) tables.values.push_back(power);
  return tables;
}

}  // namespace provd::kernels
