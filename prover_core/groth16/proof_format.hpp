// A proof as snarkjs writes it (proof.json, public.json) and in provd's compact binary form.
//
// Binary form: A (G1), B (G2), C (G1) as affine coordinates in normal form, each coordinate n8q
// bytes little-endian, G2 coordinates as c0 then c1 (snarkjs's zkey layout, without Montgomery
// form): 8 * n8q bytes, 256 for bn128 and 384 for bls12381. The point at infinity is all zeros.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "prover_core/groth16/prover.hpp"

namespace provd::groth16 {

namespace internal {

template <typename F>
std::string Decimal(const F& v) {
  return field::ToDecimal(v.ToCanonical());
}

// snarkjs writes points in projective form with z = 1; the point at infinity as (0, 1, 0).
template <typename C>
nlohmann::json G1Json(const curve::AffinePoint<C>& p) {
  if (p.infinity) return nlohmann::json::array({"0", "1", "0"});
  return nlohmann::json::array({Decimal(p.x), Decimal(p.y), "1"});
}

template <typename C>
nlohmann::json G2Json(const curve::AffinePoint<C>& p) {
  // Built with json::array explicitly: a braced list of two-string lists would be taken for
  // an object of key/value pairs.
  using nlohmann::json;
  auto pair = [](std::string c0, std::string c1) { return json::array({c0, c1}); };
  auto fq2 = [&](const auto& v) { return pair(Decimal(v.c0()), Decimal(v.c1())); };
  if (p.infinity) return json::array({pair("0", "0"), pair("1", "0"), pair("0", "0")});
  return json::array({fq2(p.x), fq2(p.y), pair("1", "0")});
}

}  // namespace internal

template <typename E>
std::string ProofJson(const Proof<E>& proof) {
  nlohmann::ordered_json json;
  json["pi_a"] = internal::G1Json(proof.a);
  json["pi_b"] = internal::G2Json(proof.b);
  json["pi_c"] = internal::G1Json(proof.c);
  json["protocol"] = "groth16";
  json["curve"] = E::kSnarkjsName;
  return json.dump(1) + "\n";
}

// The public signals: witness[1 .. n_public], decimal strings.
inline std::string PublicJson(const Witness& witness, uint32_t n_public) {
  nlohmann::json json = nlohmann::json::array();
  for (uint32_t i = 1; i <= n_public && i < witness.values.size(); ++i) {
    json.push_back(field::ToDecimal(witness.values[i]));
  }
  return json.dump(1) + "\n";
}

template <typename E>
std::vector<uint8_t> ProofBytes(const Proof<E>& proof) {
  constexpr size_t kQ = E::Fq::kBytes;
  std::vector<uint8_t> out(8 * kQ);
  const auto normal = curve::CoordinateEncoding::kNormal;
  curve::EncodeAffine(proof.a, normal, std::span(out).subspan(0, 2 * kQ));
  curve::EncodeAffine(proof.b, normal, std::span(out).subspan(2 * kQ, 4 * kQ));
  curve::EncodeAffine(proof.c, normal, std::span(out).subspan(6 * kQ, 2 * kQ));
  return out;
}

}  // namespace provd::groth16
