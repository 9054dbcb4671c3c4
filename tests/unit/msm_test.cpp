// Properties of the MSM: agreement with the naive sum, every chunking gives the same point,
// thread count and window width do not change the result, edge cases. Agreement with
// ffjavascript's multiExpAffine is checked in msm_vectors_test.cpp.
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/msm/chunked_msm.hpp"
#include "prover_core/msm/msm_instances.hpp"
#include "tests/support/random_msm.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::msm {
namespace {

using ::provd::testing::Instance;
using ::provd::testing::IsOk;
using ::provd::testing::NaiveMsm;
using ::provd::testing::RandomInstance;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;

// XYZZ buckets, batch-affine buckets on the scalar path, and batch-affine buckets in AVX-512
// IFMA lanes (where the CPU has them; otherwise the same as the scalar path).
struct Accumulation {
  BucketAccumulation kind;
  bool ifma;
  const char* name;
};
constexpr Accumulation kAccumulations[] = {
    {BucketAccumulation::kXyzz, false, "xyzz"},
    {BucketAccumulation::kBatchAffine, false, "batch-affine"},
    {BucketAccumulation::kBatchAffine, true, "batch-affine-ifma"},
};
MsmOptions With(const Accumulation& a, size_t window_bits) {
  MsmOptions options;
  options.accumulation = a.kind;
  options.use_avx512_ifma = a.ifma;
  options.window_bits = window_bits;
  return options;
}

template <typename C>
class MsmTest : public ::testing::Test {};
using Groups =
    ::testing::Types<curve::Bn254G1, curve::Bn254G2, curve::Bls12381G1, curve::Bls12381G2>;
TYPED_TEST_SUITE(MsmTest, Groups);

TYPED_TEST(MsmTest, MatchesTheNaiveSumForManySizes) {
  using C = TypeParam;
  ThreadPool pool(3);
  for (size_t n : {1u, 2u, 3u, 17u, 100u}) {
    Instance<C> in = RandomInstance<C>(n, n);
    auto result = Msm<C>(in.points, in.scalars, pool);
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, NaiveMsm(in)) << "n=" << n;
  }
}

TYPED_TEST(MsmTest, EveryWindowWidthAndThreadCountAgree) {
  using C = TypeParam;
  Instance<C> in = RandomInstance<C>(64, 7);  // small: this runs 30 MSMs, also under ASan
  ThreadPool single(1);
  const curve::XyzzPoint<C> reference = PippengerMsm<C>(in.points, in.scalars, single);
  for (size_t threads : {1u, 5u}) {  // 2 threads run in most other tests
    ThreadPool pool(threads);
    for (size_t c : {1u, 2u, 5u, 8u, 13u}) {
      for (const Accumulation& a : kAccumulations) {
        EXPECT_EQ(PippengerMsm<C>(in.points, in.scalars, pool, With(a, c)), reference)
            << "threads=" << threads << " c=" << c << " " << a.name;
      }
    }
  }
}

TYPED_TEST(MsmTest, EveryChunkingGivesTheSamePoint) {
  using C = TypeParam;
  ThreadPool pool(2);
  Instance<C> in = RandomInstance<C>(97, 8);
  const auto whole = PippengerMsm<C>(in.points, in.scalars, pool);
  for (size_t chunk : {1u, 2u, 10u, 32u, 96u, 97u, 1000u}) {
    ChunkedMsm<C> chunked(in.points.size(), chunk);
    while (!chunked.done()) ASSERT_THAT(chunked.RunNextOnCpu(in.points, in.scalars, pool), IsOk());
    EXPECT_EQ(chunked.sum(), whole) << "chunk=" << chunk;
  }
}

TYPED_TEST(MsmTest, LargeInputsRunInPassesWithTheSameResult) {
  using C = TypeParam;
  ThreadPool pool(2);
  Instance<C> in = RandomInstance<C>(100, 12);
  const auto whole = PippengerMsm<C>(in.points, in.scalars, pool);
  MsmOptions options;
  options.max_points_per_pass = 7;
  EXPECT_EQ(PippengerMsm<C>(in.points, in.scalars, pool, options), whole);
  EXPECT_EQ(whole, NaiveMsm(in));
}

TYPED_TEST(MsmTest, EdgeCases) {
  using C = TypeParam;
  using Affine = curve::AffinePoint<C>;
  ThreadPool pool(2);
  Instance<C> in = RandomInstance<C>(40, 9);
  // Zero scalars, the point at infinity, identical points, opposite points, scalars >= r.
  Scalar all_ones;
  for (auto& limb : all_ones.limbs) limb = ~0ull;
  Scalar r_minus_1 = C::kOrder;
  r_minus_1.SubInPlace(Scalar::FromUint64(1));
  in.scalars[0] = Scalar();
  in.points[1] = Affine::Infinity();
  in.points[2] = in.points[3];
  in.points[4] = -in.points[5];
  in.scalars[4] = in.scalars[5];
  in.scalars[6] = all_ones;
  in.scalars[7] = C::kOrder;
  in.scalars[8] = r_minus_1;
  for (const Accumulation& a : kAccumulations) {
    // Few buckets: equal and opposite points meet in one bucket.
    auto result = Msm<C>(in.points, in.scalars, pool, With(a, 4));
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, NaiveMsm(in)) << a.name;
  }

  std::vector<Scalar> zeros(in.points.size());
  auto zero = Msm<C>(in.points, zeros, pool);
  ASSERT_THAT(zero, IsOk());
  EXPECT_TRUE(zero->IsInfinity());
  auto empty = Msm<C>({}, {}, pool);
  ASSERT_THAT(empty, IsOk());
  EXPECT_TRUE(empty->IsInfinity());
}

