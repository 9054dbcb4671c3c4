// The CUDA kernels against the CPU on a real device: MSM and NTT results bit for bit, edge
// cases, batching under a small VRAM budget, fault injection, and a release that really gives
// the memory back (cudaMemGetInfo). Every test skips, visibly, on a host without a GPU.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cuda_devices.hpp"
#include "kernels/cuda_session.hpp"
#include "kernels/field_ops.hpp"
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/msm/msm_instances.hpp"
#include "tests/support/random_msm.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::kernels {
namespace {

using ::provd::testing::Instance;
using ::provd::testing::IsOk;
using ::provd::testing::RandomInstance;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;
using ::testing::HasSubstr;

ThreadPool& Pool() {
  static ThreadPool pool(0);
  return pool;
}

// Device 0's session, or a skip when this host has no usable GPU.
#define OPEN_SESSION_OR_SKIP(session, options)                                             \
  GpuInventory inventory = ProbeCudaDevices();                                             \
  if (inventory.devices.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.why_none; \
  absl::StatusOr<std::unique_ptr<CudaSession>> opened = CudaSession::Open(0, options);     \
  ASSERT_THAT(opened, IsOk());                                                             \
  CudaSession& session = **opened

template <typename F>
class CudaFieldTest : public ::testing::Test {};
using AllFields =
    ::testing::Types<field::Bn254Fq, field::Bn254Fr, field::Bn254Fq2, field::Bls12381Fq,
                     field::Bls12381Fr, field::Bls12381Fq2, field::Goldilocks>;
TYPED_TEST_SUITE(CudaFieldTest, AllFields);

TYPED_TEST(CudaFieldTest, EveryOperationMatchesTheCpu) {
  using F = TypeParam;
  GpuInventory inventory = ProbeCudaDevices();
  if (inventory.devices.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.why_none;
  TestRng rng(31);
  auto random = [&rng]() {
    if constexpr (requires { typename F::Base; }) {
      return F(rng.NextField<typename F::Base>(), rng.NextField<typename F::Base>());
    } else {
      return rng.NextField<F>();
    }
  };
  std::vector<F> a(4096);
  std::vector<F> b(4096);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = random();
    b[i] = random();
  }
  // Edge values: zero, one, minus one, equal operands.
  a[0] = F::Zero();
  a[1] = F::One();
  a[2] = -F::One();
  b[3] = a[3];
  b[4] = F::Zero();
  std::vector<F> on_gpu(kFieldOpCount * a.size());
  ASSERT_THAT(EvaluateFieldOpsOnDevice<F>(0, a, b, on_gpu), IsOk());
  std::vector<F> on_cpu(kFieldOpCount * a.size());
  for (size_t i = 0; i < a.size(); ++i) EvaluateFieldOps(a[i], b[i], &on_cpu[kFieldOpCount * i]);
  size_t mismatches = 0;
  for (size_t i = 0; i < on_cpu.size(); ++i) mismatches += on_gpu[i] == on_cpu[i] ? 0 : 1;
  EXPECT_EQ(mismatches, 0u);
}

// Both device forms of the Montgomery product (field_ops.hpp), whichever one the build put into
// the field: the 32-bit-word PTX form is the one whose carry flag CI can only model.
template <typename F>
class CudaProductFormTest : public ::testing::Test {};
using MontgomeryFields =
    ::testing::Types<field::Bn254Fq, field::Bn254Fr, field::Bls12381Fq, field::Bls12381Fr>;
TYPED_TEST_SUITE(CudaProductFormTest, MontgomeryFields);

TYPED_TEST(CudaProductFormTest, BothFormsMatchTheCpuOnEdgeAndRandomOperands) {
  using F = TypeParam;
  using Int = typename F::Int;
  GpuInventory inventory = ProbeCudaDevices();
  if (inventory.devices.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.why_none;
  // Every pair of the edge values (0, +-1, raw 1, p - 1, p - 2, all-ones 32- and 64-bit low
  // words below p), then random pairs.
  std::vector<F> edge = {F::Zero(), F::One(), -F::One(), F::FromMontgomery(Int::FromUint64(1))};
  Int v = F::Modulus();
  v.SubInPlace(Int::FromUint64(1));
  edge.push_back(F::FromMontgomery(v));
  v.SubInPlace(Int::FromUint64(1));
  edge.push_back(F::FromMontgomery(v));
  for (size_t word = 0; word + 2 < 2 * Int::kLimbs; ++word) {
    Int ones = F::Modulus();
    for (size_t i = 0; i <= word; ++i) {
      ones.limbs[i / 2] |= uint64_t{0xffffffff} << (32 * (i % 2));
    }
    if (ones < F::Modulus()) edge.push_back(F::FromMontgomery(ones));
  }
  std::vector<F> a, b;
  for (const F& x : edge) {
    for (const F& y : edge) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  TestRng rng(32);
  while (a.size() < 65536) {
    a.push_back(rng.NextField<F>());
    b.push_back(rng.NextField<F>());
  }
  for (ProductForm form : {ProductForm::kLimbs64, ProductForm::kWords32Ptx}) {
    std::vector<F> on_gpu(a.size());
    ASSERT_THAT(MultiplyOnDevice<F>(0, form, a, b, on_gpu), IsOk());
    size_t mismatches = 0;
    size_t first = a.size();
    for (size_t i = 0; i < a.size(); ++i) {
      if (on_gpu[i] != F::MulPortable(a[i], b[i])) {
        ++mismatches;
        first = std::min(first, i);
      }
    }
    EXPECT_EQ(mismatches, 0u) << "form " << static_cast<int>(form) << ", first at pair " << first
                              << " of " << a.size() << " (" << edge.size() * edge.size()
                              << " edge pairs first)";
  }
}

template <typename C>
class CudaMsmTest : public ::testing::Test {};
using Groups =
    ::testing::Types<curve::Bn254G1, curve::Bn254G2, curve::Bls12381G1, curve::Bls12381G2>;
TYPED_TEST_SUITE(CudaMsmTest, Groups);

TYPED_TEST(CudaMsmTest, MatchesTheCpuFromOnePointToTwoToTheFourteen) {
  using C = TypeParam;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{1000}, size_t{1} << 14}) {
    Instance<C> in = RandomInstance<C>(n, n);
    auto gpu = session.Msm<C>(in.points, in.scalars);
    ASSERT_THAT(gpu, IsOk()) << n;
    auto cpu = msm::Msm<C>(in.points, in.scalars, Pool());
    ASSERT_THAT(cpu, IsOk());
    EXPECT_EQ(gpu->ToAffine(), cpu->ToAffine()) << n << " points";
  }
}

TYPED_TEST(CudaMsmTest, EdgeCases) {
  using C = TypeParam;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  Instance<C> in = RandomInstance<C>(64, 3);
  msm::Scalar all_ones;
  for (auto& limb : all_ones.limbs) limb = ~0ull;
  in.scalars[0] = msm::Scalar();
  in.points[1] = curve::AffinePoint<C>::Infinity();
  in.points[2] = in.points[3];
  in.scalars[2] = in.scalars[3];
  in.points[4] = -in.points[5];
  in.scalars[4] = in.scalars[5];
  in.scalars[6] = all_ones;
  in.scalars[7] = C::kOrder;
  auto gpu = session.Msm<C>(in.points, in.scalars);
  ASSERT_THAT(gpu, IsOk());
  EXPECT_EQ(*gpu, testing::NaiveMsm(in));
  std::vector<msm::Scalar> zeros(in.points.size());
  auto zero = session.Msm<C>(in.points, zeros);
  ASSERT_THAT(zero, IsOk());
  EXPECT_TRUE(zero->IsInfinity());
  for (auto& s : in.scalars) s = in.scalars[9];  // one bucket per window gets every point
  auto same = session.Msm<C>(in.points, in.scalars);
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(*same, testing::NaiveMsm(in));
}

TEST(CudaMsmLargeTest, Bn254G1UpToTwoToTheTwenty) {
  using C = curve::Bn254G1;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  Instance<C> in = RandomInstance<C>(size_t{1} << 20, 20);
  for (size_t n : {size_t{1} << 16, size_t{1} << 18, size_t{1} << 20}) {
    std::span<const curve::AffinePoint<C>> points(in.points.data(), n);
    std::span<const msm::Scalar> scalars(in.scalars.data(), n);
    auto gpu = session.Msm<C>(points, scalars);
    ASSERT_THAT(gpu, IsOk());
    auto cpu = msm::Msm<C>(points, scalars, Pool());
    ASSERT_THAT(cpu, IsOk());
    EXPECT_EQ(gpu->ToAffine(), cpu->ToAffine()) << n << " points";
  }
}

TEST(CudaMsmLargeTest, SkewedScalarsAndAPartialTopWindowMatchTheCpu) {
  // 2^16 + 1 points: 14-bit windows, whose top window has 4 buckets for every point; half the
  // scalars are 1 (a boolean-heavy witness). Before sub-runs this G2 case took over a second.
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  auto check = [&]<typename C>() {
    Instance<C> in = RandomInstance<C>((size_t{1} << 16) + 1, 16);
    for (size_t i = 0; i < in.scalars.size(); i += 2) in.scalars[i] = msm::Scalar::FromUint64(1);
    auto gpu = session.Msm<C>(in.points, in.scalars);
    ASSERT_THAT(gpu, IsOk());
    auto cpu = msm::Msm<C>(in.points, in.scalars, Pool());
    ASSERT_THAT(cpu, IsOk());
    EXPECT_EQ(gpu->ToAffine(), cpu->ToAffine()) << C::kName;
  };
  check.operator()<curve::Bn254G1>();
  check.operator()<curve::Bn254G2>();
}

TEST(CudaMsmBudgetTest, ASmallVramBudgetRunsInBatchesWithTheSameResult) {
  using C = curve::Bn254G1;
  CudaSessionOptions small;
  small.vram_budget_bytes = 8 << 20;  // 8 MiB: a 2^16-point MSM needs several batches
  OPEN_SESSION_OR_SKIP(session, small);
  Instance<C> in = RandomInstance<C>(size_t{1} << 16, 4);
  auto gpu = session.Msm<C>(in.points, in.scalars);
  ASSERT_THAT(gpu, IsOk());
  auto cpu = msm::Msm<C>(in.points, in.scalars, Pool());
  ASSERT_THAT(cpu, IsOk());
  EXPECT_EQ(*gpu, *cpu);
  EXPECT_LE(session.device_bytes(), small.vram_budget_bytes);
}

template <typename F>
class CudaNttTest : public ::testing::Test {};
using Fields = ::testing::Types<field::Bn254Fr, field::Bls12381Fr, field::Goldilocks>;
TYPED_TEST_SUITE(CudaNttTest, Fields);

TYPED_TEST(CudaNttTest, StagesMatchTheCpuFromTwoToTwoToTheTwenty) {
  using F = TypeParam;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  TestRng rng(17);
  for (size_t log_n = 1; log_n <= 20; ++log_n) {
    const size_t n = size_t{1} << log_n;
    auto tw = ntt::GetTwiddles<F>(log_n, Pool());
    ASSERT_THAT(tw, IsOk());
    std::vector<F> data(n);
    for (F& v : data) v = rng.NextField<F>();
    for (auto direction : {ntt::Direction::kForward, ntt::Direction::kInverse}) {
      // All stages, then a middle range, as the round executor's chunks would split them.
      for (auto [first, end] : {std::pair{size_t{0}, log_n}, std::pair{log_n / 3, log_n}}) {
        std::vector<F> on_gpu = data;
        std::vector<F> on_cpu = data;
        ASSERT_THAT(session.NttStages<F>(on_gpu, **tw, direction, first, end), IsOk());
        ASSERT_THAT(ntt::RunStages<F>(on_cpu, **tw, direction, first, end, Pool()), IsOk());
        EXPECT_TRUE(on_gpu == on_cpu) << "2^" << log_n << " stages " << first << ".." << end;
      }
    }
  }
}

// The Groth16 LDE's step in one device call, against the CPU's, with NTT stage calls in between
// so the two cached stage tables must each stay (or become) right; 2^13 and up read both coset
// power tables.
TYPED_TEST(CudaNttTest, ShiftToCosetMatchesTheCpuFromOneToTwoToTheTwenty) {
  using F = TypeParam;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  TestRng rng(19);
  for (size_t log_n = 0; log_n <= 20; ++log_n) {
    auto tw = ntt::GetTwiddles<F>(log_n, Pool());
    ASSERT_THAT(tw, IsOk());
    std::vector<F> data(size_t{1} << log_n);
    for (F& v : data) v = rng.NextField<F>();
    for (const F& shift : {ntt::RootOfUnity<F>(log_n + 1), rng.NextField<F>()}) {
      std::vector<F> on_gpu = data;
      std::vector<F> on_cpu = data;
      ASSERT_THAT(session.ShiftToCoset<F>(on_gpu, **tw, shift), IsOk());
      ASSERT_THAT(ntt::ShiftToCoset<F>(on_cpu, **tw, shift, Pool()), IsOk());
      EXPECT_TRUE(on_gpu == on_cpu) << "2^" << log_n;
    }
    if (log_n >= 1) {
      std::vector<F> on_gpu = data;
      std::vector<F> on_cpu = data;
      ASSERT_THAT(session.NttStages<F>(on_gpu, **tw, ntt::Direction::kInverse, 0, log_n), IsOk());
      ASSERT_THAT(ntt::RunStages<F>(on_cpu, **tw, ntt::Direction::kInverse, 0, log_n, Pool()),
                  IsOk());
      EXPECT_TRUE(on_gpu == on_cpu) << "inverse stages after the coset shift, 2^" << log_n;
    }
  }
}

// ntt::CosetLde of a batch of columns, against the CPU's column by column: blow-ups 1, 2 and 8,
// one and several columns, and a VRAM budget that takes the columns a few at a time.
template <typename F>
void ExpectBatchedCosetLdeMatchesTheCpu(CudaSession& session, size_t columns, size_t log_n,
                                        size_t blowup_log, TestRng& rng) {
  auto small = ntt::GetTwiddles<F>(log_n, Pool());
  auto large = ntt::GetTwiddles<F>(log_n + blowup_log, Pool());
  ASSERT_THAT(small, IsOk());
  ASSERT_THAT(large, IsOk());
  const size_t n = size_t{1} << log_n;
  const size_t big = n << blowup_log;
  std::vector<F> evals(columns * n);
  for (F& v : evals) v = rng.NextField<F>();
  const F shift = rng.NextField<F>();
  std::vector<F> expected(columns * big);
  ASSERT_THAT(ntt::CosetLdeColumns<F>(evals, expected, columns, shift, Pool()), IsOk());
  std::vector<F> out(columns * big);
  ASSERT_THAT(session.CosetLde<F>(evals, out, columns, **small, **large, shift), IsOk());
  EXPECT_TRUE(out == expected) << columns << " columns of 2^" << log_n << " blown up 2^"
                               << blowup_log;
}

TYPED_TEST(CudaNttTest, BatchedCosetLdeMatchesTheCpu) {
  using F = TypeParam;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  TestRng rng(29);
  for (size_t log_n : {0, 1, 5, 11, 14}) {
    for (size_t blowup_log : {0, 1, 3}) {
      for (size_t columns : {1, 5}) {
        ExpectBatchedCosetLdeMatchesTheCpu<F>(session, columns, log_n, blowup_log, rng);
      }
    }
  }
  ExpectBatchedCosetLdeMatchesTheCpu<F>(session, 2, 20, 2, rng);
}

TEST(CudaNttBudgetTest, BatchedCosetLdeRunsInGroupsUnderASmallBudget) {
  using F = field::Goldilocks;
  CudaSessionOptions small;
  small.vram_budget_bytes = 3 << 20;  // 3 MiB: 2^16-value columns (512 KiB) a few at a time
  OPEN_SESSION_OR_SKIP(session, small);
  TestRng rng(31);
  ExpectBatchedCosetLdeMatchesTheCpu<F>(session, 9, 14, 2, rng);
  EXPECT_LE(session.device_bytes(), small.vram_budget_bytes);

  auto tw = ntt::GetTwiddles<F>(20, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<F> one(size_t{1} << 20);
  std::vector<F> out(size_t{1} << 20);
  EXPECT_THAT(session.CosetLde<F>(one, out, 1, **tw, **tw, F::One()),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("VRAM budget")));
  EXPECT_THAT(session.CosetLde<F>(one, out, 2, **tw, **tw, F::One()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2 columns")));
}

TEST(CudaNttLargeTest, ShiftToCosetAtTwoToTheTwentyFourAndItsBadInputs) {
  using F = field::Bn254Fr;
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  TestRng rng(23);
  auto tw = ntt::GetTwiddles<F>(24, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<F> data(size_t{1} << 24);
  for (F& v : data) v = rng.NextField<F>();
  std::vector<F> on_cpu = data;
  const F shift = ntt::RootOfUnity<F>(25);
  ASSERT_THAT(session.ShiftToCoset<F>(data, **tw, shift), IsOk());
  ASSERT_THAT(ntt::ShiftToCoset<F>(on_cpu, **tw, shift, Pool()), IsOk());
  EXPECT_TRUE(data == on_cpu);

  std::vector<F> wrong_size(8);  // twiddles are for 2^24
  EXPECT_THAT(session.ShiftToCoset<F>(wrong_size, **tw, shift),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("twiddles for 2^24")));
}

TEST(CudaNttLargeTest, GoldilocksAndBn254FrAtTwoToTheTwentyFour) {
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  auto check = [&]<typename F>() {
    TestRng rng(24);
    auto tw = ntt::GetTwiddles<F>(24, Pool());
    ASSERT_THAT(tw, IsOk());
    std::vector<F> data(size_t{1} << 24);
    for (F& v : data) v = rng.NextField<F>();
    std::vector<F> on_cpu = data;
    ASSERT_THAT(session.NttStages<F>(data, **tw, ntt::Direction::kForward, 0, 24), IsOk());
    ASSERT_THAT(ntt::RunStages<F>(on_cpu, **tw, ntt::Direction::kForward, 0, 24, Pool()), IsOk());
    EXPECT_TRUE(data == on_cpu) << F::kName;
  };
  check.operator()<field::Goldilocks>();
  check.operator()<field::Bn254Fr>();
}

TEST(CudaSessionTest, BadStageRangesAreInvalidArgument) {
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  auto tw = ntt::GetTwiddles<field::Bn254Fr>(4, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<field::Bn254Fr> data(8);  // twiddles are for 16
  EXPECT_THAT(session.NttStages<field::Bn254Fr>(data, **tw, ntt::Direction::kForward, 0, 3),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("twiddles for 2^4")));
}

TEST(CudaSessionTest, InjectedFaultsFailTheCallAndLeaveTheDataAlone) {
  CudaSessionOptions faulty;
  faulty.fail_every = 1;
  OPEN_SESSION_OR_SKIP(session, faulty);
  Instance<curve::Bn254G1> in = RandomInstance<curve::Bn254G1>(100, 1);
  EXPECT_THAT(session.Msm<curve::Bn254G1>(in.points, in.scalars),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("injected")));
  auto tw = ntt::GetTwiddles<field::Bn254Fr>(4, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<field::Bn254Fr> data(16, field::Bn254Fr::FromUint64(5));
  const std::vector<field::Bn254Fr> before = data;
  EXPECT_THAT(session.NttStages<field::Bn254Fr>(data, **tw, ntt::Direction::kForward, 0, 4),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("injected")));
  EXPECT_TRUE(data == before);
  EXPECT_THAT(session.ShiftToCoset<field::Bn254Fr>(data, **tw, field::Bn254Fr::FromUint64(7)),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("injected")));
  EXPECT_TRUE(data == before);
}

TEST(CudaSessionTest, PhaseTimesNameTheStepsOfTheLastCall) {
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{.time_phases = true});
  auto names = [&session]() {
    std::vector<std::string> out;
    for (const CudaPhase& phase : session.last_call_phases()) {
      EXPECT_GE(phase.milliseconds, 0.0) << phase.name;
      out.push_back(phase.name);
    }
    return out;
  };
  Instance<curve::Bn254G1> in = RandomInstance<curve::Bn254G1>(1000, 5);
  ASSERT_THAT(session.Msm<curve::Bn254G1>(in.points, in.scalars), IsOk());
  EXPECT_THAT(names(), ::testing::ElementsAre("allocate", "upload", "digits", "sort", "runs",
                                              "buckets", "reduce", "download"));
  auto tw = ntt::GetTwiddles<field::Goldilocks>(12, Pool());
  ASSERT_THAT(tw, IsOk());
  std::vector<field::Goldilocks> data(size_t{1} << 12, field::Goldilocks::FromUint64(3));
  ASSERT_THAT(session.NttStages<field::Goldilocks>(data, **tw, ntt::Direction::kForward, 0, 12),
              IsOk());
  EXPECT_THAT(names(), ::testing::ElementsAre("twiddles", "upload", "stages", "download"));
  ASSERT_THAT(session.ShiftToCoset<field::Goldilocks>(data, **tw, field::Goldilocks::FromUint64(7)),
              IsOk());
  EXPECT_THAT(names(), ::testing::ElementsAre("twiddles", "upload", "stages", "download"));
}

TEST(CudaSessionTest, ReleaseGivesTheDeviceMemoryBack) {
  OPEN_SESSION_OR_SKIP(session, CudaSessionOptions{});
  absl::StatusOr<DeviceMemoryInfo> idle = QueryDeviceMemory(0);
  ASSERT_THAT(idle, IsOk());
  Instance<curve::Bn254G1> in = RandomInstance<curve::Bn254G1>(size_t{1} << 18, 2);
  ASSERT_THAT(session.Msm<curve::Bn254G1>(in.points, in.scalars), IsOk());
  const uint64_t held = session.device_bytes();
  EXPECT_GT(held, uint64_t{64} << 20);
  absl::StatusOr<DeviceMemoryInfo> busy = QueryDeviceMemory(0);
  ASSERT_THAT(busy, IsOk());
  EXPECT_LE(busy->free_bytes + held, idle->free_bytes + (uint64_t{64} << 20));
  session.Release();
  EXPECT_EQ(session.device_bytes(), 0u);
  absl::StatusOr<DeviceMemoryInfo> released = QueryDeviceMemory(0);
  ASSERT_THAT(released, IsOk());
  // Back to within 64 MiB of where it was (the driver keeps some per-context memory).
  EXPECT_GE(released->free_bytes + (uint64_t{64} << 20), idle->free_bytes);
  std::cout << "[ measured ] MSM 2^18 held " << (held >> 20) << " MiB; free before "
            << (idle->free_bytes >> 20) << " MiB, during " << (busy->free_bytes >> 20)
            << " MiB, after release " << (released->free_bytes >> 20) << " MiB\n";
}

}  // namespace
}  // namespace provd::kernels
