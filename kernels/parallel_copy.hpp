// Host copies into and out of pinned staging memory, on several threads: one core's memcpy
// (about 10 GB/s) is well below what the DMA engine moves over PCIe 5 (about 50 GB/s), so with
// a single thread the staging copy, not the bus, would bound every transfer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace provd::kernels {

inline void ParallelCopy(void* to, const void* from, size_t bytes) {
  constexpr size_t kMinBytesPerThread = size_t{4} << 20;  // below this, spawning costs more
  constexpr size_t kMaxThreads = 8;  // memory bandwidth, not cores, runs out beyond this
  const size_t threads =
      std::min<size_t>({kMaxThreads, std::max<size_t>(1, std::thread::hardware_concurrency()),
                        std::max<size_t>(1, bytes / kMinBytesPerThread)});
  auto* dst = static_cast<char*>(to);
  const auto* src = static_cast<const char*>(from);
  if (threads == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  // Parts of whole 4 KiB pages, so no two threads write the same page.
  const size_t part = (bytes / threads + 4095) / 4096 * 4096;
  std::vector<std::jthread> workers;
  workers.reserve(threads - 1);
  for (size_t offset = part; offset < bytes; offset += part) {
    workers.emplace_back(
        [=] { std::memcpy(dst + offset, src + offset, std::min(part, bytes - offset)); });
  }
  std::memcpy(dst, src, std::min(part, bytes));
}

}  // namespace provd::kernels
