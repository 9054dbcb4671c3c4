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

// Device memory that only grows (a prover reuses it chunk after chunk) until reset(), which
// waits for `stream`'s work before freeing.
class GrowOnlyDeviceBuffer {
 public:
  GrowOnlyDeviceBuffer() = default;
  GrowOnlyDeviceBuffer(const GrowOnlyDeviceBuffer&) = delete;
  GrowOnlyDeviceBuffer& operator=(const GrowOnlyDeviceBuffer&) = delete;
  ~GrowOnlyDeviceBuffer() { reset(nullptr); }

  // At least `bytes` bytes; the old contents are not kept.
  cudaError_t reserve(size_t bytes, cudaStream_t stream) {
    if (bytes <= capacity_) return cudaSuccess;
    reset(stream);
    if (cudaError_t err = cudaMalloc(&data_, bytes); err != cudaSuccess) {
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
    (void)cudaFree(data_);
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

// Page-locked host memory, so that copies to and from the device are real async DMA.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  ~PinnedHostBuffer() { reset(nullptr); }

  cudaError_t reserve(size_t bytes, cudaStream_t stream) {
    if (bytes <= capacity_) return cudaSuccess;
    reset(stream);
    if (cudaError_t err = cudaMallocHost(&data_, bytes); err != cudaSuccess) {
      data_ = nullptr;
      return err;
    }
    capacity_ = bytes;
    return cudaSuccess;
  }
  void reset(cudaStream_t stream) {
    if (data_ == nullptr) return;
    (void)(stream != nullptr ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize());
    (void)cudaFreeHost(data_);
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

}  // namespace provd::kernels
