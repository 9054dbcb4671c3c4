#include "gtest/gtest.h"
#include "kernels/cuda_backend_check.hpp"
#include "kernels/cuda_devices.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::kernels {
namespace {

TEST(GpuSelfTest, EveryDeviceRunsTheKnownAnswerKernel) {
  GpuInventory inventory = ProbeCudaDevices();
  if (inventory.devices.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.why_none;
  for (const GpuDevice& device : inventory.devices) {
    EXPECT_THAT(SelfTest(device.index), provd::testing::IsOk()) << Describe(device);
  }
}

TEST(GpuSelfTest, EveryDevicePassesTheBackendCheck) {
  GpuInventory inventory = ProbeCudaDevices();
  if (inventory.devices.empty()) GTEST_SKIP() << "no CUDA device: " << inventory.why_none;
  ThreadPool pool(2);
  for (const GpuDevice& device : inventory.devices) {
    EXPECT_THAT(CheckCudaBackendAgainstCpu(device.index, pool), provd::testing::IsOk())
        << Describe(device);
  }
}

// Without a device the check fails cleanly, with the device named (on a GPU host: one that
// does not exist).
TEST(GpuSelfTest, TheBackendCheckOfAMissingDeviceFailsCleanly) {
  ThreadPool pool(1);
  const absl::Status s = CheckCudaBackendAgainstCpu(63, pool);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_NE(s.message().find("gpu63 backend check"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace provd::kernels
