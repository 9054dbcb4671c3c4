#include "prover_core/groth16/verification_key.hpp"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "prover_core/groth16/json_points.hpp"
#include "prover_core/pairing/pairing.hpp"

namespace provd::groth16 {
namespace {

using nlohmann::json;

enum class Infinity { kAllowed, kRejected };

// On the curve and in the prime-order subgroup, or INVALID_ARGUMENT "<name> is ...". alpha1 and
// the G2 points must not be the point at infinity: a key with gamma2 or delta2 = 0 accepts forged
// proofs, and snarkjs never writes one. An IC point may be 0 (a public signal that no
// constraint uses).
template <typename E, typename C>
absl::Status CheckPoint(const curve::AffinePoint<C>& p, absl::string_view name,
                        Infinity infinity = Infinity::kRejected) {
  if (p.infinity && infinity == Infinity::kRejected) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is the point at infinity"));
  }
  if (!p.IsOnCurve()) return absl::InvalidArgumentError(absl::StrCat(name, " is not on the curve"));
  bool in_subgroup;
  if constexpr (std::is_same_v<C, typename E::G1>) {
    in_subgroup = pairing::IsInG1<typename E::Pairing>(p);
  } else {
    in_subgroup = pairing::IsInG2<typename E::Pairing>(p);
  }
  if (!in_subgroup) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not in the prime-order subgroup of ", C::kName));
  }
  return absl::OkStatus();
}

template <typename E>
absl::StatusOr<AnyVerificationKey> ParseTyped(const json& j) {
  VerificationKey<E> key;
  auto read = [&]<typename C>(const char* name, curve::AffinePoint<C>& out) -> absl::Status {
    if (!j.contains(name)) return absl::InvalidArgumentError(absl::StrCat("missing ", name));
    absl::StatusOr<curve::AffinePoint<C>> p = json_points::ParsePoint<C>(j.at(name), name);
    if (!p.ok()) return p.status();
    if (absl::Status s = CheckPoint<E>(*p, name); !s.ok()) return s;
    out = *p;
    return absl::OkStatus();
  };
  for (absl::Status s : {read("vk_alpha_1", key.alpha1), read("vk_beta_2", key.beta2),
                         read("vk_gamma_2", key.gamma2), read("vk_delta_2", key.delta2)}) {
    if (!s.ok()) return s;
  }
  if (!j.contains("IC") || !j.at("IC").is_array() || j.at("IC").empty()) {
    return absl::InvalidArgumentError("IC: expected a non-empty list of G1 points");
  }
  for (size_t i = 0; i < j.at("IC").size(); ++i) {
    const std::string name = absl::StrCat("IC[", i, "]");
    absl::StatusOr<curve::AffinePoint<typename E::G1>> p =
        json_points::ParsePoint<typename E::G1>(j.at("IC")[i], name);
    if (!p.ok()) return p.status();
    if (absl::Status s = CheckPoint<E>(*p, name, Infinity::kAllowed); !s.ok()) return s;
    key.ic.push_back(*p);
  }
  if (j.contains("nPublic")) {
    const json& n = j.at("nPublic");
    if (!n.is_number_unsigned() || n.get<uint64_t>() != key.n_public()) {
      return absl::InvalidArgumentError(absl::StrCat("nPublic: ", json_points::Describe(n),
                                                     " does not match the ", key.ic.size(),
                                                     " IC points (nPublic + 1)"));
    }
  }
  return AnyVerificationKey(std::move(key));
}

