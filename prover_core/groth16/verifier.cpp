#include "prover_core/groth16/verifier.hpp"

#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "prover_core/groth16/json_points.hpp"

namespace provd::groth16 {

template <typename E>
VerifyOutcome PreparedVerificationKey<E>::Verify(const Proof<E>& proof,
                                                 std::span<const field::BigInt<4>> inputs) const {
  if (inputs.size() != key_.n_public()) {
    return {false, absl::StrCat("the key has ", key_.n_public(), " public inputs, the proof ",
                                inputs.size())};
  }
  // Every point on its curve before any subgroup check: the fast subgroup checks assume it.
  if (!proof.a.IsOnCurve()) return {false, "pi_a is not on the curve"};
  if (!proof.b.IsOnCurve()) return {false, "pi_b is not on the curve"};
  if (!proof.c.IsOnCurve()) return {false, "pi_c is not on the curve"};
  if (!pairing::IsInG1<P>(proof.a)) return {false, "pi_a is not in the prime-order subgroup"};
  if (!pairing::IsInG2<P>(proof.b)) return {false, "pi_b is not in the prime-order subgroup"};
  if (!pairing::IsInG1<P>(proof.c)) return {false, "pi_c is not in the prime-order subgroup"};
  curve::XyzzPoint<typename E::G1> l(key_.ic[0]);
  for (size_t i = 0; i < inputs.size(); ++i) l.Add(curve::ScalarMul(key_.ic[i + 1], inputs[i]));
  const pairing::G2Prepared<P> b(proof.b);
  const pairing::PairingTerm<P> terms[] = {
      {-proof.a, &b}, {l.ToAffine(), &gamma2_}, {proof.c, &delta2_}};
  if (!(pairing::PairingProduct<P>(terms) * alphabeta_).IsOne()) return {false, "Invalid proof"};
  return {true, ""};
}

template class PreparedVerificationKey<Bn254Engine>;
template class PreparedVerificationKey<Bls12381Engine>;

AnyPreparedVerificationKey PrepareVerificationKey(AnyVerificationKey key) {
  return std::visit(
      [](auto&& typed) -> AnyPreparedVerificationKey {
        using E = typename std::decay_t<decltype(typed)>::Engine;
        return std::make_shared<const PreparedVerificationKey<E>>(std::move(typed));
      },
      std::move(key));
}

CurveId KeyCurve(const AnyPreparedVerificationKey& key) {
  return std::visit(
      []<typename E>(const std::shared_ptr<const PreparedVerificationKey<E>>&) { return E::kId; },
      key);
}

namespace {

using nlohmann::json;

template <typename E>
absl::StatusOr<VerifyOutcome> VerifyTyped(const PreparedVerificationKey<E>& key, const json& proof,
                                          const json& inputs) {
  if (proof.contains("protocol") && proof.at("protocol") != "groth16") {
    return absl::InvalidArgumentError(absl::StrCat("protocol: expected \"groth16\", got ",
                                                   json_points::Describe(proof.at("protocol"))));
  }
  if (proof.contains("curve") && proof.at("curve") != E::kSnarkjsName) {
    return absl::InvalidArgumentError(absl::StrCat("curve: the proof says ",
                                                   json_points::Describe(proof.at("curve")),
                                                   ", the key is ", E::kSnarkjsName));
  }
  Proof<E> typed;
  auto read = [&]<typename C>(const char* name, curve::AffinePoint<C>& out) -> absl::Status {
    if (!proof.contains(name)) return absl::InvalidArgumentError(absl::StrCat("missing ", name));
    absl::StatusOr<curve::AffinePoint<C>> p = json_points::ParsePoint<C>(proof.at(name), name);
    if (!p.ok()) return p.status();
    out = *p;
    return absl::OkStatus();
  };
  for (absl::Status s : {read("pi_a", typed.a), read("pi_b", typed.b), read("pi_c", typed.c)}) {
    if (!s.ok()) return s;
  }
  if (!inputs.is_array()) {
    return absl::InvalidArgumentError("public signals: expected a JSON array of decimal strings");
  }
  std::vector<field::BigInt<4>> values;
  const field::BigInt<4> r = E::G1::kOrder;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = absl::StrCat("public signal ", i);
    absl::StatusOr<field::BigInt<4>> v = json_points::ParseDecimal<4>(inputs[i], name);
    if (v.status().code() == absl::StatusCode::kInvalidArgument) return v.status();
    if (!v.ok() || *v >= r) return VerifyOutcome{false, absl::StrCat(name, " is not below r")};
    values.push_back(*v);
  }
  return key.Verify(typed, values);
}

}  // namespace

absl::StatusOr<VerifyOutcome> VerifyProofJson(const AnyPreparedVerificationKey& key,
                                              std::string_view proof_json,
                                              std::string_view public_json) {
  const json proof = json::parse(proof_json, nullptr, /*allow_exceptions=*/false);
  if (proof.is_discarded() || !proof.is_object()) {
    return absl::InvalidArgumentError("proof: not a JSON object");
  }
  const json inputs = json::parse(public_json, nullptr, /*allow_exceptions=*/false);
  if (inputs.is_discarded()) return absl::InvalidArgumentError("public signals: not JSON");
  return std::visit([&](const auto& typed) { return VerifyTyped(*typed, proof, inputs); }, key);
}

VerifyOutcome VerifyArtifacts(const AnyPreparedVerificationKey& key, const ProofArtifacts& proof) {
  if (KeyCurve(key) != proof.curve) return {false, "the proof is for another curve than the key"};
  absl::StatusOr<VerifyOutcome> outcome = VerifyProofJson(key, proof.proof_json, proof.public_json);
  if (!outcome.ok()) return {false, absl::StrCat("malformed proof: ", outcome.status().message())};
  return *outcome;
}

}  // namespace provd::groth16
