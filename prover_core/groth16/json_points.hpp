// Field elements and points in snarkjs's JSON (proof.json, verification_key.json): decimal
// strings, G1 points [x, y, z] and G2 points [[x0, x1], [y0, y1], [z0, z1]] in Jacobian
// coordinates (snarkjs writes z = 1, and the point at infinity with z = 0). Reading is for
// untrusted input: INVALID_ARGUMENT naming the field (e.g. "pi_b[1][0]") for anything that is
// not such a value; whether a point is on the curve is left to the caller.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bigint.hpp"

namespace provd::groth16::json_points {

// An untrusted JSON value for an error message: a scalar as JSON (cut to 80 characters), an
// array or object by its type only, since dumping one recurses as deep as the attacker nested it.
inline std::string Describe(const nlohmann::json& j) {
  if (j.is_structured()) return std::string(j.is_array() ? "an array" : "an object");
  std::string text = j.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// A decimal string (or a non-negative JSON integer) as an integer of N limbs. OUT_OF_RANGE when
// it does not fit, INVALID_ARGUMENT when it is not a decimal integer.
template <size_t N>
absl::StatusOr<field::BigInt<N>> ParseDecimal(const nlohmann::json& j, absl::string_view name) {
  std::string text;
  if (j.is_string()) {
    text = j.get<std::string>();
  } else if (j.is_number_unsigned()) {
    text = std::to_string(j.get<uint64_t>());
  } else {
    return absl::InvalidArgumentError(absl::StrCat(name, ": expected a decimal string"));
  }
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": empty number"));
  field::BigInt<N> v;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": \"", text.substr(0, 80), "\" is not a decimal integer"));
    }
    uint64_t carry = static_cast<uint64_t>(c - '0');
    for (uint64_t& limb : v.limbs) {
      field::u128 t = static_cast<field::u128>(limb) * 10 + carry;
      limb = static_cast<uint64_t>(t);
      carry = static_cast<uint64_t>(t >> 64);
    }
    if (carry != 0) {
      return absl::OutOfRangeError(absl::StrCat(name, ": wider than ", 64 * N, " bits"));
    }
  }
  return v;
}

template <typename Fq>
absl::StatusOr<Fq> ParseFq(const nlohmann::json& j, absl::string_view name) {
  absl::StatusOr<typename Fq::Int> v = ParseDecimal<Fq::kLimbs>(j, name);
  if (!v.ok() || *v >= Fq::Modulus()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a field element below ", Fq::kName, "'s modulus",
                     v.ok() ? "" : absl::StrCat(" (", v.status().message(), ")")));
  }
  return Fq::FromCanonical(*v);
}

// Fq or Fq2 (a [c0, c1] pair).
template <typename F>
absl::StatusOr<F> ParseCoordinate(const nlohmann::json& j, const std::string& name) {
  if constexpr (requires { typename F::Base; }) {
    using Fq = typename F::Base;
    if (!j.is_array() || j.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": expected [c0, c1]"));
    }
    absl::StatusOr<Fq> c0 = ParseFq<Fq>(j[0], name + "[0]");
    if (!c0.ok()) return c0.status();
    absl::StatusOr<Fq> c1 = ParseFq<Fq>(j[1], name + "[1]");
    if (!c1.ok()) return c1.status();
    return F(*c0, *c1);
  } else {
    return ParseFq<F>(j, name);
  }
}

// [x, y, z] as snarkjs writes it, or [x, y] (affine, z = 1) as some other tools write it.
template <typename C>
absl::StatusOr<curve::AffinePoint<C>> ParsePoint(const nlohmann::json& j, const std::string& name) {
  using F = typename C::Field;
  if (!j.is_array() || (j.size() != 3 && j.size() != 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": expected a ", C::kName, " point [x, y, z]"));
  }
  F coords[3] = {F::Zero(), F::Zero(), F::One()};
  for (size_t i = 0; i < j.size(); ++i) {
    absl::StatusOr<F> c = ParseCoordinate<F>(j[i], absl::StrCat(name, "[", i, "]"));
    if (!c.ok()) return c.status();
    coords[i] = *c;
  }
  if (coords[2].IsZero()) return curve::AffinePoint<C>::Infinity();
  if (coords[2].IsOne()) return curve::AffinePoint<C>::FromXY(coords[0], coords[1]);
  const F z_inv = coords[2].Inverse();
  const F z_inv2 = z_inv.Square();
  return curve::AffinePoint<C>::FromXY(coords[0] * z_inv2, coords[1] * z_inv2 * z_inv);
}

template <typename F>
nlohmann::json CoordinateJson(const F& v) {
  if constexpr (requires { typename F::Base; }) {
    return nlohmann::json::array({CoordinateJson(v.c0()), CoordinateJson(v.c1())});
  } else {
    return field::ToDecimal(v.ToCanonical());
  }
}

}  // namespace provd::groth16::json_points
