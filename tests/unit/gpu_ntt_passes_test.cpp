// The GPU NTT's pass plan (kernels/ntt_passes.hpp), walked through on the host, against
// ntt::RunStages: every stage range of small domains, block sizes down to a few elements (many
// passes, narrow runs), and the plan's invariants. Runs without a GPU, so CI checks the indices
// the kernel uses; the kernel itself is checked against the CPU in tests/gpu/.
#include <set>

#include "gtest/gtest.h"
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

TEST(NttPassPlanTest, PassesCoverTheStagesAndEveryElementOncePerPass) {
  for (uint32_t log_n = 1; log_n <= 12; ++log_n) {
    for (uint32_t first = 0; first <= log_n; ++first) {
      for (uint32_t end = first; end <= log_n; ++end) {
        for (auto [log_block, log_run] :
             {std::pair{11u, 2u}, std::pair{3u, 1u}, std::pair{1u, 0u}}) {
          SCOPED_TRACE(::testing::Message() << "2^" << log_n << " stages " << first << ".." << end
                                            << " block 2^" << log_block << " run 2^" << log_run);
          const std::vector<NttPass> passes = PlanNttPasses(log_n, first, end, log_block, log_run);
          uint32_t next = first;
          for (const NttPass& pass : passes) {
            ASSERT_EQ(pass.first, next);
            ASSERT_GE(pass.stages, 1u);
            ASSERT_LE(pass.block_elements(), uint64_t{1} << std::max(log_block, pass.stages));
            ASSERT_EQ(pass.blocks() * pass.block_elements(), uint64_t{1} << log_n);
            next += pass.stages;
            std::set<uint64_t> seen;
            for (uint64_t b = 0; b < pass.blocks(); ++b) {
              for (uint64_t e = 0; e < pass.block_elements(); ++e) seen.insert(pass.Element(b, e));
            }
            ASSERT_EQ(seen.size(), uint64_t{1} << log_n);
            ASSERT_LT(*seen.rbegin(), uint64_t{1} << log_n);
          }
          ASSERT_EQ(next, end);
        }
      }
    }
  }
}

TEST(NttPassPlanTest, LargeDomainsTakeFewBalancedPasses) {
  // 2^24 BN254 Fr with 64 KiB blocks (2^11 elements) and 128-byte runs: 3 passes of 8 stages.
  const std::vector<NttPass> passes = PlanNttPasses(24, 0, 24, 11, 2);
  ASSERT_EQ(passes.size(), 3u);
  for (const NttPass& pass : passes) EXPECT_EQ(pass.stages, 8u);
  EXPECT_EQ(passes[0].log_t, 3u);
  EXPECT_EQ(passes[2].log_t, 0u);  // the last stages' columns are contiguous already
}

template <typename F>
class NttPassesTest : public ::testing::Test {};
using Fields = ::testing::Types<field::Bn254Fr, field::Bls12381Fr, field::Goldilocks>;
TYPED_TEST_SUITE(NttPassesTest, Fields);

TYPED_TEST(NttPassesTest, MatchRunStagesOnEveryStageRange) {
  using F = TypeParam;
  TestRng rng(7);
  for (uint32_t log_n = 1; log_n <= 10; ++log_n) {
    auto tw = ntt::GetTwiddles<F>(log_n, Pool());
    ASSERT_THAT(tw, IsOk());
    std::vector<F> data(size_t{1} << log_n);
    for (F& v : data) v = rng.NextField<F>();
    for (auto direction : {ntt::Direction::kForward, ntt::Direction::kInverse}) {
      const std::vector<F>& table =
          direction == ntt::Direction::kForward ? (*tw)->forward : (*tw)->inverse;
      for (uint32_t first = 0; first < log_n; ++first) {
        for (uint32_t end = first + 1; end <= log_n; ++end) {
          for (auto [log_block, log_run] : {std::pair{11u, 2u}, std::pair{4u, 1u}}) {
            std::vector<F> by_passes = data;
            std::vector<F> by_stages = data;
            RunNttPassesOnHost<F>(by_passes, table,
                                  PlanNttPasses(log_n, first, end, log_block, log_run));
            ASSERT_THAT(ntt::RunStages<F>(by_stages, **tw, direction, first, end, Pool()), IsOk());
            ASSERT_TRUE(by_passes == by_stages)
                << "2^" << log_n << " stages " << first << ".." << end << " block 2^" << log_block;
          }
        }
      }
    }
  }
}

TYPED_TEST(NttPassesTest, MatchRunStagesOnALargerDomain) {
  using F = TypeParam;
  TestRng rng(8);
  constexpr uint32_t kLogN = 16;
  auto tw = ntt::GetTwiddles<F>(kLogN, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<F> data(size_t{1} << kLogN);
  for (F& v : data) v = rng.NextField<F>();
  std::vector<F> by_passes = data;
  RunNttPassesOnHost<F>(by_passes, (*tw)->forward, PlanNttPasses(kLogN, 0, kLogN, 11, 2));
  ASSERT_THAT(ntt::RunStages<F>(data, **tw, ntt::Direction::kForward, 0, kLogN, Pool()), IsOk());
  EXPECT_TRUE(by_passes == data);
}

}  // namespace
}  // namespace provd::kernels
