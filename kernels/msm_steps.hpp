// The GPU MSM's algorithm as per-thread steps in plain constexpr C++ over prover_core's field and
// curve code. The CUDA kernels (msm_kernels.cuh) are thin wrappers that call these steps with a
// thread index, and msm_host_pipeline.hpp runs the same steps in loops on the host, so CI checks
// the GPU's algorithm against the CPU MSM without a GPU, and the device's field arithmetic is
// the CPU's own (nvcc --expt-relaxed-constexpr): results agree bit for bit by construction.
//
// Pipeline for n points and c-bit unsigned windows, W = ceil(256 / c) windows (all 256 bits of a
// scalar, so scalars >= r act modulo r exactly as on the CPU):
//   1. digits      for point i and window w: key = w * 2^c + digit_w(k_i), value = i  (W n pairs)
//   2. sort        the pairs by key (CUB's radix sort on the device)
//   3. runs        [begin, end) of every key's run in the sorted pairs
//   4. buckets     bucket (w, d) = sum of the points whose window-w digit is d   (one per thread;
//                  d = 0 stays empty)
//   5. segments    a window's 2^c buckets in segments of L: sum_d d B_d over the segment
//   6. windows     window w = sum of its segments
//   7. host        Horner over the W window sums, c doublings apart
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/msm/pippenger.hpp"

namespace provd::kernels {

struct MsmLayout {
  uint32_t points = 0;
  uint32_t window_bits = 0;      // c
  uint32_t windows = 0;          // W = ceil(256 / c)
  uint32_t segment_buckets = 0;  // L, a power of two dividing 2^c

  constexpr uint32_t buckets_per_window() const { return uint32_t{1} << window_bits; }
  constexpr uint32_t buckets() const { return windows * buckets_per_window(); }
  constexpr uint32_t segments_per_window() const { return buckets_per_window() / segment_buckets; }
  constexpr uint32_t segments() const { return windows * segments_per_window(); }
  constexpr uint64_t pairs() const { return uint64_t{windows} * points; }
  // Bits of a sort key (window and digit), for a radix sort that skips the rest.
  constexpr uint32_t key_bits() const {
    uint32_t bits = window_bits;
    while ((uint64_t{1} << bits) < buckets()) ++bits;
    return bits;
  }
};

inline constexpr uint32_t kMaxGpuWindowBits = 16;
// Sorted pairs are indexed with 32-bit integers (run bounds) and sorted with int-sized counts.
inline constexpr uint64_t kMaxMsmPairs = (uint64_t{1} << 31) - 1;
inline constexpr uint32_t kScalarBits = 256;

// The layout for `points` points; window_bits = 0 picks the width (about log2(n) - 3, between
// 4 and 16: wide enough that bucket additions dominate, narrow enough that the W * 2^c buckets
// stay a fraction of the pairs). INVALID_ARGUMENT for sizes the 32-bit indices cannot hold.
inline absl::StatusOr<MsmLayout> PlanMsmLayout(uint64_t points, uint32_t window_bits = 0) {
  if (points == 0 || points > (uint64_t{1} << 31)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU MSM over ", points, " points: between 1 and 2^31 points per batch"));
  }
  if (window_bits == 0) {
    uint32_t log_n = 0;
    while ((uint64_t{1} << log_n) < points) ++log_n;
    window_bits = log_n > 7 ? log_n - 3 : 4;
    if (window_bits > kMaxGpuWindowBits) window_bits = kMaxGpuWindowBits;
  }
  if (window_bits < 1 || window_bits > kMaxGpuWindowBits) {
    return absl::InvalidArgumentError(absl::StrCat("GPU MSM window of ", window_bits,
                                                   " bits: between 1 and ", kMaxGpuWindowBits));
  }
  MsmLayout layout;
  layout.points = static_cast<uint32_t>(points);
  layout.window_bits = window_bits;
  layout.windows = (kScalarBits + window_bits - 1) / window_bits;
  // L = 2^ceil(c/2): a segment's serial walk and the number of segments a window sums stay
  // balanced (both about 2^(c/2)).
  layout.segment_buckets = uint32_t{1} << ((window_bits + 1) / 2);
  if (layout.pairs() > kMaxMsmPairs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU MSM over ", points, " points with ", window_bits, "-bit windows: ", layout.pairs(),
        " digit pairs, more than the ", kMaxMsmPairs, " a batch can index"));
  }
  return layout;
}

