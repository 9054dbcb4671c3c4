// Byte-exact agreement of every field operation with ffjavascript (tests/vectors/generate.js).
#include "gtest/gtest.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "tests/support/vectors.hpp"

namespace provd::field {
namespace {

using ::provd::testing::ElementHex;
using ::provd::testing::LoadVectors;
using ::provd::testing::ParseElement;
using ::provd::testing::ScalarFromHex;
using ::provd::testing::ToHex;

template <typename F>
struct Named;
template <>
struct Named<Bn254Fq> {
  static constexpr char kKey[] = "bn254_fq";
};
template <>
struct Named<Bn254Fr> {
  static constexpr char kKey[] = "bn254_fr";
};
template <>
struct Named<Bls12381Fq> {
  static constexpr char kKey[] = "bls12_381_fq";
};
template <>
struct Named<Bls12381Fr> {
  static constexpr char kKey[] = "bls12_381_fr";
};
template <>
struct Named<Goldilocks> {
  static constexpr char kKey[] = "goldilocks";
};
template <>
struct Named<Bn254Fq2> {
  static constexpr char kKey[] = "bn254_fq2";
};
template <>
struct Named<Bls12381Fq2> {
  static constexpr char kKey[] = "bls12_381_fq2";
};

const nlohmann::json& Fields() {
  static const nlohmann::json fields = LoadVectors("fields.json");
  return fields;
}

template <typename F>
class PrimeFieldVectors : public ::testing::Test {};
using PrimeFields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr, Goldilocks>;
TYPED_TEST_SUITE(PrimeFieldVectors, PrimeFields);

TYPED_TEST(PrimeFieldVectors, EveryOperationMatchesFfjavascript) {
  using F = TypeParam;
  const nlohmann::json& field = Fields().at(Named<F>::kKey);
  std::vector<uint8_t> modulus(F::kBytes);
  F::Modulus().ToBytesLE(modulus);
  ASSERT_EQ(::provd::testing::BytesToHex(modulus), field.at("modulus").get<std::string>());
  ASSERT_EQ(field.at("montgomery_r_bits").get<size_t>(), 64 * F::kLimbs);
  size_t count = 0;
  for (const auto& c : field.at("cases")) {
    SCOPED_TRACE(c.dump());
    F a = ParseElement<F>(c.at("a"));
    F b = ParseElement<F>(c.at("b"));
    EXPECT_EQ(ToHex(a + b), ElementHex(c.at("add")));
    EXPECT_EQ(ToHex(a - b), ElementHex(c.at("sub")));
    EXPECT_EQ(ToHex(a * b), ElementHex(c.at("mul")));
    EXPECT_EQ(ToHex(a.Square()), ElementHex(c.at("square")));
    EXPECT_EQ(ToHex(-a), ElementHex(c.at("neg")));
    if (!c.at("inv").is_null()) {
      EXPECT_EQ(ToHex(a.Inverse()), ElementHex(c.at("inv")));
    }
    EXPECT_EQ(ToHex(a.Pow(ScalarFromHex(c.at("pow_e")))), ElementHex(c.at("pow")));
    std::vector<uint8_t> mont(F::kBytes);
    a.ToMontBytesLE(mont);
    EXPECT_EQ(::provd::testing::BytesToHex(mont), c.at("a_mont").get<std::string>());
    EXPECT_EQ(a.IsSquare(), c.at("is_square").get<bool>());
    std::optional<F> root = a.Sqrt();
    ASSERT_EQ(root.has_value(), !c.at("sqrt").is_null());
    if (root) {
      // ffjavascript returns the root in [0, (p-1)/2]; pick the same one of +-root.
      F other = -*root;
      F canonical = other.ToCanonical() < root->ToCanonical() ? other : *root;
      EXPECT_EQ(ToHex(canonical), ElementHex(c.at("sqrt")));
    }
    ++count;
  }
  EXPECT_GE(count, 64u);
}

template <typename F2>
class QuadraticFieldVectors : public ::testing::Test {};
using QuadraticFields = ::testing::Types<Bn254Fq2, Bls12381Fq2>;
TYPED_TEST_SUITE(QuadraticFieldVectors, QuadraticFields);

TYPED_TEST(QuadraticFieldVectors, EveryOperationMatchesFfjavascript) {
  using F2 = TypeParam;
  size_t count = 0;
  const nlohmann::json& cases = Fields().at(Named<F2>::kKey).at("cases");
  for (const nlohmann::json& c : cases) {
    SCOPED_TRACE(c.dump());
    F2 a = ParseElement<F2>(c.at("a"));
    F2 b = ParseElement<F2>(c.at("b"));
    EXPECT_EQ(ToHex(a + b), ElementHex(c.at("add")));
    EXPECT_EQ(ToHex(a - b), ElementHex(c.at("sub")));
    EXPECT_EQ(ToHex(a * b), ElementHex(c.at("mul")));
    EXPECT_EQ(ToHex(a.Square()), ElementHex(c.at("square")));
    EXPECT_EQ(ToHex(-a), ElementHex(c.at("neg")));
    if (!c.at("inv").is_null()) {
      EXPECT_EQ(ToHex(a.Inverse()), ElementHex(c.at("inv")));
    }
    EXPECT_EQ(a.IsSquare(), c.at("is_square").get<bool>());
    std::optional<F2> root = a.Sqrt();
    ASSERT_EQ(root.has_value(), !c.at("sqrt").is_null());
    if (root) {
      // Fq2 square roots follow no sign convention in ffjavascript: either one is right.
      const std::string expected = ElementHex(c.at("sqrt"));
      EXPECT_TRUE(ToHex(*root) == expected || ToHex(-*root) == expected);
    }
    ++count;
  }
  EXPECT_GE(count, 32u);
}

}  // namespace
}  // namespace provd::field
