// Reading the ffjavascript test vectors (tests/vectors/README.md has the encoding): hex strings
// of little-endian normal-form bytes. Results are compared as those same hex strings, so a test
// failure shows exactly which bytes differ.
#pragma once

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bigint.hpp"

namespace provd::testing {

// Loads <$PROVD_VECTORS_DIR>/<file>; throws with a clear message when the fixture did not run.
inline nlohmann::json LoadVectors(const std::string& file) {
  const char* dir = std::getenv("PROVD_VECTORS_DIR");
  if (dir == nullptr) {
    throw std::runtime_error(
        "PROVD_VECTORS_DIR is not set: run through ctest, whose fixture "
        "`vectors` generates them with tests/vectors/generate.sh");
  }
  std::ifstream in(std::string(dir) + "/" + file);
  if (!in) throw std::runtime_error("cannot read test vectors " + std::string(dir) + "/" + file);
  return nlohmann::json::parse(in);
}

inline std::vector<uint8_t> HexToBytes(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

inline std::string BytesToHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

inline field::BigInt<4> ScalarFromHex(const std::string& hex) {
  std::vector<uint8_t> bytes = HexToBytes(hex);
  return field::BigInt<4>::FromBytesLE(bytes);
}

// A field element (prime field: "hex"; Fq2: ["c0", "c1"]) as its bytes in our layout.
inline std::vector<uint8_t> ElementBytes(const nlohmann::json& j) {
  if (j.is_string()) return HexToBytes(j.get<std::string>());
  std::vector<uint8_t> out;
  for (const auto& part : j) {
    std::vector<uint8_t> b = ElementBytes(part);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

template <typename F>
F ParseElement(const nlohmann::json& j) {
  std::vector<uint8_t> bytes = ElementBytes(j);
  auto value = F::FromBytesLE(bytes);
  if (!value.ok()) throw std::runtime_error(std::string(value.status().message()));
  return *value;
}

// The element as the vectors spell it (Fq2 as "c0c1" concatenated, compared to ElementHex).
template <typename F>
std::string ToHex(const F& value) {
  std::vector<uint8_t> bytes(F::kBytes);
  value.ToBytesLE(bytes);
  return BytesToHex(bytes);
}
inline std::string ElementHex(const nlohmann::json& j) { return BytesToHex(ElementBytes(j)); }

// Points: [x, y] with coordinates as above; all-zero is infinity.
template <typename C>
std::vector<uint8_t> PointBytes(const nlohmann::json& j) {
  std::vector<uint8_t> out = ElementBytes(j[0]);
  std::vector<uint8_t> y = ElementBytes(j[1]);
  out.insert(out.end(), y.begin(), y.end());
  return out;
}

template <typename C>
curve::AffinePoint<C> ParsePoint(const nlohmann::json& j) {
  auto p = curve::DecodeAffine<C>(PointBytes<C>(j), curve::CoordinateEncoding::kNormal,
                                  /*check_subgroup=*/false);
  if (!p.ok()) throw std::runtime_error(std::string(p.status().message()));
  return *p;
}

template <typename C>
std::string PointHex(const curve::AffinePoint<C>& p) {
  std::vector<uint8_t> bytes(2 * C::Field::kBytes);
  curve::EncodeAffine(p, curve::CoordinateEncoding::kNormal, bytes);
  return BytesToHex(bytes);
}

template <typename C>
std::string PointHex(const nlohmann::json& j) {
  return BytesToHex(PointBytes<C>(j));
}

}  // namespace provd::testing
