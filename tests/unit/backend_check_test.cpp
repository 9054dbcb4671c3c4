// The known-answer check a device backend passes before it sees a job (prover_core/
// backend_check.hpp): a correct backend passes, and one that gets any single call wrong, or fails
// it, is refused with the call named. The CUDA side of it runs in tests/gpu (GpuSelfTest).
#include "prover_core/backend_check.hpp"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/simulated_gpu.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

ThreadPool& Pool() {
  static ThreadPool pool(2);
  return pool;
}

enum class Fault { kNone, kG1Sum, kG2Sum, kStages, kInverseStages, kCosetShift, kMsmError };

// The CPU's results, with one of them spoiled.
template <typename E>
class SpoiledBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;
  explicit SpoiledBackend(Fault fault) : cpu_(Pool()), fault_(fault) {}

  std::string_view name() const override { return "spoiled"; }
  bool is_cpu() const override { return false; }
  absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>> points,
                                             std::span<const msm::Scalar> scalars) override {
    if (fault_ == Fault::kMsmError) return absl::UnavailableError("device lost");
    auto sum = cpu_.MsmG1(points, scalars);
    if (sum.ok() && fault_ == Fault::kG1Sum) sum->AddAffine(G1::Generator());
    return sum;
  }
  absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>> points,
                                             std::span<const msm::Scalar> scalars) override {
    auto sum = cpu_.MsmG2(points, scalars);
    if (sum.ok() && fault_ == Fault::kG2Sum) *sum = sum->Double();
    return sum;
  }
  absl::Status NttStages(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                         ntt::Direction direction, size_t first, size_t end) override {
    absl::Status s = cpu_.NttStages(data, twiddles, direction, first, end);
    const bool spoil = direction == ntt::Direction::kForward ? fault_ == Fault::kStages
                                                             : fault_ == Fault::kInverseStages;
    if (s.ok() && spoil) data[data.size() / 2] += Fr::One();
    return s;
  }
  absl::Status ShiftToCoset(std::span<Fr> data, const ntt::Twiddles<Fr>& twiddles,
                            const Fr& shift) override {
    absl::Status s = cpu_.ShiftToCoset(data, twiddles, shift);
    if (s.ok() && fault_ == Fault::kCosetShift) std::swap(data[1], data[2]);
    return s;
  }

 private:
  CpuBackend<E> cpu_;
  Fault fault_;
};

template <typename E>
class BackendCheckTest : public ::testing::Test {};
using Engines = ::testing::Types<groth16::Bn254Engine, groth16::Bls12381Engine>;
TYPED_TEST_SUITE(BackendCheckTest, Engines);

TYPED_TEST(BackendCheckTest, CorrectBackendsPass) {
  SpoiledBackend<TypeParam> unspoiled(Fault::kNone);
  EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(unspoiled, Pool()), IsOk());
  SimulatedGpuBackend<TypeParam> simulated(0, Pool());
  EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(simulated, Pool()), IsOk());
}

TYPED_TEST(BackendCheckTest, AnyWrongResultIsRefusedAndNamed) {
  for (auto [fault, call] : {std::pair{Fault::kG1Sum, "G1 MSM"}, std::pair{Fault::kG2Sum, "G2 MSM"},
                             std::pair{Fault::kStages, "spoiled NTT stages"},
                             std::pair{Fault::kInverseStages, "inverse NTT stages"},
                             std::pair{Fault::kCosetShift, "coset shift"}}) {
    SpoiledBackend<TypeParam> spoiled(fault);
    EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(spoiled, Pool()),
                StatusIs(absl::StatusCode::kInternal, HasSubstr(std::string(call) + " ")))
        << call;
  }
}

TYPED_TEST(BackendCheckTest, AFailingCallIsReportedWithItsOwnCode) {
  SpoiledBackend<TypeParam> failing(Fault::kMsmError);
  EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(failing, Pool()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("spoiled G1 MSM of 4101 points")));
}

// The fault injection behind the daemon's verification tests: a simulated GPU that lies
// reports success with a wrong MSM result, which the known-answer check catches.
TYPED_TEST(BackendCheckTest, ASimulatedGpuAskedToLieReturnsWrongMsmResults) {
  SimulatedGpuOptions lying;
  lying.corrupt_probability = 1;
  SimulatedGpuBackend<TypeParam> liar(0, Pool(), lying);
  EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(liar, Pool()),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("G1 MSM")));
  EXPECT_GT(liar.corrupted(), 0u);

  using G1 = typename TypeParam::G1;
  using G2 = typename TypeParam::G2;
  const std::vector<curve::AffinePoint<G1>> g1(3, G1::Generator());
  const std::vector<curve::AffinePoint<G2>> g2(3, G2::Generator());
  const std::vector<msm::Scalar> scalars(3, msm::Scalar::FromUint64(5));
  absl::StatusOr<curve::XyzzPoint<G1>> a = liar.MsmG1(g1, scalars);
  absl::StatusOr<curve::XyzzPoint<G2>> b = liar.MsmG2(g2, scalars);
  ASSERT_THAT(a.status(), IsOk());
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_FALSE(a->ToAffine().IsOnCurve());
  EXPECT_FALSE(b->ToAffine().IsOnCurve());

  SimulatedGpuOptions honest_enough;  // never lies at probability 0
  SimulatedGpuBackend<TypeParam> honest(1, Pool(), honest_enough);
  EXPECT_THAT(CheckBackendAgainstCpu<TypeParam>(honest, Pool()), IsOk());
  EXPECT_EQ(honest.corrupted(), 0u);
}

}  // namespace
}  // namespace provd
