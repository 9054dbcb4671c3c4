// Groth16 verification, snarkjs's acceptance rules (groth16_verify.js): public inputs below r,
// proof points on the curve, and e(A, B) = e(alpha1, beta2) e(L, gamma2) e(C, delta2) with
// L = IC_0 + sum_i s_i IC_i, checked as one product e(-A, B) e(L, gamma2) e(C, delta2)
// e(alpha1, beta2) = 1: three Miller loops (gamma2's and delta2's lines prepared once per key,
// e(alpha1, beta2) computed once per key) and one final exponentiation.
//
// Stricter than snarkjs, deliberately: A, B and C must be in the prime-order subgroups (snarkjs
// checks only that they are on the curve; outside the subgroups the pairing equation is not the
// statement Groth16's soundness is about), the number of public signals must be the key's
// (snarkjs does not compare them), and a coordinate that is not below the base field's modulus is
// malformed input (INVALID_ARGUMENT) rather than a number to reduce.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/statusor.h"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/prover.hpp"
#include "prover_core/groth16/verification_key.hpp"
#include "prover_core/pairing/pairing.hpp"

namespace provd::groth16 {

// The verdict on a well-formed proof: valid, or why not ("Invalid proof", "public input 3 is
// not below r", ...).
struct VerifyOutcome {
  bool valid = false;
  std::string reason;
};

template <typename E>
class PreparedVerificationKey {
 public:
  using P = typename E::Pairing;

  explicit PreparedVerificationKey(VerificationKey<E> key)
      : key_(std::move(key)),
        gamma2_(key_.gamma2),
        delta2_(key_.delta2),
        alphabeta_(pairing::Pairing<P>(key_.alpha1, key_.beta2)) {}

  const VerificationKey<E>& key() const { return key_; }
  const pairing::Gt<P>& alphabeta() const { return alphabeta_; }

  // `inputs` are the public signals, each already known to be below r.
  VerifyOutcome Verify(const Proof<E>& proof, std::span<const field::BigInt<4>> inputs) const;

 private:
  VerificationKey<E> key_;
  pairing::G2Prepared<P> gamma2_, delta2_;
  pairing::Gt<P> alphabeta_;
};

using AnyPreparedVerificationKey =
    std::variant<std::shared_ptr<const PreparedVerificationKey<Bn254Engine>>,
                 std::shared_ptr<const PreparedVerificationKey<Bls12381Engine>>>;

AnyPreparedVerificationKey PrepareVerificationKey(AnyVerificationKey key);
CurveId KeyCurve(const AnyPreparedVerificationKey& key);

// proof.json and public.json as snarkjs writes them. INVALID_ARGUMENT naming the field for
// input that is not such a file (not JSON, a missing or non-numeric field, a coordinate that is
// not below the base field's modulus, a proof for the other curve); otherwise the verdict.
absl::StatusOr<VerifyOutcome> VerifyProofJson(const AnyPreparedVerificationKey& key,
                                              std::string_view proof_json,
                                              std::string_view public_json);

// The verdict on a proof as the prover hands it out (its proof.json and public.json, not the
// points before they were written): what the daemon checks before a job succeeds. A proof that
// is not even well-formed is invalid, the parse error its reason.
VerifyOutcome VerifyArtifacts(const AnyPreparedVerificationKey& key, const ProofArtifacts& proof);

extern template class PreparedVerificationKey<Bn254Engine>;
extern template class PreparedVerificationKey<Bls12381Engine>;

}  // namespace provd::groth16