// Step 1, thread per point: the point's W (key, value) pairs, window-major.
constexpr void WriteDigitPairs(const MsmLayout& layout, const msm::Scalar& scalar, uint32_t point,
                               uint32_t* keys, uint32_t* values) {
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const uint64_t slot = uint64_t{w} * layout.points + point;
    keys[slot] = (w << layout.window_bits) |
                 msm::ExtractBits(scalar, size_t{w} * layout.window_bits, layout.window_bits);
    values[slot] = point;
  }
}

// Step 3, thread per sorted pair: records where the run of its key starts and ends. Keys with no
// pair keep the begin = end = 0 the caller zeroed them to.
constexpr void MarkRun(const uint32_t* sorted_keys, uint64_t count, uint64_t j, uint32_t* begins,
                       uint32_t* ends) {
  const uint32_t key = sorted_keys[j];
  if (j == 0 || sorted_keys[j - 1] != key) begins[key] = static_cast<uint32_t>(j);
  if (j + 1 == count || sorted_keys[j + 1] != key) ends[key] = static_cast<uint32_t>(j + 1);
}

// Step 4, thread per bucket (w, d) = key: the sum of its points (digit 0 contributes nothing).
template <typename C>
constexpr curve::XyzzPoint<C> AccumulateBucket(const MsmLayout& layout, uint32_t bucket,
                                               const curve::AffinePoint<C>* points,
                                               const uint32_t* sorted_values,
                                               const uint32_t* begins, const uint32_t* ends) {
  curve::XyzzPoint<C> sum;
  if ((bucket & (layout.buckets_per_window() - 1)) == 0) return sum;
  for (uint32_t j = begins[bucket]; j < ends[bucket]; ++j) sum.AddAffine(points[sorted_values[j]]);
  return sum;
}

// Step 5, thread per segment s (window s / S, buckets [lo, lo + L) of it): sum_d d * B_d over
// the segment, as the running-sum walk sum_d (d - lo) B_d plus lo times the plain sum.
template <typename C>
constexpr curve::XyzzPoint<C> ReduceSegment(const MsmLayout& layout, uint32_t segment,
                                            const curve::XyzzPoint<C>* buckets) {
  const uint32_t per_window = layout.segments_per_window();
  const uint32_t window = segment / per_window;
  const uint32_t lo = (segment % per_window) * layout.segment_buckets;
  const curve::XyzzPoint<C>* b = buckets + uint64_t{window} * layout.buckets_per_window() + lo;
  curve::XyzzPoint<C> running;
  curve::XyzzPoint<C> weighted;
  for (uint32_t d = layout.segment_buckets - 1; d > 0; --d) {
    running.Add(b[d]);
    weighted.Add(running);  // B_d is counted once for every step from d down to 1: d times
  }
  running.Add(b[0]);
  if (lo != 0) weighted.Add(curve::ScalarMul(running, field::BigInt<1>::FromUint64(lo)));
  return weighted;
}

// Step 6, thread per window: the sum of its segments.
template <typename C>
constexpr curve::XyzzPoint<C> SumWindow(const MsmLayout& layout, uint32_t window,
                                        const curve::XyzzPoint<C>* segment_sums) {
  curve::XyzzPoint<C> sum;
  const uint32_t per_window = layout.segments_per_window();
  for (uint32_t t = 0; t < per_window; ++t) sum.Add(segment_sums[window * per_window + t]);
  return sum;
}

// Step 7, on the host: sum_w 2^(w c) window_w.
template <typename C>
constexpr curve::XyzzPoint<C> CombineWindows(const MsmLayout& layout,
                                             const curve::XyzzPoint<C>* window_sums) {
  curve::XyzzPoint<C> total;
  for (uint32_t w = layout.windows; w-- > 0;) {
    for (uint32_t i = 0; i < layout.window_bits; ++i) total = total.Double();
    total.Add(window_sums[w]);
  }
  return total;
}

}  // namespace provd::kernels
