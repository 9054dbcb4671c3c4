// BN254 (snarkjs "bn128"): G1 over Fq, y^2 = x^3 + 3, and G2 over Fq2 on the D-type twist
// y^2 = x^3 + 3/(9 + u). Generators as in EIP-196/197 and snarkjs.
#pragma once

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bn254.hpp"

namespace provd::curve {

struct Bn254G1 {
  using Field = field::Bn254Fq;
  using ScalarField = field::Bn254Fr;
  using ScalarInt = field::BigInt<4>;
  static constexpr char kName[] = "bn254 G1";
  static constexpr ScalarInt kOrder = field::Bn254FrParams::kModulus;
  static constexpr bool kCofactorIsOne = true;
  static const Field& B() {
    static const Field b = Field::FromUint64(3);
    return b;
  }
  static AffinePoint<Bn254G1> Generator() {
    return AffinePoint<Bn254G1>::FromXY(Field::FromUint64(1), Field::FromUint64(2));
  }
};

struct Bn254G2 {
  using Field = field::Bn254Fq2;
  using ScalarField = field::Bn254Fr;
  using ScalarInt = field::BigInt<4>;
  static constexpr char kName[] = "bn254 G2";
  static constexpr ScalarInt kOrder = field::Bn254FrParams::kModulus;
  static constexpr bool kCofactorIsOne = false;
  static const Field& B() {
    static const Field b = Field::FromUint64(3) *
                           Field(field::Bn254Fq::FromUint64(9), field::Bn254Fq::One()).Inverse();
    return b;
  }
  static AffinePoint<Bn254G2> Generator() {
    using Fq = field::Bn254Fq;
    using Int = Fq::Int;
    auto fq = [](const char* hex) { return Fq::FromCanonical(Int::FromHex(hex)); };
    static const AffinePoint<Bn254G2> g = AffinePoint<Bn254G2>::FromXY(
        Field(fq("0x1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
              fq("0x198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")),
        Field(fq("0x12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
              fq("0x090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")));
    return g;
  }
};

}  // namespace provd::curve
