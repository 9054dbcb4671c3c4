// The CUDA backend's behaviour that needs no GPU: a device that cannot be opened fails every
// call with UNAVAILABLE (which the round executor turns into a visible CPU fallback) and leaves
// the caller's data alone; fault injection is read from the environment. Runs on every host;
// device-side checks are in tests/gpu.
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cuda_backend_factory.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/field_ops.hpp"
#include "prover_core/device_lost.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/groth16/engine.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::kernels {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

constexpr uint32_t kNoSuchDevice = 63;

TEST(CudaBackendTest, ADeviceThatDoesNotExistFailsEveryCallCleanly) {
  DeviceMemoryMeter meter;
  CudaBackend<groth16::Bn254Engine> backend(kNoSuchDevice, {}, &meter);
  EXPECT_EQ(backend.name(), "cuda:63");
  EXPECT_FALSE(backend.is_cpu());
  const curve::AffinePoint<curve::Bn254G1> g = curve::Bn254G1::Generator();
  const msm::Scalar one = msm::Scalar::FromUint64(1);
  EXPECT_THAT(backend.MsmG1({&g, 1}, {&one, 1}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("CUDA")));

  ThreadPool pool(1);
  auto tw = ntt::GetTwiddles<field::Bn254Fr>(3, pool);
  ASSERT_THAT(tw, IsOk());
  std::vector<field::Bn254Fr> data(8, field::Bn254Fr::FromUint64(3));
  const std::vector<field::Bn254Fr> before = data;
  EXPECT_THAT(backend.NttStages(data, **tw, ntt::Direction::kForward, 0, 3),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("CUDA")));
  EXPECT_TRUE(data == before);
  EXPECT_THAT(backend.ShiftToCoset(data, **tw, field::Bn254Fr::FromUint64(5)),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("CUDA")));
  EXPECT_TRUE(data == before);

  backend.ReleaseDeviceMemory();
  EXPECT_EQ(backend.device_bytes(), 0u);
  EXPECT_EQ(meter.bytes(kNoSuchDevice), 0);
}

TEST(CudaBackendTest, TheFactoryMakesABackendPerEngineAndDevice) {
  CudaBackendFactory factory;
  auto bn = factory.Make(2, std::type_identity<groth16::Bn254Engine>{});
  auto bls = factory.Make(5, std::type_identity<groth16::Bls12381Engine>{});
  ASSERT_NE(bn, nullptr);
  ASSERT_NE(bls, nullptr);
  EXPECT_EQ(bn->name(), "cuda:2");
  EXPECT_EQ(bls->name(), "cuda:5");
}

TEST(CudaBackendTest, FaultInjectionComesFromTheEnvironment) {
  ASSERT_EQ(::unsetenv("PROVD_CUDA_FAULT_EVERY"), 0);
  CudaSessionOptions base;
  base.msm_window_bits = 9;
  auto unset = CudaBackendFactory::OptionsFromEnvironment(base);
  ASSERT_THAT(unset, IsOk());
  EXPECT_EQ(unset->fail_every, 0u);
  EXPECT_EQ(unset->msm_window_bits, 9u);

  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_EVERY", "3", 1), 0);
  auto three = CudaBackendFactory::OptionsFromEnvironment(base);
  ASSERT_THAT(three, IsOk());
  EXPECT_EQ(three->fail_every, 3u);

  EXPECT_FALSE(three->fault_is_loss);

  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_KIND", "lost", 1), 0);
  auto lost = CudaBackendFactory::OptionsFromEnvironment(base);
  ASSERT_THAT(lost, IsOk());
  EXPECT_TRUE(lost->fault_is_loss);
  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_KIND", "failure", 1), 0);
  auto failure = CudaBackendFactory::OptionsFromEnvironment(base);
  ASSERT_THAT(failure, IsOk());
  EXPECT_FALSE(failure->fault_is_loss);
  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_KIND", "melted", 1), 0);
  EXPECT_THAT(CudaBackendFactory::OptionsFromEnvironment(base),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"melted\"")));
  ASSERT_EQ(::unsetenv("PROVD_CUDA_FAULT_KIND"), 0);

  ASSERT_EQ(::unsetenv("PROVD_CUDA_FAULT_EVERY"), 0);
  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_KIND", "melted", 1), 0);  // checked even when unused
  EXPECT_THAT(CudaBackendFactory::OptionsFromEnvironment(base),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("PROVD_CUDA_FAULT_KIND")));
  ASSERT_EQ(::unsetenv("PROVD_CUDA_FAULT_KIND"), 0);

  ASSERT_EQ(::setenv("PROVD_CUDA_FAULT_EVERY", "often", 1), 0);
  EXPECT_THAT(CudaBackendFactory::OptionsFromEnvironment(base),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"often\"")));
  ASSERT_EQ(::unsetenv("PROVD_CUDA_FAULT_EVERY"), 0);
}

// Sticky errors ruin the process's context on the device: the status says so, so that the
// prover retires the device instead of failing there chunk after chunk. Ordinary failures and
// out-of-memory do not.
TEST(CudaStatusTest, StickyErrorsSayTheDeviceIsLost) {
  EXPECT_THAT(CudaStatus(cudaSuccess, "x"), IsOk());
  for (cudaError_t sticky : {cudaErrorIllegalAddress, cudaErrorLaunchFailure,
                             cudaErrorECCUncorrectable, cudaErrorMisalignedAddress}) {
    const absl::Status s = CudaStatus(sticky, "cuda:0 msm");
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable, HasSubstr(cudaGetErrorName(sticky))));
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("until it restarts")));
    EXPECT_TRUE(IsDeviceLost(s)) << s;
    EXPECT_TRUE(IsStickyCudaError(sticky));
  }
  const absl::Status oom = CudaStatus(cudaErrorMemoryAllocation, "cuda:0 msm");
  EXPECT_THAT(oom, StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  EXPECT_FALSE(IsDeviceLost(oom));
  for (cudaError_t transient :
       {cudaErrorInvalidValue, cudaErrorLaunchOutOfResources, cudaErrorDevicesUnavailable}) {
    const absl::Status s = CudaStatus(transient, "cuda:0 ntt");
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
    EXPECT_FALSE(IsDeviceLost(s)) << s;
  }
}

// The device field-product helpers (parity test, gpu_bench) reject bad requests before they
// touch a device, so a wrong call is a clear INVALID_ARGUMENT on every host.
TEST(CudaFieldProductsTest, BadRequestsAreInvalidArgumentWithoutADevice) {
  using F = field::Bn254Fq;
  std::vector<F> a(4), b(3), out(4);
  EXPECT_THAT(MultiplyOnDevice<F>(kNoSuchDevice, ProductForm::kWords32Ptx, a, b, out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("sizes do not match")));
  std::vector<F> ops(kFieldOpCount * 3);
  EXPECT_THAT(EvaluateFieldOpsOnDevice<F>(kNoSuchDevice, a, a, ops),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("sizes do not match")));
  EXPECT_THAT(TimeProductChainsOnDevice<F>(kNoSuchDevice, ProductForm::kLimbs64, 100, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("multiple of 256")));
  EXPECT_THAT(TimeProductChainsOnDevice<F>(kNoSuchDevice, ProductForm::kLimbs64, 0, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("multiple of 256")));
  // A well-formed request on a device that does not exist fails cleanly instead.
  EXPECT_THAT(MultiplyOnDevice<F>(kNoSuchDevice, ProductForm::kLimbs64, a, a, out),
              ::testing::Not(IsOk()));
}

}  // namespace
}  // namespace provd::kernels
