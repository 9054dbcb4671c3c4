// The GPU MSM's algorithm as per-thread steps in plain constexpr C++ over prover_core's field and
// curve code. The CUDA kernels (msm_kernels.cuh) are thin wrappers that call these steps with a
// thread index, and msm_host_pipeline.hpp runs the same steps in loops on the host, so CI checks
// the GPU's algorithm against the CPU MSM without a GPU, and the device's field arithmetic is
// the CPU's own (nvcc --expt-relaxed-constexpr): results agree bit for bit by construction.
//
// Pipeline for n points and c-bit signed windows, W = ceil(257 / c) windows (all 256 bits of a
// scalar, so scalars >= r act modulo r exactly as on the CPU, plus the carry of the top digit):
//   1. digits      signed digits d_w of k_i in [-2^(c-1), 2^(c-1)] (msm::internal::SignedDigits's),
//                  a pair per point and window: key = w * 2^(c-1) + |d_w| - 1 (bucket b holds
//                  digit magnitude b + 1 of its window), value = i with the top bit set when
//                  d_w < 0; zero digits get the discard key, which sorts last  (W n pairs)
//   2. sort        the pairs by key (CUB's radix sort on the device)
//   3. runs        [begin, end) of every bucket's run in the sorted pairs
//   4. buckets     bucket (w, b) = sum of the points whose window-w digit is +-(b + 1), negated
//                  for -, in sub-runs of at most K points folded in a tree (4a-4e below)
//   5. segments    a window's 2^(c-1) buckets in segments of L: sum_b (b + 1) B_b over the
//                  segment
//   6. fold        log2(S) launches, each adding segment sums in pairs, until a window's sum
//                  sits in its first segment
//   7. windows     gathers those W sums for the download
//   8. host        Horner over the W window sums, c doublings apart
//
// Steps 5 and 6 are a tree, not a walk: one thread per window walking 2^c buckets is a chain of
// 2^(c+1) dependent additions (15 ms at c = 16 on an H200, more than the buckets' own step at
// 2^20 points), while segments of L = 16 and a fold keep the chain at about 2L + c + log2(S)
// additions and give tens of thousands of threads work.
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
  uint32_t windows = 0;          // W = ceil(257 / c)
  uint32_t segment_buckets = 0;  // L, a power of two dividing 2^(c-1)
  uint32_t sub_run_pairs = 0;    // K, the most pairs one thread of step 4 adds

  // Signed digits: a bucket per digit magnitude 1 .. 2^(c-1), the sign goes with the point.
  constexpr uint32_t buckets_per_window() const { return uint32_t{1} << (window_bits - 1); }
  constexpr uint32_t buckets() const { return windows * buckets_per_window(); }
  constexpr uint32_t segments_per_window() const { return buckets_per_window() / segment_buckets; }
  constexpr uint32_t segments() const { return windows * segments_per_window(); }
  constexpr uint64_t pairs() const { return uint64_t{windows} * points; }
  // The key of a zero digit's pair: past every bucket, so such pairs sort last and no run
  // includes them.
  constexpr uint32_t discard_key() const { return buckets(); }
  // Bits of a sort key (bucket or discard), for a radix sort that skips the rest.
  constexpr uint32_t key_bits() const {
    uint32_t bits = 1;
    while ((uint64_t{1} << bits) <= discard_key()) ++bits;
    return bits;
  }
};

inline constexpr uint32_t kMaxGpuWindowBits = 16;
inline constexpr uint32_t kSegmentBucketsLog = 4;
// Default K of step 4: measured on an H200 only at 32 (docs/gpu.md); CudaSessionOptions and
// gpu_bench's BM_MsmTuning take others.
inline constexpr uint32_t kSubRunPairs = 32;
// Sorted pairs are indexed with 32-bit integers (run bounds) and sorted with int-sized counts.
inline constexpr uint64_t kMaxMsmPairs = (uint64_t{1} << 31) - 1;
inline constexpr uint32_t kScalarBits = 256;
// A pair's value: the point's index, and this bit when its digit is negative (points are
// fewer than 2^31 per batch).
inline constexpr uint32_t kNegatedPoint = uint32_t{1} << 31;

