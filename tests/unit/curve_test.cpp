// Group laws of G1 and G2 on both curves, on seeded random points; byte-exact agreement with
// ffjavascript is checked in curve_vectors_test.cpp.
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::curve {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;
using ::testing::HasSubstr;

template <typename C>
class CurveTest : public ::testing::Test {
 protected:
  static AffinePoint<C> RandomPoint(TestRng& rng) {
    return ScalarMul(C::Generator(), rng.NextInt<4>()).ToAffine();
  }
};

using Curves = ::testing::Types<Bn254G1, Bn254G2, Bls12381G1, Bls12381G2>;
TYPED_TEST_SUITE(CurveTest, Curves);

TYPED_TEST(CurveTest, GeneratorIsOnTheCurveAndHasOrderR) {
  using C = TypeParam;
  EXPECT_TRUE(C::Generator().IsOnCurve());
  EXPECT_TRUE(ScalarMul(C::Generator(), C::kOrder).IsInfinity());
  EXPECT_FALSE(ScalarMul(C::Generator(), field::BigInt<4>::FromUint64(7)).IsInfinity());
  EXPECT_TRUE(IsInSubgroup(C::Generator()));
}

TYPED_TEST(CurveTest, AdditionLaws) {
  using Affine = AffinePoint<TypeParam>;
  using Xyzz = XyzzPoint<TypeParam>;
  TestRng rng(11);
  for (int i = 0; i < 10; ++i) {
    Affine p = this->RandomPoint(rng), q = this->RandomPoint(rng), r = this->RandomPoint(rng);
    ASSERT_TRUE(p.IsOnCurve());
    Xyzz pq(p);
    pq.AddAffine(q);
    Xyzz qp(q);
    qp.AddAffine(p);
    EXPECT_EQ(pq, qp);
    EXPECT_EQ(pq, Xyzz(p) + Xyzz(q));  // mixed and full addition agree
    Xyzz left = pq;
    left.AddAffine(r);
    Xyzz right(q);
    right.AddAffine(r);
    right.AddAffine(p);
    EXPECT_EQ(left, right);
    EXPECT_TRUE(pq.ToAffine().IsOnCurve());
    Xyzz doubled(p);
    doubled.AddAffine(p);  // exceptional case: equal points
    EXPECT_EQ(doubled, Xyzz(p).Double());
    EXPECT_EQ(doubled, Xyzz(p) + Xyzz(p));
    Xyzz zero(p);
    zero.AddAffine(-p);  // exceptional case: opposite points
    EXPECT_TRUE(zero.IsInfinity());
    EXPECT_TRUE((Xyzz(p) + (-Xyzz(p))).IsInfinity());
    Xyzz with_infinity(p);
    with_infinity.AddAffine(Affine::Infinity());
    EXPECT_EQ(with_infinity, Xyzz(p));
    EXPECT_EQ(Xyzz() + Xyzz(p), Xyzz(p));
  }
}

TYPED_TEST(CurveTest, ScalarMultiplicationIsLinear) {
  using C = TypeParam;
  TestRng rng(12);
  auto g = C::Generator();
  field::BigInt<4> a = field::BigInt<4>::FromUint64(rng.Next());
  field::BigInt<4> b = field::BigInt<4>::FromUint64(rng.Next());
  field::BigInt<4> sum = a;
  sum.AddInPlace(b);
  EXPECT_EQ(ScalarMul(g, a) + ScalarMul(g, b), ScalarMul(g, sum));
  // (r + 1) * G = G: scalars >= r act modulo r.
  field::BigInt<4> r_plus_1 = C::kOrder;
  r_plus_1.AddInPlace(field::BigInt<4>::FromUint64(1));
  EXPECT_EQ(ScalarMul(g, r_plus_1), XyzzPoint<C>(g));
  EXPECT_TRUE(ScalarMul(g, field::BigInt<4>()).IsInfinity());
}

TYPED_TEST(CurveTest, BatchToAffineMatchesOneByOne) {
  using C = TypeParam;
  TestRng rng(13);
  std::vector<XyzzPoint<C>> points;
  for (int i = 0; i < 9; ++i) {
    points.push_back(ScalarMul(C::Generator(), rng.NextInt<4>()));
    if (i % 4 == 0) points.push_back(XyzzPoint<C>());  // infinity in the middle
  }
  std::vector<AffinePoint<C>> affine(points.size());
  BatchToAffine<C>(points, affine);
  for (size_t i = 0; i < points.size(); ++i) EXPECT_EQ(affine[i], points[i].ToAffine()) << i;
}

TYPED_TEST(CurveTest, EncodingRoundTripsAndRejectsBadPoints) {
  using C = TypeParam;
  constexpr size_t kSize = 2 * C::Field::kBytes;
  TestRng rng(14);
  AffinePoint<C> p = this->RandomPoint(rng);
  for (auto encoding : {CoordinateEncoding::kNormal, CoordinateEncoding::kMontgomery}) {
    std::vector<uint8_t> bytes(kSize);
    EncodeAffine(p, encoding, bytes);
    auto back = DecodeAffine<C>(bytes, encoding, /*check_subgroup=*/true);
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(*back, p);
    EncodeAffine(AffinePoint<C>::Infinity(), encoding, bytes);
    for (uint8_t b : bytes) EXPECT_EQ(b, 0);
    auto inf = DecodeAffine<C>(bytes, encoding, true);
    ASSERT_THAT(inf, IsOk());
    EXPECT_TRUE(inf->infinity);
  }
  AffinePoint<C> off = AffinePoint<C>::FromXY(p.x, p.y + C::Field::One());
  std::vector<uint8_t> bytes(kSize);
  EncodeAffine(off, CoordinateEncoding::kNormal, bytes);
  EXPECT_THAT(DecodeAffine<C>(bytes, CoordinateEncoding::kNormal, true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not on the curve")));
  bytes.pop_back();
  EXPECT_THAT(DecodeAffine<C>(bytes, CoordinateEncoding::kNormal, true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected")));
  std::vector<uint8_t> too_big(kSize, 0xff);
  EXPECT_THAT(DecodeAffine<C>(too_big, CoordinateEncoding::kNormal, true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("non-canonical")));
}

}  // namespace
}  // namespace provd::curve
