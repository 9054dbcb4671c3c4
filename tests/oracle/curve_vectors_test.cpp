// Group operations and point validation byte-exact against ffjavascript.
#include "gtest/gtest.h"
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/vectors.hpp"

namespace provd::curve {
namespace {

using ::provd::testing::LoadVectors;
using ::provd::testing::ParsePoint;
using ::provd::testing::PointBytes;
using ::provd::testing::PointHex;
using ::provd::testing::ScalarFromHex;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

template <typename C>
struct Named;
template <>
struct Named<Bn254G1> {
  static constexpr char kCurve[] = "bn254", kGroup[] = "g1";
};
template <>
struct Named<Bn254G2> {
  static constexpr char kCurve[] = "bn254", kGroup[] = "g2";
};
template <>
struct Named<Bls12381G1> {
  static constexpr char kCurve[] = "bls12_381", kGroup[] = "g1";
};
template <>
struct Named<Bls12381G2> {
  static constexpr char kCurve[] = "bls12_381", kGroup[] = "g2";
};

template <typename C>
const nlohmann::json& Group() {
  static const nlohmann::json curves = LoadVectors("curves.json");
  return curves.at(Named<C>::kCurve).at(Named<C>::kGroup);
}

template <typename C>
class CurveVectors : public ::testing::Test {};
using Groups = ::testing::Types<Bn254G1, Bn254G2, Bls12381G1, Bls12381G2>;
TYPED_TEST_SUITE(CurveVectors, Groups);

TYPED_TEST(CurveVectors, GeneratorAndOrderAreSnarkjs) {
  using C = TypeParam;
  EXPECT_EQ(PointHex<C>(C::Generator()), PointHex<C>(Group<C>().at("generator")));
  EXPECT_EQ(ScalarFromHex(Group<C>().at("order_r")), C::kOrder);
}

TYPED_TEST(CurveVectors, AddDoubleNegAndScalarMulMatchFfjavascript) {
  using C = TypeParam;
  size_t count = 0;
  for (const auto& c : Group<C>().at("cases")) {
    SCOPED_TRACE(c.dump());
    AffinePoint<C> p = ParsePoint<C>(c.at("p"));
    AffinePoint<C> q = ParsePoint<C>(c.at("q"));
    XyzzPoint<C> sum(p);
    sum.AddAffine(q);
    EXPECT_EQ(PointHex<C>(sum.ToAffine()), PointHex<C>(c.at("add")));
    EXPECT_EQ(PointHex<C>((XyzzPoint<C>(p) + XyzzPoint<C>(q)).ToAffine()),
              PointHex<C>(c.at("add")));
    EXPECT_EQ(PointHex<C>(XyzzPoint<C>(p).Double().ToAffine()), PointHex<C>(c.at("double")));
    EXPECT_EQ(PointHex<C>(-p), PointHex<C>(c.at("neg")));
    EXPECT_EQ(PointHex<C>(ScalarMul(p, ScalarFromHex(c.at("k"))).ToAffine()),
              PointHex<C>(c.at("mul")));
    ++count;
  }
  EXPECT_GE(count, 24u);
}

TYPED_TEST(CurveVectors, PointsOffTheCurveOrOutsideTheSubgroupAreRejected) {
  using C = TypeParam;
  for (const auto& bad : Group<C>().at("off_curve")) {
    EXPECT_THAT(DecodeAffine<C>(PointBytes<C>(bad), CoordinateEncoding::kNormal, false),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not on the curve")));
  }
  size_t outside = 0;
  for (const auto& bad : Group<C>().at("not_in_subgroup")) {
    auto unchecked = DecodeAffine<C>(PointBytes<C>(bad), CoordinateEncoding::kNormal, false);
    EXPECT_TRUE(unchecked.ok()) << unchecked.status();
    EXPECT_THAT(DecodeAffine<C>(PointBytes<C>(bad), CoordinateEncoding::kNormal, true),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("subgroup")));
    ++outside;
  }
  EXPECT_EQ(outside == 0, C::kCofactorIsOne);
}

}  // namespace
}  // namespace provd::curve