// The layout for `points` points; window_bits = 0 picks the width (about log2(n) - 3, between
// 4 and 16: wide enough that bucket additions dominate, narrow enough that the W * 2^c buckets
// stay a fraction of the pairs); sub_run_pairs = 0 picks K (kSubRunPairs).
// INVALID_ARGUMENT for sizes the 32-bit indices cannot hold and for K outside 1..2^16.
inline absl::StatusOr<MsmLayout> PlanMsmLayout(uint64_t points, uint32_t window_bits = 0,
                                               uint32_t sub_run_pairs = 0) {
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
  if (sub_run_pairs == 0) sub_run_pairs = kSubRunPairs;
  if (sub_run_pairs > (uint32_t{1} << 16)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU MSM sub-runs of ", sub_run_pairs, " pairs: between 1 and 65536"));
  }
  MsmLayout layout;
  layout.points = static_cast<uint32_t>(points);
  layout.sub_run_pairs = sub_run_pairs;
  layout.window_bits = window_bits;
  // One bit more than the scalar's: a carry can leave the top signed digit.
  layout.windows = (kScalarBits + 1 + window_bits - 1) / window_bits;
  // L = 16: a short chain per segment thread; its cost is the multiplication by lo (c
  // doublings), shared by L buckets.
  const uint32_t log_buckets = window_bits - 1;
  layout.segment_buckets = uint32_t{1}
                           << (log_buckets < kSegmentBucketsLog ? log_buckets : kSegmentBucketsLog);
  if (layout.pairs() > kMaxMsmPairs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU MSM over ", points, " points with ", window_bits, "-bit windows: ", layout.pairs(),
        " digit pairs, more than the ", kMaxMsmPairs, " a batch can index"));
  }
  return layout;
}

// Step 1, thread per point: the point's W (key, value) pairs, window-major. The digits are the
// CPU MSM's (msm::internal::SignedDigits): a window's c bits plus the carry, taken as negative
// (and carrying 1 on) when above 2^(c-1). With W c >= 257 the last window cannot carry out.
constexpr void WriteDigitPairs(const MsmLayout& layout, const msm::Scalar& scalar, uint32_t point,
                               uint32_t* keys, uint32_t* values) {
  const uint32_t c = layout.window_bits;
  const uint32_t half = uint32_t{1} << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const uint64_t slot = uint64_t{w} * layout.points + point;
    const uint32_t raw = msm::ExtractBits(scalar, size_t{w} * c, c) + carry;
    const bool negative = raw > half;
    const uint32_t magnitude = negative ? (uint32_t{1} << c) - raw : raw;
    carry = negative ? 1 : 0;
    keys[slot] =
        magnitude == 0 ? layout.discard_key() : w * layout.buckets_per_window() + (magnitude - 1);
    values[slot] = point | (negative ? kNegatedPoint : 0);
  }
}

// Step 3, thread per sorted pair: records where the run of its bucket starts and ends. Buckets
// with no pair keep the begin = end = 0 the caller zeroed them to; discarded pairs have none.
constexpr void MarkRun(const MsmLayout& layout, const uint32_t* sorted_keys, uint64_t count,
                       uint64_t j, uint32_t* begins, uint32_t* ends) {
  const uint32_t key = sorted_keys[j];
  if (key >= layout.discard_key()) return;
  if (j == 0 || sorted_keys[j - 1] != key) begins[key] = static_cast<uint32_t>(j);
  if (j + 1 == count || sorted_keys[j + 1] != key) ends[key] = static_cast<uint32_t>(j + 1);
}

// Step 4: bucket sums, robust to skew. One thread per bucket would chain a bucket's additions:
// when many points share a digit (boolean witnesses all have scalar 1; a partial top window has
// a few buckets for all n points) one thread would add n points in a row while the GPU idles
// (a 2^16-point G2 MSM took 1.1 s). So a bucket's run of sorted pairs is cut into sub-runs of
// at most K pairs, a thread sums each, and the sub-run sums of a bucket are folded in a tree:
// the longest chain is K + log2(n / K) additions whatever the scalars.

// 4a, thread per bucket: the number of sub-runs of its run.
constexpr uint32_t SubRunCount(const MsmLayout& layout, uint32_t bucket, const uint32_t* begins,
                               const uint32_t* ends) {
  return (ends[bucket] - begins[bucket] + layout.sub_run_pairs - 1) / layout.sub_run_pairs;
}

// 4b (a scan, CUB's on the device): first_sub[b] = sum of the counts of the buckets before b.
// Threads of 4c and 4d are launched for this bound on the number of sub-runs; those past the
// actual total return at once.
constexpr uint64_t MaxSubRuns(const MsmLayout& layout) {
  return layout.pairs() / layout.sub_run_pairs + layout.buckets();
}
// A bucket has at most one pair per point, hence at most this many sub-runs (4d's strides).
constexpr uint32_t MaxSubRunsPerBucket(const MsmLayout& layout) {
  return (layout.points + layout.sub_run_pairs - 1) / layout.sub_run_pairs;
}

constexpr uint32_t TotalSubRuns(const MsmLayout& layout, const uint32_t* first_sub,
                                const uint32_t* counts) {
  return first_sub[layout.buckets() - 1] + counts[layout.buckets() - 1];
}

