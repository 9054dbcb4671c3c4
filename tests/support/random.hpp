// Seeded randomness for property tests: every test prints nothing random it cannot replay.
#pragma once

#include <cstdint>
#include <random>

#include "prover_core/field/bigint.hpp"

namespace provd::testing {

class TestRng {
 public:
  explicit TestRng(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  template <size_t N>
  field::BigInt<N> NextInt() {
    field::BigInt<N> v;
    for (auto& limb : v.limbs) limb = Next();
    return v;
  }
  // A uniformly random field element (rejection sampling on the top limb's bit length).
  template <typename F>
  F NextField() {
    using Int = typename F::Int;
    const Int& p = F::Modulus();
    const size_t bits = p.BitLength();
    while (true) {
      Int v = NextInt<Int::kLimbs>();
      for (size_t i = bits; i < Int::kBits; ++i) v.limbs[i / 64] &= ~(uint64_t{1} << (i % 64));
      if (v < p) return F::FromCanonical(v);
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace provd::testing
