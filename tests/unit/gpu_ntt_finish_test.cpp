// The GPU NTT's last step (kernels/ntt_finish.hpp) and the device's coset shift as a whole
// (inverse passes, finish with 1/n and the coset powers, forward passes, finish), walked on the
// host with the kernels' own functions against the CPU's ntt::Finish, ntt::ScaleByPowers and
// ntt::ShiftToCoset. Runs without a GPU; the kernels themselves are compared with the CPU in
// tests/gpu/.
#include <vector>

#include "gtest/gtest.h"
#include "kernels/ntt_finish.hpp"
#include "kernels/ntt_passes.hpp"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "tests/support/random_msm.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::kernels {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::TestRng;

ThreadPool& Pool() {
  static ThreadPool pool(2);
  return pool;
}

TEST(ReverseBitsTest, ReversesTheLowBitsOnly) {
  EXPECT_EQ(ntt::ReverseBits(0, 0), 0u);
  EXPECT_EQ(ntt::ReverseBits(1, 1), 1u);
  EXPECT_EQ(ntt::ReverseBits(1, 3), 4u);
  EXPECT_EQ(ntt::ReverseBits(6, 3), 3u);
  EXPECT_EQ(ntt::ReverseBits(1, 64), uint64_t{1} << 63);
  EXPECT_EQ(ntt::ReverseBits(0x0123456789abcdefull, 64), 0xf7b3d591e6a2c480ull);
  for (uint32_t bits = 1; bits <= 20; ++bits) {
    for (uint64_t i : {uint64_t{0}, uint64_t{1}, (uint64_t{1} << bits) - 1,
                       uint64_t{5} % (uint64_t{1} << bits)}) {
      uint64_t expected = 0;
      for (uint32_t b = 0; b < bits; ++b) expected |= ((i >> b) & 1) << (bits - 1 - b);
      EXPECT_EQ(ntt::ReverseBits(i, bits), expected) << i << " over " << bits << " bits";
    }
  }
}

template <typename F>
void FinishOnHost(std::vector<F>& data, uint32_t log_n, const FinishScale<F>& scale) {
  for (uint64_t i = 0; i < data.size(); ++i) FinishElement(data.data(), i, log_n, scale);
}

template <typename F>
class NttFinishTest : public ::testing::Test {};
using Fields = ::testing::Types<field::Bn254Fr, field::Bls12381Fr, field::Goldilocks>;
TYPED_TEST_SUITE(NttFinishTest, Fields);

TYPED_TEST(NttFinishTest, PermutationAloneIsTheCpuBitReversal) {
  using F = TypeParam;
  TestRng rng(3);
  for (uint32_t log_n = 0; log_n <= 13; ++log_n) {
    std::vector<F> data(size_t{1} << log_n);
    for (F& v : data) v = rng.NextField<F>();
    std::vector<F> expected = data;
    ntt::BitReverse(std::span<F>(expected), Pool());
    FinishOnHost(data, log_n, FinishScale<F>{});
    ASSERT_EQ(data, expected) << "2^" << log_n;
  }
}

// 2^13 crosses the split of the power tables (2^12 low entries), so both tables are read.
TYPED_TEST(NttFinishTest, ScaledFinishIsTheInverseFinishThenTheCosetPowers) {
  using F = TypeParam;
  TestRng rng(5);
  for (uint32_t log_n = 0; log_n <= 13; ++log_n) {
    auto tw = ntt::GetTwiddles<F>(log_n, Pool());
    ASSERT_THAT(tw, IsOk());
    const F shift = ntt::RootOfUnity<F>(log_n + 1);
    std::vector<F> data(size_t{1} << log_n);
    for (F& v : data) v = rng.NextField<F>();
    std::vector<F> expected = data;
    ntt::Finish(std::span<F>(expected), **tw, ntt::Direction::kInverse, Pool());
    ntt::ScaleByPowers(std::span<F>(expected), shift, Pool());
    const CosetScaleTables<F> tables = MakeCosetScaleTables<F>(log_n, (*tw)->n_inv, shift);
    ASSERT_EQ(tables.values.size(), tables.low_size() + (data.size() >> tables.log_low));
    FinishOnHost(data, log_n, tables.View(tables.values.data()));
    ASSERT_EQ(data, expected) << "2^" << log_n;
  }
}

// The device's ShiftToCoset, step by step with the kernels' functions, against the CPU's.
template <typename F>
std::vector<F> ShiftToCosetLikeTheDevice(std::vector<F> data, const ntt::Twiddles<F>& tw,
                                         const F& shift, uint32_t log_block) {
  const auto log_n = static_cast<uint32_t>(tw.log_n);
  const std::vector<NttPass> passes = PlanNttPasses(log_n, 0, log_n, log_block, 1);
  RunNttPassesOnHost(std::span<F>(data), tw.inverse, passes);
  const CosetScaleTables<F> tables = MakeCosetScaleTables<F>(log_n, tw.n_inv, shift);
  FinishOnHost(data, log_n, tables.View(tables.values.data()));
  RunNttPassesOnHost(std::span<F>(data), tw.forward, passes);
  FinishOnHost(data, log_n, FinishScale<F>{});
  return data;
}