template <typename E>
absl::StatusOr<AnyVerificationKey> FromZkeyTyped(const ZkeyFile& zkey) {
  using G1 = typename E::G1;
  VerificationKey<E> key;
  const std::span<const uint8_t> header = zkey.section(kZkeyHeader);
  size_t offset = 4 + G1::Field::kBytes + 4 + 32 + 12;  // n8q, q, n8r, r, nVars, nPublic, domain
  auto decode = [&]<typename C>(std::span<const uint8_t> bytes, const std::string& name,
                                ZkeySection id,
                                Infinity infinity) -> absl::StatusOr<curve::AffinePoint<C>> {
    absl::StatusOr<curve::AffinePoint<C>> p =
        curve::DecodeAffineCoordinates<C>(bytes, curve::CoordinateEncoding::kMontgomery);
    absl::Status s = p.ok() ? CheckPoint<E>(*p, name, infinity) : p.status();
    if (!s.ok()) {
      return absl::InvalidArgumentError(zkey.container().SectionError(
          id, ZkeySectionName(id), absl::StrCat(name, ": ", s.message())));
    }
    return p;
  };
  auto next = [&]<typename C>(curve::AffinePoint<C>* out, const char* name) -> absl::Status {
    const size_t size = 2 * C::Field::kBytes;
    absl::StatusOr<curve::AffinePoint<C>> p =
        decode.template operator()<C>(header.subspan(offset, size), name, kZkeyHeader,
                                      out != nullptr ? Infinity::kRejected : Infinity::kAllowed);
    offset += size;
    if (!p.ok()) return p.status();
    if (out != nullptr) *out = *p;
    return absl::OkStatus();
  };
  for (absl::Status s :
       {next(&key.alpha1, "alpha1"), next.template operator()<G1>(nullptr, "beta1"),
        next(&key.beta2, "beta2"), next(&key.gamma2, "gamma2"),
        next.template operator()<G1>(nullptr, "delta1"), next(&key.delta2, "delta2")}) {
    if (!s.ok()) return s;
  }
  const std::span<const uint8_t> ic = zkey.section(kZkeyIc);
  const size_t point = 2 * G1::Field::kBytes;
  for (size_t i = 0; i <= zkey.header().n_public; ++i) {
    absl::StatusOr<curve::AffinePoint<G1>> p = decode.template operator()<G1>(
        ic.subspan(i * point, point), absl::StrCat("point ", i), kZkeyIc, Infinity::kAllowed);
    if (!p.ok()) return p.status();
    key.ic.push_back(*p);
  }
  return AnyVerificationKey(std::move(key));
}

template <typename C>
json PointJson(const curve::AffinePoint<C>& p) {
  using F = typename C::Field;
  if (p.infinity) {
    return json::array({json_points::CoordinateJson(F::Zero()),
                        json_points::CoordinateJson(F::One()),
                        json_points::CoordinateJson(F::Zero())});
  }
  return json::array({json_points::CoordinateJson(p.x), json_points::CoordinateJson(p.y),
                      json_points::CoordinateJson(F::One())});
}

template <typename P>
json GtJson(const pairing::Gt<P>& f) {
  json out = json::array();
  for (const pairing::Fp6<P>* half : {&f.c0(), &f.c1()}) {
    out.push_back(json::array({json_points::CoordinateJson(half->c0()),
                               json_points::CoordinateJson(half->c1()),
                               json_points::CoordinateJson(half->c2())}));
  }
  return out;
}

}  // namespace

absl::StatusOr<AnyVerificationKey> ParseVerificationKeyJson(std::string_view text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("verification key: not a JSON object");
  }
  if (!j.contains("protocol") || j.at("protocol") != "groth16") {
    return absl::InvalidArgumentError(
        absl::StrCat("protocol: expected \"groth16\", got ",
                     j.contains("protocol") ? json_points::Describe(j.at("protocol")) : "nothing"));
  }
  // Compared as JSON values: json::value() would throw on a "curve" that is not a string.
  const json no_curve;
  const json& curve = j.contains("curve") ? j.at("curve") : no_curve;
  if (curve == Bn254Engine::kSnarkjsName) return ParseTyped<Bn254Engine>(j);
  if (curve == Bls12381Engine::kSnarkjsName) return ParseTyped<Bls12381Engine>(j);
  return absl::InvalidArgumentError(
      absl::StrCat("curve: expected \"bn128\" or \"bls12381\", got ",
                   j.contains("curve") ? json_points::Describe(j.at("curve")) : "nothing"));
}

absl::StatusOr<AnyVerificationKey> VerificationKeyFromZkey(const ZkeyFile& zkey) {
  return zkey.header().curve == CurveId::kBn254 ? FromZkeyTyped<Bn254Engine>(zkey)
                                                : FromZkeyTyped<Bls12381Engine>(zkey);
}

std::string VerificationKeyJson(const AnyVerificationKey& any) {
  return std::visit(
      [&]<typename E>(const VerificationKey<E>& key) {
        nlohmann::ordered_json j;
        j["protocol"] = "groth16";
        j["curve"] = E::kSnarkjsName;
        j["nPublic"] = key.n_public();
        j["vk_alpha_1"] = PointJson(key.alpha1);
        j["vk_beta_2"] = PointJson(key.beta2);
        j["vk_gamma_2"] = PointJson(key.gamma2);
        j["vk_delta_2"] = PointJson(key.delta2);
        j["vk_alphabeta_12"] = GtJson<typename E::Pairing>(
            pairing::Pairing<typename E::Pairing>(key.alpha1, key.beta2));
        json ic = json::array();
        for (const auto& p : key.ic) ic.push_back(PointJson(p));
        j["IC"] = ic;
        return j.dump(1) + "\n";
      },
      any);
}

CurveId KeyCurve(const AnyVerificationKey& key) {
  return std::visit([]<typename E>(const VerificationKey<E>&) { return E::kId; }, key);
}

}  // namespace provd::groth16
