// What a CudaSession holds on its device, shared by the session and its kernels' launchers.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/cuda_resources.cuh"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/parallel_copy.hpp"

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
  kSubRunCounts,
  kFirstSubRuns,
  kSubRunOwners,
  kSubRunSums,
  kSegments,
  kWindows,
  kNttData,
  kForwardTwiddles,
  kInverseTwiddles,
  kCosetScale,
  kCount,
};

// Uploads from pageable memory move through two pinned halves of this size: the host copy into
// one overlaps the DMA out of the other, so an upload costs about the larger of the two.
inline constexpr size_t kStagingChunkBytes = size_t{32} << 20;

// The domain whose stage table a twiddle slot holds; a null field name: none.
struct StageTableTag {
  const char* field = nullptr;
  size_t log_n = 0;
};

inline Slot TwiddleSlot(ntt::Direction direction) {
  return direction == ntt::Direction::kForward ? Slot::kForwardTwiddles : Slot::kInverseTwiddles;
}

struct CudaSession::Resources {
  CudaStream stream;  // declared first: destroyed after every buffer that uses it
  std::array<GrowOnlyDeviceBuffer, static_cast<size_t>(Slot::kCount)> buffers;
  // Pinned memory for transfers: uploads use two halves of kStagingChunkBytes (the events say
  // when the DMA out of each half is done); a download lands whole. Destroyed before the stream.
  PinnedHostBuffer staging;
  std::array<CudaEvent, 2> staged;
  // The half the next upload fills first: consecutive uploads (a call's inputs, the columns of a
  // batch) keep alternating, so one's host copy overlaps the previous one's DMA.
  size_t next_half = 0;
  // Which stage table each twiddle slot holds (indexed by ntt::Direction).
  std::array<StageTableTag, 2> stage_tables;

  GrowOnlyDeviceBuffer& buffer(Slot slot) { return buffers[static_cast<size_t>(slot)]; }

  // The slot with room for `count` elements of T.
  template <typename T>
  absl::StatusOr<T*> Reserve(Slot slot, uint64_t count, const char* what) {
    GrowOnlyDeviceBuffer& b = buffer(slot);
    PROVD_CUDA_RETURN_IF_ERROR(b.reserve(count * sizeof(T), stream.get()), what);
    return b.as<T>();
  }

