// Which blocks of a point section of a proving key have passed the curve check. The key is
// shared by every proof of its circuit and its file does not change, so a block needs the check
// once: later proofs decode it with DecodeAffineCoordinates (canonical coordinates only). On a
// GPU that matters: the curve check of a 2^18-point chunk costs the host about as long as the
// device's whole MSM of it (bench/msm_bench.cpp, BM_DecodePoints).
//
// Thread-safe: proofs of one key run concurrently, and a block two of them check at once is
// merely checked twice.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>

namespace provd::groth16 {

class PointChecks {
 public:
  // Also the unit of parallel decoding: small enough that a chunk of a few thousand points
  // spreads over the pool's threads, large enough that the flags of a 2^24-point section take
  // 64 KiB.
  static constexpr size_t kBlockPoints = 256;

  PointChecks() = default;
  explicit PointChecks(size_t points)
      : points_(points), blocks_(new std::atomic<bool>[BlockCount(points)]()) {}

  static constexpr size_t BlockCount(size_t points) {
    return (points + kBlockPoints - 1) / kBlockPoints;
  }
  size_t block_begin(size_t block) const { return std::min(points_, block * kBlockPoints); }
  size_t block_end(size_t block) const { return std::min(points_, (block + 1) * kBlockPoints); }

  bool checked(size_t block) const { return blocks_[block].load(std::memory_order_acquire); }
  // Every point of `block` (all of [block_begin, block_end)) passed the check.
  void MarkChecked(size_t block) const { blocks_[block].store(true, std::memory_order_release); }

  // Points in checked blocks (for tests and diagnostics).
  size_t checked_points() const {
    size_t total = 0;
    for (size_t b = 0; b < BlockCount(points_); ++b) {
      if (checked(b)) total += block_end(b) - block_begin(b);
    }
    return total;
  }

 private:
  size_t points_ = 0;
  // Flags in a const object: a check done is a fact about the immutable file, not a change of
  // the key.
  std::unique_ptr<std::atomic<bool>[]> blocks_;
};

}  // namespace provd::groth16
