// What the pairing code needs to know of each curve, as data: the tower's non-residue xi, the
// twist type, the curve parameter x and the family, which fixes the Miller loop's length (6x+2
// for BN, x for BLS12) and the hard part of the final exponentiation.
#pragma once

#include <cstdint>

#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"

namespace provd::pairing {

enum class Family { kBn, kBls12 };
// D-type: G2 is y^2 = x^3 + b/xi (BN254); M-type: y^2 = x^3 + b*xi (BLS12-381). It decides
// where a line's coefficients sit in Fq12 and the constants of the endomorphism psi.
enum class Twist { kD, kM };

struct Bn254Pairing {
  using Fq = field::Bn254Fq;
  using Fq2 = field::Bn254Fq2;
  using G1 = curve::Bn254G1;
  using G2 = curve::Bn254G2;
  static constexpr char kName[] = "bn254";
  static constexpr Family kFamily = Family::kBn;
  static constexpr Twist kTwist = Twist::kD;
  static constexpr uint64_t kX = 4965661367192848881ull;  // p = 36x^4 + 36x^3 + 24x^2 + 6x + 1
  static constexpr bool kXIsNegative = false;

  static constexpr Fq2 NonResidue() { return Fq2(Fq::FromUint64(9), Fq::One()); }
  // a * (9 + u) = (9 a0 - a1) + (a0 + 9 a1) u, by additions.
  static constexpr Fq2 MulByNonResidue(const Fq2& a) {
    auto nine = [](const Fq& v) { return v.Double().Double().Double() + v; };
    return Fq2(nine(a.c0()) - a.c1(), a.c0() + nine(a.c1()));
  }
};

struct Bls12381Pairing {
  using Fq = field::Bls12381Fq;
  using Fq2 = field::Bls12381Fq2;
  using G1 = curve::Bls12381G1;
  using G2 = curve::Bls12381G2;
  static constexpr char kName[] = "bls12_381";
  static constexpr Family kFamily = Family::kBls12;
  static constexpr Twist kTwist = Twist::kM;
  static constexpr uint64_t kX = 0xd201000000010000ull;  // |x|; x itself is negative
  static constexpr bool kXIsNegative = true;

  static constexpr Fq2 NonResidue() { return Fq2(Fq::One(), Fq::One()); }
  // a * (1 + u) = (a0 - a1) + (a0 + a1) u.
  static constexpr Fq2 MulByNonResidue(const Fq2& a) {
    return Fq2(a.c0() - a.c1(), a.c0() + a.c1());
  }
};

}  // namespace provd::pairing