  // Copies `count` elements to device memory `to`. The copy is ordered before the stream's
  // later work; `from` may be reused as soon as this returns.
  template <typename T>
  absl::Status Upload(T* to, const T* from, uint64_t count, const char* what) {
    const size_t bytes = count * sizeof(T);
    if (bytes == 0) return absl::OkStatus();
    absl::StatusOr<size_t> chunk = EnsureStaging(bytes, what);
    if (!chunk.ok()) return chunk.status();
    auto* dst = reinterpret_cast<char*>(to);
    const auto* src = reinterpret_cast<const char*>(from);
    for (size_t offset = 0; offset < bytes; offset += *chunk) {
      const size_t len = std::min(*chunk, bytes - offset);
      const size_t h = next_half;
      next_half ^= 1;
      char* half = staging.as<char>() + h * *chunk;
      // The half's previous DMA (of this upload or an earlier one) must be done with it.
      PROVD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged[h].get()), what);
      ParallelCopy(half, src + offset, len);
      PROVD_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(dst + offset, half, len, cudaMemcpyHostToDevice, stream.get()), what);
      PROVD_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged[h].get(), stream.get()), what);
    }
    return absl::OkStatus();
  }

  // Copies `count` elements back in pieces of at most two staging halves, each landing in `to`
  // as it arrives: pinned memory stays bounded however large the result, but a failure can leave
  // `to` written in part (for calls whose contract allows it, like CosetLde's).
  template <typename T>
  absl::Status DownloadInPieces(T* to, const T* from, uint64_t count, const char* what) {
    const size_t bytes = count * sizeof(T);
    if (bytes == 0) return absl::OkStatus();
    const size_t piece = std::min(bytes, 2 * kStagingChunkBytes);
    PROVD_CUDA_RETURN_IF_ERROR(staging.reserve(piece, stream.get()), what);
    auto* dst = reinterpret_cast<char*>(to);
    const auto* src = reinterpret_cast<const char*>(from);
    for (size_t offset = 0; offset < bytes; offset += piece) {
      const size_t len = std::min(piece, bytes - offset);
      PROVD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging.as<void>(), src + offset, len,
                                                 cudaMemcpyDeviceToHost, stream.get()),
                                 what);
      PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
      ParallelCopy(dst + offset, staging.as<void>(), len);
    }
    return absl::OkStatus();
  }

  // Copies `count` elements back from the device into `to`, after the stream's earlier work.
  // All or nothing: the whole result lands in the staging buffer before any of `to` changes, so
  // a failed call leaves the caller's data as it was (the CPU reruns the work on it).
  template <typename T>
  absl::Status Download(T* to, const T* from, uint64_t count, const char* what) {
    const size_t bytes = count * sizeof(T);
    if (bytes == 0) return absl::OkStatus();
    PROVD_CUDA_RETURN_IF_ERROR(staging.reserve(bytes, stream.get()), what);
    PROVD_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(staging.as<void>(), from, bytes, cudaMemcpyDeviceToHost, stream.get()),
        what);
    PROVD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()), what);
    ParallelCopy(to, staging.as<void>(), bytes);
    return absl::OkStatus();
  }

  // Staging for an upload of `bytes`: two halves of up to kStagingChunkBytes, no larger than
  // the upload needs (pinning memory costs about as much as copying it, and a session may live
  // for one small proof). Returns the size of a half.
  absl::StatusOr<size_t> EnsureStaging(size_t bytes, const char* what) {
    const size_t wanted = std::min(kStagingChunkBytes, ((bytes + 1) / 2 + 4095) / 4096 * 4096);
    PROVD_CUDA_RETURN_IF_ERROR(staging.reserve(2 * wanted, stream.get()), what);
    for (CudaEvent& e : staged) {
      if (e.get() == nullptr) PROVD_CUDA_RETURN_IF_ERROR(e.create(), what);
    }
    // A download may have grown the buffer: larger halves then, still within the buffer.
    return std::min(kStagingChunkBytes, staging.capacity() / 2);
  }

  uint64_t device_bytes() const {
    uint64_t total = 0;
    for (const GrowOnlyDeviceBuffer& b : buffers) total += b.capacity();
    return total;
  }

  // Frees the given slots (after the stream's work), keeping the stream.
  void ReleaseSlots(std::initializer_list<Slot> slots) {
    for (Slot slot : slots) buffer(slot).reset(stream.get());
    for (ntt::Direction d : {ntt::Direction::kForward, ntt::Direction::kInverse}) {
      if (buffer(TwiddleSlot(d)).capacity() == 0) stage_tables[static_cast<size_t>(d)] = {};
    }
  }

  // Frees every buffer and the staging memory, keeping the stream.
  void ReleaseBuffers() {
    for (GrowOnlyDeviceBuffer& b : buffers) b.reset(stream.get());
    staging.reset(stream.get());
    stage_tables = {};
  }

  void ReleaseAll() {
    (void)cudaStreamSynchronize(stream.get());
    for (GrowOnlyDeviceBuffer& b : buffers) b.reset(stream.get());
    staging.reset(stream.get());
    for (CudaEvent& e : staged) e.reset();
    stage_tables = {};
    stream.reset();
  }
};

// Records the wall time of a call's phases into CudaSession::last_call_phases() when enabled:
// Mark(name) waits for the stream and charges the time since the previous mark to `name`.
class PhaseClock {
 public:
  PhaseClock(bool enabled, cudaStream_t stream, std::vector<CudaPhase>& phases)
      : enabled_(enabled), stream_(stream), phases_(phases), last_(Clock::now()) {
    phases_.clear();
  }
  void Mark(std::string_view name) {
    if (!enabled_) return;
    // A failed wait is the call's own error to report; the clock only measures.
    if (cudaStreamSynchronize(stream_) != cudaSuccess) return;
    const Clock::time_point now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    auto it = std::find_if(phases_.begin(), phases_.end(),
                           [&](const CudaPhase& p) { return p.name == name; });
    if (it == phases_.end()) it = phases_.insert(phases_.end(), CudaPhase{std::string(name), 0});
    it->milliseconds += ms;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  cudaStream_t stream_;
  std::vector<CudaPhase>& phases_;
  Clock::time_point last_;
};

// Grid size for a grid-stride kernel over `count` items.
inline unsigned GridFor(uint64_t count, unsigned block) {
  const uint64_t blocks = (count + block - 1) / block;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks == 0 ? 1 : blocks) : 65535 * 16);
}

}  // namespace provd::kernels
