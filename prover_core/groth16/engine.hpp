// The pairing-friendly curves snarkjs proves Groth16 over, as one type each that bundles the
// groups and fields the prover is templated on.
#pragma once

#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "prover_core/pairing/params.hpp"

namespace provd::groth16 {

enum class CurveId { kBn254, kBls12381 };

struct Bn254Engine {
  using G1 = curve::Bn254G1;
  using G2 = curve::Bn254G2;
  using Fq = field::Bn254Fq;
  using Fr = field::Bn254Fr;
  using Pairing = pairing::Bn254Pairing;
  static constexpr CurveId kId = CurveId::kBn254;
  static constexpr char kSnarkjsName[] = "bn128";  // the "curve" of snarkjs's JSON files
};

struct Bls12381Engine {
  using G1 = curve::Bls12381G1;
  using G2 = curve::Bls12381G2;
  using Fq = field::Bls12381Fq;
  using Fr = field::Bls12381Fr;
  using Pairing = pairing::Bls12381Pairing;
  static constexpr CurveId kId = CurveId::kBls12381;
  static constexpr char kSnarkjsName[] = "bls12381";
};

inline const char* SnarkjsCurveName(CurveId id) {
  return id == CurveId::kBn254 ? Bn254Engine::kSnarkjsName : Bls12381Engine::kSnarkjsName;
}

}  // namespace provd::groth16