TYPED_TEST(NttFinishTest, DeviceStepsOfTheCosetShiftMatchTheCpu) {
  using F = TypeParam;
  TestRng rng(11);
  for (uint32_t log_n = 0; log_n <= 13; ++log_n) {
    auto tw = ntt::GetTwiddles<F>(log_n, Pool());
    ASSERT_THAT(tw, IsOk());
    const F shift = ntt::RootOfUnity<F>(log_n + 1);
    std::vector<F> data(size_t{1} << log_n);
    for (F& v : data) v = rng.NextField<F>();
    std::vector<F> expected = data;
    ASSERT_THAT(ntt::ShiftToCoset(std::span<F>(expected), **tw, shift, Pool()), IsOk());
    for (uint32_t log_block : {11u, 3u}) {
      ASSERT_EQ(ShiftToCosetLikeTheDevice(data, **tw, shift, log_block), expected)
          << "2^" << log_n << ", blocks of 2^" << log_block;
    }
  }
}

// The device's CosetLde over a batch of columns, step by step as its kernels take them (the
// columns side by side, N apart; zeros above each column's n values; the inverse passes and the
// scaled finish of size n; the forward passes and the finish of size N).
template <typename F>
std::vector<F> CosetLdeLikeTheDevice(const std::vector<F>& evals, size_t columns,
                                     const ntt::Twiddles<F>& small, const ntt::Twiddles<F>& large,
                                     const F& shift) {
  const auto log_n = static_cast<uint32_t>(small.log_n);
  const auto log_big = static_cast<uint32_t>(large.log_n);
  const size_t n = size_t{1} << log_n;
  const size_t big = size_t{1} << log_big;
  std::vector<F> data(columns * big, F::Zero());
  const CosetScaleTables<F> tables = MakeCosetScaleTables<F>(log_n, small.n_inv, shift);
  for (size_t c = 0; c < columns; ++c) {
    std::copy_n(evals.begin() + static_cast<std::ptrdiff_t>(c * n), n,
                data.begin() + static_cast<std::ptrdiff_t>(c * big));
    const std::span<F> low(data.data() + c * big, n);
    RunNttPassesOnHost(low, small.inverse, PlanNttPasses(log_n, 0, log_n, 11, 2));
    for (uint64_t i = 0; i < n; ++i) {
      FinishElement(low.data(), i, log_n, tables.View(tables.values.data()));
    }
    const std::span<F> column(data.data() + c * big, big);
    RunNttPassesOnHost(column, large.forward, PlanNttPasses(log_big, 0, log_big, 11, 2));
    for (uint64_t i = 0; i < big; ++i) FinishElement(column.data(), i, log_big, FinishScale<F>{});
  }
  return data;
}

TYPED_TEST(NttFinishTest, DeviceStepsOfTheBatchedCosetLdeMatchTheCpu) {
  using F = TypeParam;
  TestRng rng(17);
  constexpr size_t kColumns = 3;
  for (uint32_t log_n = 0; log_n <= 10; ++log_n) {
    for (uint32_t blowup_log : {0u, 1u, 3u}) {
      auto small = ntt::GetTwiddles<F>(log_n, Pool());
      auto large = ntt::GetTwiddles<F>(log_n + blowup_log, Pool());
      ASSERT_THAT(small, IsOk());
      ASSERT_THAT(large, IsOk());
      const size_t n = size_t{1} << log_n;
      const size_t big = n << blowup_log;
      std::vector<F> evals(kColumns * n);
      for (F& v : evals) v = rng.NextField<F>();
      const F shift = F::FromUint64(7);
      std::vector<F> expected(kColumns * big);
      ASSERT_THAT(ntt::CosetLdeColumns<F>(evals, expected, kColumns, shift, Pool()), IsOk());
      ASSERT_EQ(CosetLdeLikeTheDevice(evals, kColumns, **small, **large, shift), expected)
          << "2^" << log_n << " blown up 2^" << blowup_log;
    }
  }
}

// What the shift means: the polynomial with the given values on <w> evaluated on shift * <w>.
TEST(ShiftToCosetTest, EvaluatesThePolynomialOnTheCoset) {
  using F = field::Bn254Fr;
  TestRng rng(13);
  constexpr uint32_t kLogN = 5;
  std::vector<F> coeffs(size_t{1} << kLogN);
  for (F& v : coeffs) v = rng.NextField<F>();
  std::vector<F> values = coeffs;
  ASSERT_THAT(ntt::Forward(std::span<F>(values), Pool()), IsOk());
  auto tw = ntt::GetTwiddles<F>(kLogN, Pool());
  ASSERT_THAT(tw, IsOk());
  const F shift = F::FromUint64(7);
  ASSERT_THAT(ntt::ShiftToCoset(std::span<F>(values), **tw, shift, Pool()), IsOk());
  F x = shift;
  for (size_t i = 0; i < values.size(); ++i, x *= (*tw)->omega) {
    F at_x = F::Zero();
    for (size_t k = coeffs.size(); k-- > 0;) at_x = at_x * x + coeffs[k];
    ASSERT_EQ(values[i], at_x) << "point " << i;
  }
}

TEST(ShiftToCosetTest, RejectsDataOfTheWrongSize) {
  using F = field::Goldilocks;
  auto tw = ntt::GetTwiddles<F>(4, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<F> data(8);
  const absl::Status s = ntt::ShiftToCoset(std::span<F>(data), **tw, F::One(), Pool());
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

}  // namespace
}  // namespace provd::kernels
