// BN254 (alt_bn128, snarkjs's "bn128") base and scalar fields.
#pragma once

#include "prover_core/field/fp2.hpp"
#include "prover_core/field/montgomery_field.hpp"

namespace provd::field {

struct Bn254FqParams {
  static constexpr char kName[] = "bn254_fq";
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::FromHex("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
  static constexpr uint64_t kNonResidue = 3;
};

struct Bn254FrParams {
  static constexpr char kName[] = "bn254_fr";
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::FromHex("0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  static constexpr uint64_t kNonResidue = 5;
};

using Bn254Fq = Fp<Bn254FqParams>;
using Bn254Fr = Fp<Bn254FrParams>;
using Bn254Fq2 = Fp2<Bn254Fq>;

}  // namespace provd::field