// 4c, thread per sub-run s: finds its bucket (the last with first_sub <= s: a bucket without
// sub-runs shares its first_sub with the next one, so the last is the one that has s), sums its
// at most K points into partial[s] and records the bucket in owner[s].
template <typename C>
constexpr void AccumulateSubRun(const MsmLayout& layout, uint32_t s,
                                const curve::AffinePoint<C>* points, const uint32_t* sorted_values,
                                const uint32_t* begins, const uint32_t* ends,
                                const uint32_t* first_sub, const uint32_t* counts, uint32_t* owner,
                                curve::XyzzPoint<C>* partial) {
  if (s >= TotalSubRuns(layout, first_sub, counts)) return;
  uint32_t lo = 0;
  uint32_t hi = layout.buckets();
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (first_sub[mid] <= s) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const uint32_t from = begins[lo] + (s - first_sub[lo]) * layout.sub_run_pairs;
  const uint32_t to =
      from + layout.sub_run_pairs < ends[lo] ? from + layout.sub_run_pairs : ends[lo];
  curve::XyzzPoint<C> sum;
  for (uint32_t j = from; j < to; ++j) {
    const uint32_t value = sorted_values[j];
    const curve::AffinePoint<C>& point = points[value & ~kNegatedPoint];
    sum.AddAffine((value & kNegatedPoint) != 0 ? -point : point);
  }
  partial[s] = sum;
  owner[s] = lo;
}

// 4d, launched for stride = 1, 2, 4, ... < MaxSubRunsPerBucket: thread per sub-run s adds
// sub-run s + stride of its bucket into s when s is the (2 stride m)-th of the bucket. After the
// last launch a bucket's sum is its first sub-run's.
template <typename C>
constexpr void FoldSubRuns(const MsmLayout& layout, uint32_t stride, uint32_t s,
                           const uint32_t* first_sub, const uint32_t* counts, const uint32_t* owner,
                           curve::XyzzPoint<C>* partial) {
  if (s >= TotalSubRuns(layout, first_sub, counts)) return;
  const uint32_t bucket = owner[s];
  const uint32_t piece = s - first_sub[bucket];
  if (piece % (2 * stride) != 0 || piece + stride >= counts[bucket]) return;
  partial[s].Add(partial[s + stride]);
}

// 4e: a bucket's sum, read where the fold left it (step 5 reads buckets through this).
template <typename C>
constexpr curve::XyzzPoint<C> BucketSum(uint32_t bucket, const uint32_t* first_sub,
                                        const uint32_t* counts,
                                        const curve::XyzzPoint<C>* partial) {
  return counts[bucket] != 0 ? partial[first_sub[bucket]] : curve::XyzzPoint<C>();
}

// Step 5, thread per segment s (window s / S, buckets [lo, lo + L) of it): sum_b (b + 1) B_b
// over the segment, as the running-sum walk sum_b (b - lo) B_b plus lo + 1 times the plain sum.
template <typename C>
constexpr curve::XyzzPoint<C> ReduceSegment(const MsmLayout& layout, uint32_t segment,
                                            const uint32_t* first_sub, const uint32_t* counts,
                                            const curve::XyzzPoint<C>* partial) {
  const uint32_t per_window = layout.segments_per_window();
  const uint32_t window = segment / per_window;
  const uint32_t lo = (segment % per_window) * layout.segment_buckets;
  const uint32_t b = window * layout.buckets_per_window() + lo;
  curve::XyzzPoint<C> running;
  curve::XyzzPoint<C> weighted;
  for (uint32_t d = layout.segment_buckets - 1; d > 0; --d) {
    running.Add(BucketSum<C>(b + d, first_sub, counts, partial));
    weighted.Add(running);  // B_d is counted once for every step from d down to 1: d times
  }
  running.Add(BucketSum<C>(b, first_sub, counts, partial));
  weighted.Add(lo == 0 ? running : curve::ScalarMul(running, field::BigInt<1>::FromUint64(lo + 1)));
  return weighted;
}

// Step 6, launched for stride = 1, 2, 4, ... < S: thread `item` of the
// windows * S / (2 stride) adds segment sum i + stride of its window into segment sum i
// (i a multiple of 2 stride). After the last launch a window's sum is its segment 0's.
constexpr uint32_t FoldItems(const MsmLayout& layout, uint32_t stride) {
  return layout.windows * (layout.segments_per_window() / (2 * stride));
}
template <typename C>
constexpr void FoldSegmentPair(const MsmLayout& layout, uint32_t stride, uint32_t item,
                               curve::XyzzPoint<C>* segment_sums) {
  const uint32_t pairs_per_window = layout.segments_per_window() / (2 * stride);
  curve::XyzzPoint<C>* window =
      segment_sums + uint64_t{item / pairs_per_window} * layout.segments_per_window();
  const uint32_t i = (item % pairs_per_window) * 2 * stride;
  window[i].Add(window[i + stride]);
}

// Step 7, thread per window, after the fold: the window's sum.
template <typename C>
constexpr curve::XyzzPoint<C> WindowSum(const MsmLayout& layout, uint32_t window,
                                        const curve::XyzzPoint<C>* segment_sums) {
  return segment_sums[uint64_t{window} * layout.segments_per_window()];
}

// Step 8, on the host: sum_w 2^(w c) window_w.
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