TYPED_TEST(MsmTest, BatchAffineHandlesOneBucketHitOverAndOver) {
  using C = TypeParam;
  ThreadPool pool(2);
  Instance<C> in = RandomInstance<C>(200, 11);
  // Equal scalars put every point into the same bucket of every window: each addition but one
  // per batch is deferred; repeated points add a doubling inside the bucket.
  for (size_t i = 0; i < in.scalars.size(); ++i) in.scalars[i] = in.scalars[0];
  for (size_t i = 100; i < 110; ++i) in.points[i] = in.points[99];
  in.points[150] = -in.points[151];
  const curve::XyzzPoint<C> naive = NaiveMsm(in);
  for (const Accumulation& a : kAccumulations) {
    auto result = Msm<C>(in.points, in.scalars, pool, With(a, 12));
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, naive) << a.name;
  }
}

// Bucket sums that meet a running sum equal to them (a doubling) or opposite to it (the
// running sum cancels), inside one segment of the lane reduction and across segments.
TYPED_TEST(MsmTest, BucketReductionMeetsEqualAndOppositeRunningSums) {
  using C = TypeParam;
  ThreadPool pool(1);
  Instance<C> base = RandomInstance<C>(2, 14);
  const auto p = base.points[0];
  const auto q = base.points[1];
  const std::vector<std::pair<std::vector<curve::AffinePoint<C>>, std::vector<uint64_t>>> cases = {
      {{p, p}, {3, 5}},                  // running P meets bucket P: doubling
      {{p, -p, p}, {3, 5, 9}},           // running -P + P cancels, then restarts
      {{p, p, q, p}, {1, 20, 40, 120}},  // equal buckets in different segments
      {{p, p, p, p}, {2, 3, 4, 5}},      // every step a doubling
  };
  for (const auto& [points, digits] : cases) {
    Instance<C> in;
    in.points = points;
    for (uint64_t d : digits) in.scalars.push_back(Scalar::FromUint64(d));
    const curve::XyzzPoint<C> naive = NaiveMsm(in);
    for (const Accumulation& a : kAccumulations) {
      for (size_t c : {8u, 9u}) {
        EXPECT_EQ(PippengerMsm<C>(in.points, in.scalars, pool, With(a, c)), naive)
            << a.name << " c=" << c << " first digits " << digits[0] << "," << digits[1];
      }
    }
  }
}

// Enough points that batches fill and flush many times, lanes run full and partly idle.
TYPED_TEST(MsmTest, AccumulationsAgreeOnFullBatches) {
  using C = TypeParam;
  ThreadPool pool(2);
  Instance<C> in = RandomInstance<C>(3001, 13);
  const curve::XyzzPoint<C> reference =
      PippengerMsm<C>(in.points, in.scalars, pool, With(kAccumulations[0], 9));
  for (const Accumulation& a : kAccumulations) {
    for (size_t c : {8u, 11u}) {
      EXPECT_EQ(PippengerMsm<C>(in.points, in.scalars, pool, With(a, c)), reference)
          << a.name << " c=" << c;
    }
  }
}

TYPED_TEST(MsmTest, MismatchedSizesAreAnError) {
  using C = TypeParam;
  ThreadPool pool(1);
  Instance<C> in = RandomInstance<C>(4, 10);
  in.scalars.pop_back();
  EXPECT_THAT(Msm<C>(in.points, in.scalars, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("4 points but 3")));
  ChunkedMsm<C> chunked(4, 2);
  EXPECT_THAT(chunked.RunNextOnCpu(in.points, in.scalars, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("chunked MSM")));
  in.scalars.push_back(Scalar());
  MsmOptions wide;
  wide.window_bits = 32;
  EXPECT_THAT(Msm<C>(in.points, in.scalars, pool, wide),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("at most 20")));
  EXPECT_THAT(chunked.RunNextOnCpu(in.points, in.scalars, pool, wide),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("at most 20")));
  MsmOptions no_pass;
  no_pass.max_points_per_pass = 0;
  EXPECT_THAT(Msm<C>(in.points, in.scalars, pool, no_pass),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("positive")));
}

TEST(MsmWindowTest, WindowGrowsWithTheInput) {
  size_t previous = 0;
  for (size_t log_n = 0; log_n <= 24; log_n += 4) {
    size_t c = ChooseWindowBits(size_t{1} << log_n, 2);
    EXPECT_GE(c, previous);
    EXPECT_LE(c, 16u);
    previous = c;
  }
  EXPECT_GE(ChooseWindowBits(1 << 20, 2), 12u);
}

}  // namespace
}  // namespace provd::msm
