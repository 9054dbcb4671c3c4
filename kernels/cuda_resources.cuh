// RAII for the device resources one prover holds: a stream, grow-only device buffers, a pinned
// host staging buffer. Everything that frees memory a copy or kernel may still use synchronizes
// the stream first, so an early return between an async copy and its sync can never free or
// reuse a buffer with a DMA in flight.
#pragma once

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace provd::kernels {

// An NVTX range for Nsight Systems timelines (header-only NVTX 3: a no-op unless a profiler
// injects itself).
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

class CudaStream {
 public:
  CudaStream() = default;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() { reset(); }

  cudaError_t create() {
    reset();
    return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  }
  void reset() {
    if (stream_ == nullptr) return;
    (void)cudaStreamSynchronize(stream_);
    (void)cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event that orders host work against a stream (timing off: only completion is tracked).
class CudaEvent {
 public:
  CudaEvent() = default;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() { reset(); }

  cudaError_t create() {
    reset();
    return cudaEventCreateWithFlags(&event_, cudaEventDisableTiming);
  }
  void reset() {
    if (event_ == nullptr) return;
    (void)cudaEventSynchronize(event_);
    (void)cudaEventDestroy(event_);
    event_ = nullptr;
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// How a GrowOnlyBuffer gets and returns its memory: device memory, or page-locked host memory
// (so that copies to and from the device are real async DMA).
struct DeviceAllocation {
  static cudaError_t Allocate(void** data, size_t bytes) { return cudaMalloc(data, bytes); }
  static void Free(void* data) { (void)cudaFree(data); }
};
struct PinnedHostAllocation {
  static cudaError_t Allocate(void** data, size_t bytes) { return cudaMallocHost(data, bytes); }
  static void Free(void* data) { (void)cudaFreeHost(data); }
};

// Memory that only grows (a prover reuses it chunk after chunk) until reset(), which waits for
// `stream`'s work (or the whole device's, for a null stream) before freeing: a DMA or kernel
// still using the memory must never see it freed or handed out again.
template <typename Allocation>
class GrowOnlyBuffer {
 public:
  GrowOnlyBuffer() = default;
  GrowOnlyBuffer(const GrowOnlyBuffer&) = delete;
  GrowOnlyBuffer& operator=(const GrowOnlyBuffer&) = delete;
  ~GrowOnlyBuffer() { reset(nullptr); }

  // At least `bytes` bytes; the old contents are not kept.
  cudaError_t reserve(size_t bytes, cudaStream_t stream) {
    if (bytes <= capacity_) return cudaSuccess;
    reset(stream);
    if (cudaError_t err = Allocation::Allocate(&data_, bytes); err != cudaSuccess) {
      data_ = nullptr;
      return err;
    }
    capacity_ = bytes;
    return cudaSuccess;
  }
  void reset(cudaStream_t stream) {
    if (data_ == nullptr) return;
    // Errors cannot be reported here and must not leak the buffer: free regardless.
    (void)(stream != nullptr ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize());
    Allocation::Free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

using GrowOnlyDeviceBuffer = GrowOnlyBuffer<DeviceAllocation>;
using PinnedHostBuffer = GrowOnlyBuffer<PinnedHostAllocation>;

}  // namespace provd::kernels
