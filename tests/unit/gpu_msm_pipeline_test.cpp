// The GPU MSM's algorithm (kernels/msm_steps.hpp), walked through on the host, against the CPU
// MSM: every window width the planner may pick, the edge cases the CPU tests use, and the
// layout's arithmetic. Runs without a GPU, so CI checks what the kernels compute; parity of the
// kernels themselves is in tests/gpu/.
#include "gtest/gtest.h"
#include "kernels/msm_host_pipeline.hpp"
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "tests/support/random_msm.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::kernels {
namespace {

using ::provd::testing::Instance;
using ::provd::testing::IsOk;
using ::provd::testing::NaiveMsm;
using ::provd::testing::RandomInstance;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

template <typename C>
class GpuMsmPipelineTest : public ::testing::Test {};
using Groups =
    ::testing::Types<curve::Bn254G1, curve::Bn254G2, curve::Bls12381G1, curve::Bls12381G2>;
TYPED_TEST_SUITE(GpuMsmPipelineTest, Groups);

TYPED_TEST(GpuMsmPipelineTest, MatchesTheNaiveSumForSeveralSizesAndWindows) {
  using C = TypeParam;
  for (size_t n : {1, 2, 7, 33}) {
    Instance<C> in = RandomInstance<C>(n, 100 + n);
    const auto expected = NaiveMsm(in);
    for (uint32_t bits : {0u, 1u, 3u, 5u, 8u}) {
      SCOPED_TRACE(::testing::Message() << n << " points, window " << bits);
      auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars, bits);
      ASSERT_THAT(result, IsOk());
      EXPECT_EQ(*result, expected);
    }
  }
}

TYPED_TEST(GpuMsmPipelineTest, EdgeCases) {
  using C = TypeParam;
  using Affine = curve::AffinePoint<C>;
  Instance<C> in = RandomInstance<C>(24, 9);
  // Zero scalars, the point at infinity, identical points, opposite points, scalars >= r.
  msm::Scalar all_ones;
  for (auto& limb : all_ones.limbs) limb = ~0ull;
  in.scalars[0] = msm::Scalar();
  in.points[1] = Affine::Infinity();
  in.points[2] = in.points[3];
  in.scalars[2] = in.scalars[3];  // the same point twice in every bucket: a doubling
  in.points[4] = -in.points[5];
  in.scalars[4] = in.scalars[5];  // opposite points in every bucket: infinity
  in.scalars[6] = all_ones;
  in.scalars[7] = C::kOrder;
  auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars, 4);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(*result, NaiveMsm(in));

  std::vector<msm::Scalar> zeros(in.points.size());
  auto zero = RunMsmPipelineOnHost<C>(in.points, zeros, 4);
  ASSERT_THAT(zero, IsOk());
  EXPECT_TRUE(zero->IsInfinity());
}

// Signed digits at their bounds: every digit 2^(c-1) (the largest kept positive) or one more
// (the first taken negative, carrying into the next window), all-ones scalars (a carry through
// every window), a lone top bit, and a point whose two scalars' digits cancel (k and 2^256 - k).
TYPED_TEST(GpuMsmPipelineTest, SignedDigitsAtTheirBoundsAndCarriesThroughEveryWindow) {
  using C = TypeParam;
  Instance<C> in = RandomInstance<C>(10, 21);
  auto repeated = [](uint64_t limb) {
    msm::Scalar k;
    for (auto& l : k.limbs) l = limb;
    return k;
  };
  in.scalars[0] = repeated(0x8888888888888888);  // 4-bit windows: digit 8 = 2^(c-1)
  in.scalars[1] = repeated(0x9999999999999999);  // 9 = -7 and a carry
  in.scalars[2] = repeated(0x8080808080808080);  // 8-bit windows: 2^(c-1)
  in.scalars[3] = repeated(0x8181818181818181);
  in.scalars[4] = repeated(~uint64_t{0});
  in.scalars[5] = msm::Scalar();
  in.scalars[5].limbs[3] = uint64_t{1} << 63;
  in.points[7] = in.points[6];
  in.scalars[7] = msm::Scalar();
  in.scalars[7].SubInPlace(in.scalars[6]);  // 2^256 - k
  const auto expected = NaiveMsm(in);
  for (uint32_t bits : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 13u}) {
    SCOPED_TRACE(::testing::Message() << "window " << bits);
    auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars, bits);
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, expected);
  }
}

TEST(GpuMsmPipelineTest, AllScalarsEqualFillOneBucketPerWindow) {
  using C = curve::Bn254G1;
  Instance<C> in = RandomInstance<C>(300, 5);
  for (auto& s : in.scalars) s = in.scalars[0];
  auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(*result, NaiveMsm(in));
}

