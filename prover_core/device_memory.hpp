// How many bytes of device memory the proofs of this process hold, per device: the backends
// that allocate it report every change, the daemon's metrics read it. Operators size VRAM and
// workers from it, and a yield must show it dropping to zero.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace provd {

class DeviceMemoryMeter {
 public:
  static constexpr size_t kMaxDevices = 64;  // --simulated-gpus and CUDA device numbers below

  void Add(size_t device, int64_t delta) {
    if (device < kMaxDevices) bytes_[device].fetch_add(delta, std::memory_order_relaxed);
  }
  int64_t bytes(size_t device) const {
    return device < kMaxDevices ? bytes_[device].load(std::memory_order_relaxed) : 0;
  }

 private:
  std::array<std::atomic<int64_t>, kMaxDevices> bytes_{};
};

}  // namespace provd
