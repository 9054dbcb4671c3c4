// The constants of the p-power Frobenius map on the tower Fq2 < Fq6 < Fq12, computed once from
// the non-residue xi instead of pasted in: with g = xi^((p-1)/6),
//   w^(p^k) = w * xi^((p^k - 1) / 6)   and   xi^((p^(k+1) - 1) / 6) = conj(xi^((p^k - 1) / 6)) * g
// (the p-th power of an Fq2 element is its conjugate), so every table entry is a product of
// Fq2 elements; the Fq6 entries are the squares and fourth powers of the Fq12 ones.
#pragma once

#include <array>
#include <cstddef>

#include "prover_core/field/bigint.hpp"

namespace provd::pairing {

// v / k for a small k that divides v exactly (callers check divisibility at compile time).
template <size_t N>
constexpr field::BigInt<N> DivideBySmall(field::BigInt<N> v, uint64_t k) {
  field::u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    const field::u128 cur = (rem << 64) | v.limbs[i];
    v.limbs[i] = static_cast<uint64_t>(cur / k);
    rem = cur % k;
  }
  return v;
}

template <typename P>
struct FrobeniusCoefficients {
  using Fq = typename P::Fq;
  using Fq2 = typename P::Fq2;
  using Int = typename Fq::Int;

  std::array<Fq2, 12> fp12_c1;  // xi^((p^k - 1) / 6)
  std::array<Fq2, 12> fp6_c1;   // xi^((p^k - 1) / 3)
  std::array<Fq2, 12> fp6_c2;   // xi^(2 (p^k - 1) / 3)

  static const FrobeniusCoefficients& Get() {
    static const FrobeniusCoefficients table = Compute();
    return table;
  }

  // a^(p^k) for a in Fq2.
  static constexpr Fq2 Fq2Power(const Fq2& a, size_t k) { return k % 2 == 0 ? a : a.Conjugate(); }

  // xi^((p - 1) / d) for d dividing p - 1.
  static Fq2 NonResiduePower(uint64_t d) {
    Int e = Fq::Modulus();
    e.SubInPlace(Int::FromUint64(1));
    return P::NonResidue().Pow(DivideBySmall(e, d));
  }

 private:
  static FrobeniusCoefficients Compute() {
    FrobeniusCoefficients t;
    const Fq2 g = NonResiduePower(6);
    Fq2 power = Fq2::One();
    for (size_t k = 0; k < 12; ++k) {
      t.fp12_c1[k] = power;
      t.fp6_c1[k] = power.Square();
      t.fp6_c2[k] = t.fp6_c1[k].Square();
      power = power.Conjugate() * g;
    }
    return t;
  }
};

}  // namespace provd::pairing
