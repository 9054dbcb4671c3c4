// The points of an MSM round's chunks, decoded from the proving key on the host. While a device
// computes one chunk, the next chunk's points can be decoded on another thread (Prefetch), so
// the device does not sit idle between chunks while the host decodes: on a GPU, decoding a
// chunk costs about as much as its MSM.
//
// Not for the CPU backend: its MSM already keeps every core of the pool busy, and a decode beside
// it would only compete for them.
#pragma once

#include <future>
#include <optional>
#include <span>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/groth16/proving_key.hpp"
#include "prover_core/msm/chunked_msm.hpp"

namespace provd::groth16 {

template <typename E, typename C>
class ChunkPoints {
 public:
  using Affine = curve::AffinePoint<C>;

  ChunkPoints(const ProvingKey<E>& key, ZkeySection section, ThreadPool& pool)
      : key_(key), section_(section), pool_(pool) {}
  // A decode ahead writes into this object's buffer: it must be over before the buffer goes.
  ~ChunkPoints() { (void)Wait(); }
  ChunkPoints(const ChunkPoints&) = delete;
  ChunkPoints& operator=(const ChunkPoints&) = delete;

  // The points of `range`, valid until the next Get: decoded ahead if Prefetch asked for this
  // range, now otherwise.
  absl::StatusOr<std::span<const Affine>> Get(msm::PointRange range) {
    if (ahead_range_.has_value()) {
      const msm::PointRange ahead = *ahead_range_;
      absl::Status decoded = Wait();
      if (ahead.begin == range.begin && ahead.end == range.end) {
        if (!decoded.ok()) return decoded;
        current_.swap(ahead_);
        return std::span<const Affine>(current_);
      }
    }
    absl::Status decoded =
        key_.template DecodePoints<C>(section_, range.begin, range.end, current_, pool_);
    if (!decoded.ok()) return decoded;
    return std::span<const Affine>(current_);
  }

  // Starts decoding `range` on another thread for a later Get; nothing if a decode ahead is
  // already under way. Never touches the points the last Get returned.
  void Prefetch(msm::PointRange range) {
    if (ahead_range_.has_value()) return;
    try {
      ahead_status_ = std::async(std::launch::async, [this, range] {
        return key_.template DecodePoints<C>(section_, range.begin, range.end, ahead_, pool_);
      });
    } catch (const std::system_error&) {
      return;  // no thread to spare: Get decodes the range when it comes to it
    }
    ahead_range_ = range;
  }

  // Decodes ahead started so far (for tests).
  size_t prefetches() const { return prefetches_ + (ahead_range_.has_value() ? 1 : 0); }

 private:
  // Waits for the decode ahead, if any, and returns its status.
  absl::Status Wait() {
    if (!ahead_range_.has_value()) return absl::OkStatus();
    ahead_range_.reset();
    ++prefetches_;
    return ahead_status_.get();
  }

  const ProvingKey<E>& key_;
  ZkeySection section_;
  ThreadPool& pool_;
  std::vector<Affine> current_;
  std::vector<Affine> ahead_;
  std::optional<msm::PointRange> ahead_range_;
  std::future<absl::Status> ahead_status_;
  size_t prefetches_ = 0;
};

}  // namespace provd::groth16
