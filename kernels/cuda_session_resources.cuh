// What a CudaSession holds on its device, shared by the session and its kernels' launchers.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "absl/status/statusor.h"
#include "kernels/cuda_resources.cuh"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_status.hpp"

namespace provd::kernels {

// The roles of the session's device buffers; each grows to the largest call so far.
enum class Slot : size_t {
  kPoints,
  kScalars,
  kKeys,
  kValues,
  kSortedKeys,
  kSortedValues,
  kSortTemp,
  kRunBegins,
  kRunEnds,
  kBuckets,
  kSegments,
  kWindows,
  kNttData,
  kTwiddles,
  kCount,
};

struct CudaSession::Resources {
  CudaStream stream;  // declared first: destroyed after every buffer that uses it
  std::array<GrowOnlyDeviceBuffer, static_cast<size_t>(Slot::kCount)> buffers;
  PinnedHostBuffer staging;
  // Which stage table kTwiddles holds: (field name, log n, direction); null name: none.
  const char* twiddle_field = nullptr;
  size_t twiddle_log_n = 0;
  bool twiddle_inverse = false;

  GrowOnlyDeviceBuffer& buffer(Slot slot) { return buffers[static_cast<size_t>(slot)]; }

  // The slot with room for `count` elements of T.
  template <typename T>
  absl::StatusOr<T*> Reserve(Slot slot, uint64_t count, const char* what) {
    GrowOnlyDeviceBuffer& b = buffer(slot);
    PROVD_CUDA_RETURN_IF_ERROR(b.reserve(count * sizeof(T), stream.get()), what);
    return b.as<T>();
  }

  // Copies `count` elements to device memory `to` through the pinned staging buffer. The
  // staging buffer is reused by the next upload, so this waits for the copy to finish.
  template <typename T>
  absl::Status Upload(T* to, const T* from, uint64_t count, const char* what) {
    const size_t bytes = count * sizeof(T);
    PROVD_CUDA_RETURN_IF_ERROR(staging.reserve(bytes, stream.get()), what);
    std::memcpy(staging.as<void>(), from, bytes);
    PROVD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(to, staging.as<void>(), bytes, cudaMemcpyHostToDevice, stream.get()), what);
    PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
    return absl::OkStatus();
  }

  // Copies `count` elements back from the device into `to`, through the staging buffer.
  template <typename T>
  absl::Status Download(T* to, const T* from, uint64_t count, const char* what) {
    const size_t bytes = count * sizeof(T);
    PROVD_CUDA_RETURN_IF_ERROR(staging.reserve(bytes, stream.get()), what);
    PROVD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(staging.as<void>(), from, bytes, cudaMemcpyDeviceToHost, stream.get()),
        what);
    PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
    std::memcpy(to, staging.as<void>(), bytes);
    return absl::OkStatus();
  }

  uint64_t device_bytes() const {
    uint64_t total = 0;
    for (const GrowOnlyDeviceBuffer& b : buffers) total += b.capacity();
    return total;
  }

  // Frees the given slots (after the stream's work), keeping the stream.
  void ReleaseSlots(std::initializer_list<Slot> slots) {
    for (Slot slot : slots) buffer(slot).reset(stream.get());
    if (buffer(Slot::kTwiddles).capacity() == 0) twiddle_field = nullptr;
  }

  // Frees every buffer and the staging memory, keeping the stream.
  void ReleaseBuffers() {
    for (GrowOnlyDeviceBuffer& b : buffers) b.reset(stream.get());
    staging.reset(stream.get());
    twiddle_field = nullptr;
  }

  void ReleaseAll() {
    (void)cudaStreamSynchronize(stream.get());
    for (GrowOnlyDeviceBuffer& b : buffers) b.reset(stream.get());
    staging.reset(stream.get());
    twiddle_field = nullptr;
    stream.reset();
  }
};

// Grid size for a grid-stride kernel over `count` items.
inline unsigned GridFor(uint64_t count, unsigned block) {
  const uint64_t blocks = (count + block - 1) / block;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks == 0 ? 1 : blocks) : 65535 * 16);
}

}  // namespace provd::kernels
