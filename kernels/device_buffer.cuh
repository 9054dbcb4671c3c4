// RAII device memory. The buffer synchronizes its device before freeing, so that an early
// return between an async copy and its sync can never free memory a DMA is still writing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace provd::kernels {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  // Allocates room for `count` elements on the current device.
  cudaError_t allocate(std::size_t count) {
    reset();
    cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T));
    if (err != cudaSuccess) {
      data_ = nullptr;
      return err;
    }
    size_ = count;
    return cudaSuccess;
  }

  void reset() {
    if (data_ == nullptr) return;
    // Errors here cannot be reported and must not leak the buffer: free regardless.
    (void)cudaDeviceSynchronize();
    (void)cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace provd::kernels
