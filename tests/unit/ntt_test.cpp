// NTT properties against a naive DFT, round trips, chunking by stage, threads, cosets, LDE.
// Agreement with ffjavascript's fft/ifft is checked in ntt_vectors_test.cpp.
#include "prover_core/ntt/ntt.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::ntt {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;
using ::testing::HasSubstr;

template <typename F>
std::vector<F> RandomVector(size_t n, uint64_t seed) {
  TestRng rng(seed);
  std::vector<F> v(n);
  for (F& x : v) x = rng.NextField<F>();
  return v;
}

// P(x) for coefficients c.
template <typename F>
F Evaluate(const std::vector<F>& c, const F& x) {
  F acc = F::Zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

template <typename F>
class NttTest : public ::testing::Test {};
using NttFields = ::testing::Types<field::Bn254Fr, field::Bls12381Fr, field::Goldilocks>;
TYPED_TEST_SUITE(NttTest, NttFields);

TYPED_TEST(NttTest, RootsHaveExactOrder) {
  using F = TypeParam;
  for (size_t k = 1; k <= F::kTwoAdicity; ++k) {
    F w = RootOfUnity<F>(k);
    EXPECT_EQ(w.Pow(uint64_t{1} << (k - 1)), -F::One()) << k;  // order exactly 2^k
  }
  EXPECT_TRUE(RootOfUnity<F>(0).IsOne());
}

TYPED_TEST(NttTest, ForwardMatchesTheNaiveDft) {
  using F = TypeParam;
  ThreadPool pool(2);
  for (size_t log_n = 0; log_n <= 7; ++log_n) {
    const size_t n = size_t{1} << log_n;
    std::vector<F> input = RandomVector<F>(n, log_n);
    std::vector<F> out = input;
    ASSERT_THAT(Forward<F>(out, pool), IsOk());
    const F w = RootOfUnity<F>(log_n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(out[i], Evaluate(input, w.Pow(static_cast<uint64_t>(i)))) << log_n << " " << i;
    }
  }
}

TYPED_TEST(NttTest, InverseUndoesForwardAcrossTheBlockBoundary) {
  using F = TypeParam;
  ThreadPool pool(2);
  for (size_t log_n : {1u, 5u, 11u, 12u, 13u, 15u}) {
    std::vector<F> input = RandomVector<F>(size_t{1} << log_n, 100 + log_n);
    std::vector<F> data = input;
    ASSERT_THAT(Forward<F>(data, pool), IsOk());
    EXPECT_NE(data, input);
    ASSERT_THAT(Inverse<F>(data, pool), IsOk());
    EXPECT_EQ(data, input) << log_n;
  }
}

TYPED_TEST(NttTest, ThreadCountDoesNotChangeTheResult) {
  using F = TypeParam;
  std::vector<F> input = RandomVector<F>(size_t{1} << 15, 7);
  std::vector<F> single = input, multi = input;
  ThreadPool one(1), four(4);
  ASSERT_THAT(Forward<F>(single, one), IsOk());
  ASSERT_THAT(Forward<F>(multi, four), IsOk());
  EXPECT_EQ(single, multi);
}

TYPED_TEST(NttTest, StagesCanBeSplitAnywhere) {
  using F = TypeParam;
  ThreadPool pool(2);
  const size_t log_n = 14;
  std::vector<F> input = RandomVector<F>(size_t{1} << log_n, 8);
  std::vector<F> whole = input;
  ASSERT_THAT(Forward<F>(whole, pool), IsOk());
  auto tw = GetTwiddles<F>(log_n, pool);
  ASSERT_THAT(tw, IsOk());
  for (std::vector<size_t> cuts :
       std::vector<std::vector<size_t>>{{0, 14},
                                        {0, 1, 14},
                                        {0, 3, 7, 11, 14},
                                        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}) {
    std::vector<F> data = input;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      ASSERT_THAT(RunStages<F>(data, **tw, Direction::kForward, cuts[i], cuts[i + 1], pool),
                  IsOk());
    }
    Finish<F>(data, **tw, Direction::kForward, pool);
    EXPECT_EQ(data, whole);
  }
  std::vector<F> data = input;
  EXPECT_THAT(RunStages<F>(data, **tw, Direction::kForward, 3, 15, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stages [3, 15)")));
  EXPECT_THAT(RunStages<F>(data, **tw, Direction::kForward, 5, 4, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stages")));
  std::vector<F> wrong_size(1024);
  EXPECT_THAT(RunStages<F>(wrong_size, **tw, Direction::kForward, 0, 1, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1024 elements")));
}

TYPED_TEST(NttTest, CosetForwardEvaluatesOnTheCoset) {
  using F = TypeParam;
  ThreadPool pool(2);
  const size_t log_n = 6, n = 64;
  std::vector<F> coeffs = RandomVector<F>(n, 9);
  const F shift = F::FromUint64(F::NonResidue());
  std::vector<F> data = coeffs;
  ASSERT_THAT(CosetForward<F>(data, shift, pool), IsOk());
  const F w = RootOfUnity<F>(log_n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(data[i], Evaluate(coeffs, shift * w.Pow(static_cast<uint64_t>(i))));
  }
  ASSERT_THAT(CosetInverse<F>(data, shift, pool), IsOk());
  EXPECT_EQ(data, coeffs);
}

TYPED_TEST(NttTest, LdeExtendsToTheCoset) {
  using F = TypeParam;
  ThreadPool pool(2);
  const size_t n = 32;
  std::vector<F> coeffs = RandomVector<F>(n, 10);
  std::vector<F> evals = coeffs;
  ASSERT_THAT(Forward<F>(evals, pool), IsOk());  // values on the subgroup of size n
  for (size_t blowup_log : {0u, 1u, 3u}) {
    const size_t big = n << blowup_log;
    std::vector<F> out(big);
    const F shift = F::FromUint64(F::NonResidue());
    ASSERT_THAT(CosetLde<F>(evals, out, shift, pool), IsOk());
    const F w = RootOfUnity<F>(5 + blowup_log);
    for (size_t i = 0; i < big; ++i) {
      ASSERT_EQ(out[i], Evaluate(coeffs, shift * w.Pow(static_cast<uint64_t>(i))))
          << "blowup 2^" << blowup_log << " i=" << i;
    }
  }
}

TYPED_TEST(NttTest, LdeOfColumnsIsTheLdeOfEachColumn) {
  using F = TypeParam;
  ThreadPool pool(2);
  const size_t n = 16, big = 64, columns = 3;
  const std::vector<F> evals = RandomVector<F>(columns * n, 11);
  const F shift = F::FromUint64(F::NonResidue());
  std::vector<F> out(columns * big);
  ASSERT_THAT(CosetLdeColumns<F>(evals, out, columns, shift, pool), IsOk());
  for (size_t c = 0; c < columns; ++c) {
    std::vector<F> one(big);
    ASSERT_THAT(CosetLde<F>(std::span<const F>(evals).subspan(c * n, n), one, shift, pool), IsOk());
    EXPECT_TRUE(std::equal(one.begin(), one.end(), out.begin() + static_cast<ptrdiff_t>(c * big)))
        << "column " << c;
  }
  EXPECT_THAT(CosetLdeColumns<F>(evals, out, 0, shift, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not whole columns")));
  std::vector<F> short_out(columns * big - 1);
  EXPECT_THAT(CosetLdeColumns<F>(evals, short_out, columns, shift, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not whole columns")));
  std::vector<F> no_blowup(columns * 12);  // whole columns, but 12 is not 16 * 2^k
  EXPECT_THAT(CosetLdeColumns<F>(evals, no_blowup, columns, shift, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blow-up")));
}

TYPED_TEST(NttTest, BadSizesAreErrors) {
  using F = TypeParam;
  ThreadPool pool(1);
  std::vector<F> three(3);
  EXPECT_THAT(Forward<F>(three, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a power of two")));
  std::vector<F> empty;
  EXPECT_THAT(Inverse<F>(empty, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a power of two")));
  EXPECT_THAT(DomainLog<F>(size_t{1} << (F::kTwoAdicity + 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2-adicity")));
  EXPECT_THAT(GetTwiddles<F>(F::kTwoAdicity + 1, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2-adicity")));
  std::vector<F> evals(8), out(12);
  EXPECT_THAT(CosetLde<F>(evals, out, F::One(), pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blow-up")));
}

TYPED_TEST(NttTest, TwiddleCacheIsSharedAndSafeFromPoolWorkers) {
  using F = TypeParam;
  ThreadPool pool(3);
  const size_t log_n = 16;  // used by no other test, so the cache starts empty here
  std::vector<const Twiddles<F>*> seen(24, nullptr);
  // Requests from inside pool tasks: the filling itself uses the same pool.
  pool.ParallelFor(seen.size(), [&](size_t i) {
    auto tw = GetTwiddles<F>(log_n, pool);
    ASSERT_TRUE(tw.ok());
    seen[i] = tw->get();
  });
  for (const auto* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(seen[0]->forward.size(), size_t{1} << log_n);
}

}  // namespace
}  // namespace provd::ntt