TEST(GpuMsmPipelineTest, SkewedBucketsSplitIntoSubRunsAroundTheirBoundaries) {
  using C = curve::Bn254G1;
  // Half the scalars equal (a boolean-heavy witness): one bucket per window holds n/2 points,
  // cut into sub-runs of K; sizes around multiples of K, and a top window of few buckets.
  for (size_t n : {size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{65}, size_t{1000}}) {
    Instance<C> in = RandomInstance<C>(n, 40 + n);
    for (size_t i = 0; i < n; i += 2) in.scalars[i] = msm::Scalar::FromUint64(1);
    const auto expected = NaiveMsm(in);
    for (uint32_t bits : {0u, 6u, 14u}) {
      SCOPED_TRACE(::testing::Message() << n << " points, window " << bits);
      auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars, bits);
      ASSERT_THAT(result, IsOk());
      EXPECT_EQ(*result, expected);
    }
  }
}

TEST(GpuMsmLayoutTest, SubRunBoundsHoldEveryPair) {
  for (uint64_t n : {1ull, 31ull, 32ull, 33ull, 1ull << 16, 1ull << 20}) {
    absl::StatusOr<MsmLayout> layout = PlanMsmLayout(n);
    ASSERT_THAT(layout, IsOk());
    // Every bucket's sub-runs: at most ceil(run / K) <= run / K + 1, summed over buckets.
    EXPECT_EQ(layout->sub_run_pairs, kSubRunPairs);
    EXPECT_GE(MaxSubRuns(*layout), layout->pairs() / kSubRunPairs + layout->buckets());
    EXPECT_GE(uint64_t{MaxSubRunsPerBucket(*layout)} * kSubRunPairs, n);
  }
  EXPECT_THAT(PlanMsmLayout(16, 0, 65537),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("sub-runs of 65537")));
}

TEST(GpuMsmPipelineTest, EverySubRunLengthGivesTheSameSum) {
  using C = curve::Bls12381G1;
  Instance<C> in = RandomInstance<C>(300, 12);
  for (size_t i = 0; i < in.points.size(); i += 3) in.scalars[i] = in.scalars[1];
  const auto expected = NaiveMsm(in);
  for (uint32_t k : {1u, 2u, 3u, 31u, 64u, 128u, 1000u}) {
    SCOPED_TRACE(::testing::Message() << "K = " << k);
    auto result = RunMsmPipelineOnHost<C>(in.points, in.scalars, 6, k);
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, expected);
  }
}

TEST(GpuMsmPipelineTest, MismatchedSizesAreAnError) {
  using C = curve::Bn254G1;
  Instance<C> in = RandomInstance<C>(3, 1);
  in.scalars.pop_back();
  EXPECT_THAT(RunMsmPipelineOnHost<C>(in.points, in.scalars),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("differ in number")));
}

TEST(GpuMsmLayoutTest, WindowGrowsWithTheInputAndKeysFitTheirBits) {
  uint32_t previous = 0;
  for (uint64_t log_n = 0; log_n <= 26; ++log_n) {
    absl::StatusOr<MsmLayout> layout = PlanMsmLayout(uint64_t{1} << log_n);
    ASSERT_THAT(layout, IsOk());
    EXPECT_GE(layout->window_bits, previous);
    EXPECT_LE(layout->window_bits, kMaxGpuWindowBits);
    EXPECT_GE(layout->windows * layout->window_bits, kScalarBits + 1);  // the top digit's carry
    EXPECT_EQ(layout->buckets_per_window(), uint32_t{1} << (layout->window_bits - 1));
    EXPECT_EQ(layout->buckets_per_window() % layout->segment_buckets, 0u);
    EXPECT_LT(uint64_t{layout->discard_key()}, uint64_t{1} << layout->key_bits());
    previous = layout->window_bits;
  }
  EXPECT_THAT(PlanMsmLayout(0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("between 1 and 2^31")));
  EXPECT_THAT(PlanMsmLayout((uint64_t{1} << 31) + 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("between 1 and 2^31")));
  // Every pair must be indexable: 2^27 points in 16-bit windows are 2^31 pairs, one too many.
  EXPECT_THAT(PlanMsmLayout(uint64_t{1} << 27),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("digit pairs")));
  EXPECT_THAT(PlanMsmLayout(uint64_t{1} << 26, 4),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("digit pairs")));
  EXPECT_THAT(PlanMsmLayout(16, 17),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("window of 17 bits")));
}

}  // namespace
}  // namespace provd::kernels
