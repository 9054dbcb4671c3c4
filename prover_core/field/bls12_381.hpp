// BLS12-381 base and scalar fields.
#pragma once

#include "prover_core/field/fp2.hpp"
#include "prover_core/field/montgomery_field.hpp"

namespace provd::field {

struct Bls12381FqParams {
  static constexpr char kName[] = "bls12_381_fq";
  static constexpr size_t kLimbs = 6;
  static constexpr BigInt<6> kModulus = BigInt<6>::FromHex(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffff"
      "ffaaab");
  static constexpr uint64_t kNonResidue = 2;
};

struct Bls12381FrParams {
  static constexpr char kName[] = "bls12_381_fr";
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::FromHex("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr uint64_t kNonResidue = 5;
};

using Bls12381Fq = Fp<Bls12381FqParams>;
using Bls12381Fr = Fp<Bls12381FrParams>;
using Bls12381Fq2 = Fp2<Bls12381Fq>;

}  // namespace provd::field
