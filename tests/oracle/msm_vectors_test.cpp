// MSM results byte-exact against ffjavascript's multiExpAffine, for every accumulation method and
// for a chunked run.
#include "gtest/gtest.h"
#include "prover_core/msm/chunked_msm.hpp"
#include "prover_core/msm/msm_instances.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/vectors.hpp"

namespace provd::msm {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::LoadVectors;
using ::provd::testing::ParsePoint;
using ::provd::testing::PointHex;
using ::provd::testing::ScalarFromHex;

template <typename C>
struct Named;
template <>
struct Named<curve::Bn254G1> {
  static constexpr char kFile[] = "msm_bn254.json", kGroup[] = "g1";
};
template <>
struct Named<curve::Bn254G2> {
  static constexpr char kFile[] = "msm_bn254.json", kGroup[] = "g2";
};
template <>
struct Named<curve::Bls12381G1> {
  static constexpr char kFile[] = "msm_bls12_381.json", kGroup[] = "g1";
};
template <>
struct Named<curve::Bls12381G2> {
  static constexpr char kFile[] = "msm_bls12_381.json", kGroup[] = "g2";
};

template <typename C>
class MsmVectors : public ::testing::Test {};
using Groups =
    ::testing::Types<curve::Bn254G1, curve::Bn254G2, curve::Bls12381G1, curve::Bls12381G2>;
TYPED_TEST_SUITE(MsmVectors, Groups);

TYPED_TEST(MsmVectors, MatchesMultiExpAffine) {
  using C = TypeParam;
  ThreadPool pool(2);
  const nlohmann::json cases = LoadVectors(Named<C>::kFile).at(Named<C>::kGroup);
  size_t count = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<curve::AffinePoint<C>> points;
    for (const auto& p : c.at("points")) points.push_back(ParsePoint<C>(p));
    std::vector<Scalar> scalars;
    for (const auto& s : c.at("scalars")) scalars.push_back(ScalarFromHex(s));
    const std::string expected = PointHex<C>(c.at("result"));
    for (auto accumulation :
         {BucketAccumulation::kAuto, BucketAccumulation::kXyzz, BucketAccumulation::kBatchAffine}) {
      MsmOptions options;
      options.accumulation = accumulation;
      auto result = Msm<C>(points, scalars, pool, options);
      ASSERT_THAT(result, IsOk());
      EXPECT_EQ(PointHex<C>(result->ToAffine()), expected);
    }
    ChunkedMsm<C> chunked(points.size(), 37);
    while (!chunked.done()) ASSERT_THAT(chunked.RunNextOnCpu(points, scalars, pool), IsOk());
    EXPECT_EQ(PointHex<C>(chunked.sum().ToAffine()), expected);
    ++count;
  }
  EXPECT_GE(count, 6u);
}

}  // namespace
}  // namespace provd::msm
