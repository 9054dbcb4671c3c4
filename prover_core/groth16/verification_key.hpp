// A Groth16 verification key (alpha1, beta2, gamma2, delta2 and the public-input points IC) for
// either curve, read from snarkjs's verification_key.json or straight from a .zkey, and written
// as snarkjs `zkey export verificationkey` writes it (vk_alphabeta_12 = e(alpha1, beta2)
// included). Every point is checked on the curve and in the prime-order subgroup when read.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/groth16/zkey_file.hpp"

namespace provd::groth16 {

template <typename E>
struct VerificationKey {
  using Engine = E;
  curve::AffinePoint<typename E::G1> alpha1;
  curve::AffinePoint<typename E::G2> beta2, gamma2, delta2;
  std::vector<curve::AffinePoint<typename E::G1>> ic;  // nPublic + 1 points

  size_t n_public() const { return ic.size() - 1; }
};

using AnyVerificationKey =
    std::variant<VerificationKey<Bn254Engine>, VerificationKey<Bls12381Engine>>;

// INVALID_ARGUMENT naming the field for malformed JSON, an unknown curve or protocol, a point off
// the curve or outside the subgroup, or an IC list that does not match nPublic.
absl::StatusOr<AnyVerificationKey> ParseVerificationKeyJson(std::string_view json);
// The key's header points and IC section; INVALID_ARGUMENT naming the section for bad points.
absl::StatusOr<AnyVerificationKey> VerificationKeyFromZkey(const ZkeyFile& zkey);
// snarkjs's verification_key.json, keys in snarkjs's order.
std::string VerificationKeyJson(const AnyVerificationKey& key);

CurveId KeyCurve(const AnyVerificationKey& key);

}  // namespace provd::groth16
