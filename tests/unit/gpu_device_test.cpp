#include "prover_core/gpu_device.hpp"

#include "gtest/gtest.h"

namespace provd {
namespace {

TEST(GpuDeviceTest, DescribeNamesIndexArchAndMemory) {
  GpuDevice device;
  device.index = 3;
  device.name = "NVIDIA H200";
  device.total_memory_bytes = 150'000'000'000ull;
  device.compute_major = 9;
  device.compute_minor = 0;
  EXPECT_EQ(Describe(device), "gpu3: NVIDIA H200, sm_90, 140 GiB");
}

}  // namespace
}  // namespace provd
