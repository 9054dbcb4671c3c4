// BLS12-381 (snarkjs "bls12381"): G1 over Fq, y^2 = x^3 + 4, and G2 over Fq2 on the M-type
// twist y^2 = x^3 + 4(1 + u). Generators as in the IETF pairing-friendly-curves draft and
// snarkjs. Both groups have a cofactor, so decoding untrusted points checks the subgroup.
#pragma once

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bls12_381.hpp"

namespace provd::curve {

namespace bls12_381_detail {
inline field::Bls12381Fq Fq(const char* hex) {
  return field::Bls12381Fq::FromCanonical(field::Bls12381Fq::Int::FromHex(hex));
}
}  // namespace bls12_381_detail

struct Bls12381G1 {
  using Field = field::Bls12381Fq;
  using ScalarField = field::Bls12381Fr;
  using ScalarInt = field::BigInt<4>;
  static constexpr char kName[] = "bls12_381 G1";
  static constexpr ScalarInt kOrder = field::Bls12381FrParams::kModulus;
  static constexpr bool kCofactorIsOne = false;
  static const Field& B() {
    static const Field b = Field::FromUint64(4);
    return b;
  }
  static AffinePoint<Bls12381G1> Generator() {
    using bls12_381_detail::Fq;
    static const AffinePoint<Bls12381G1> g =
        AffinePoint<Bls12381G1>::FromXY(Fq("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3"
                                           "a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
                                        Fq("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db1"
                                           "8cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
    return g;
  }
};

struct Bls12381G2 {
  using Field = field::Bls12381Fq2;
  using ScalarField = field::Bls12381Fr;
  using ScalarInt = field::BigInt<4>;
  static constexpr char kName[] = "bls12_381 G2";
  static constexpr ScalarInt kOrder = field::Bls12381FrParams::kModulus;
  static constexpr bool kCofactorIsOne = false;
  static const Field& B() {
    static const Field b(field::Bls12381Fq::FromUint64(4), field::Bls12381Fq::FromUint64(4));
    return b;
  }
  static AffinePoint<Bls12381G2> Generator() {
    using bls12_381_detail::Fq;
    static const AffinePoint<Bls12381G2> g = AffinePoint<Bls12381G2>::FromXY(
        Field(Fq("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbe"
                 "fd48056c8c121bdb8"),
              Fq("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d5"
                 "7e5ac7d055d042b7e")),
        Field(Fq("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca28"
                 "9e193548608b82801"),
              Fq("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da"
                 "1aaa9075ff05f79be")));
    return g;
  }
};

}  // namespace provd::curve
