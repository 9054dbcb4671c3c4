#include "gtest/gtest.h"
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

}  // namespace
}  // namespace provd::kernels
