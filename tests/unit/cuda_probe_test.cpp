// Runs on every machine, GPU or not: probing must never fail or crash, and an empty inventory
// must say why. The device-side checks live in tests/gpu.
#include "gtest/gtest.h"
#include "kernels/cuda_devices.hpp"

namespace provd::kernels {
namespace {

TEST(CudaProbeTest, InventoryIsConsistentWithOrWithoutADevice) {
  GpuInventory inventory = ProbeCudaDevices();
  if (inventory.devices.empty()) {
    EXPECT_FALSE(inventory.why_none.empty());
  } else {
    EXPECT_TRUE(inventory.why_none.empty());
    for (size_t i = 0; i < inventory.devices.size(); ++i) {
      EXPECT_EQ(inventory.devices[i].index, i);
      EXPECT_GT(inventory.devices[i].total_memory_bytes, 0u);
    }
  }
}

TEST(CudaProbeTest, ProbingTwiceGivesTheSameAnswer) {
  GpuInventory first = ProbeCudaDevices();
  GpuInventory second = ProbeCudaDevices();
  EXPECT_EQ(first.devices.size(), second.devices.size());
  EXPECT_EQ(first.why_none, second.why_none);
}

}  // namespace
}  // namespace provd::kernels
