// Multi-scalar multiplication sum_i k_i * P_i by Pippenger's bucket method with signed digits,
// multi-threaded on the process pool, over affine input points. One implementation for every
// curve and group (instantiated in msm_<curve>.cpp).
//
// Scalars are 256-bit integers in normal form (snarkjs's witness values); values >= r are
// allowed and act modulo r, as the group has order r.
//
// Chunking: the MSM over n points is the sum of the MSMs over any partition of the points into
// ranges. ChunkedMsm (chunked_msm.hpp) exposes that so a round can stop after any chunk and
// resume on another device, keeping the partial sum it already has.
//
// Not constant-time: bucket indices depend on the scalars (accepted for proving; see
// field/montgomery_field.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/bigint.hpp"
#include "prover_core/msm/batch_affine.hpp"
#include "prover_core/msm/batch_affine_ifma.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::msm {

using Scalar = field::BigInt<4>;

enum class BucketAccumulation {
  kAuto,         // batch-affine for wide windows, XYZZ otherwise
  kXyzz,         // mixed additions into XYZZ buckets
  kBatchAffine,  // affine buckets with batched inversions (batch_affine.hpp)
};

struct MsmOptions {
  // Window width c in bits; 0 picks it from the size and the pool (ChooseWindowBits).
  size_t window_bits = 0;
  BucketAccumulation accumulation = BucketAccumulation::kAuto;
  // Points per pass: the signed digits of a pass take 4 bytes per point and window (80 MiB for
  // 2^20 points), so larger inputs run as several passes whose sums add up.
  size_t max_points_per_pass = size_t{1} << 20;
  // Batch-affine buckets do their field arithmetic in AVX-512 IFMA lanes where the CPU has them
  // (batch_affine_ifma.hpp); false keeps them on the scalar path (tests, comparisons).
  bool use_avx512_ifma = true;
};

// Batch-affine pays once a batch can be large against the inversion it shares (about 100
// multiplications' worth) while rarely hitting one bucket twice: with 2^(c-1) buckets and
// batches of a quarter of them, from c = 12 on.
inline constexpr size_t kMinBatchAffineWindowBits = 12;
inline constexpr size_t kMaxAffineBatch = 2048;

// The window width minimizing the modelled cost for n points on `threads` threads: each of the
// W = ceil((bits + 1) / c) windows costs n bucket additions plus 2^c additions to reduce its
// buckets, once per slice of points that runs in parallel.
size_t ChooseWindowBits(size_t n, size_t threads, size_t scalar_bits = 256);

// Bits [offset, offset + width) of `k` (width <= 32; bits past 256 are zero).
constexpr uint32_t ExtractBits(const Scalar& k, size_t offset, size_t width) {
  const size_t limb = offset / 64;
  const size_t shift = offset % 64;
  if (limb >= 4) return 0;
  uint64_t v = k.limbs[limb] >> shift;
  if (shift != 0 && shift + width > 64 && limb + 1 < 4) v |= k.limbs[limb + 1] << (64 - shift);
  return static_cast<uint32_t>(v & ((uint64_t{1} << width) - 1));
}

// INVALID_ARGUMENT for options the kernel cannot run: windows wider than 20 bits (digits and
// bucket tables are sized for that), or passes of no points.
absl::Status ValidateMsmOptions(const MsmOptions& options);

// The MSM over all given points: the untrusted-size entry point. INVALID_ARGUMENT when the
// spans differ in length or the options are invalid.
template <typename C>
absl::StatusOr<curve::XyzzPoint<C>> Msm(std::span<const curve::AffinePoint<C>> points,
                                        std::span<const Scalar> scalars, ThreadPool& pool,
                                        MsmOptions options = {});

// The kernel: sizes must match and the options be valid (checked by the callers above).
template <typename C>
curve::XyzzPoint<C> PippengerMsm(std::span<const curve::AffinePoint<C>> points,
                                 std::span<const Scalar> scalars, ThreadPool& pool,
                                 MsmOptions options = {});

// ---------------------------------------------------------------------------------------------
// Implementation.

namespace internal {

// Signed base-2^c digits of one scalar, d_0 + d_1 2^c + ... with d_j in [-2^(c-1), 2^(c-1)]:
// half the buckets of unsigned digits, since -d*P uses the bucket of d with P negated.
inline void SignedDigits(const Scalar& k, size_t c, size_t windows, int32_t* out, size_t stride) {
  const uint32_t half = uint32_t{1} << (c - 1);
  const int64_t full = int64_t{1} << c;
  uint32_t carry = 0;
  for (size_t w = 0; w < windows; ++w) {
    uint32_t raw = ExtractBits(k, w * c, c) + carry;
    if (raw > half) {
      out[w * stride] = static_cast<int32_t>(static_cast<int64_t>(raw) - full);
      carry = 1;
    } else {
      out[w * stride] = static_cast<int32_t>(raw);
      carry = 0;
    }
  }
}

// How many points ahead the accumulation loops prefetch their bucket. Buckets are picked at
// random from a table larger than L2 (2^15 XYZZ buckets of G1 are 4 MiB), so without it every
// addition starts with a cache miss; one addition takes far longer than a miss, so a few points
// of lead hide it.
inline constexpr size_t kBucketPrefetchDistance = 4;

// The bucket index of a nonzero signed digit (bucket b holds the points of digit +-(b + 1)).
inline size_t BucketOf(int32_t digit) {
  return static_cast<size_t>(digit < 0 ? -static_cast<int64_t>(digit) : digit) - 1;
}

}  // namespace internal

template <typename C>
curve::XyzzPoint<C> PippengerMsm(std::span<const curve::AffinePoint<C>> points,
                                 std::span<const Scalar> scalars, ThreadPool& pool,
                                 MsmOptions options) {
  using Xyzz = curve::XyzzPoint<C>;
  const size_t n = points.size();
  if (n == 0) return Xyzz();
  const size_t pass = std::max<size_t>(1, options.max_points_per_pass);
  if (n > pass) {
    Xyzz sum;
    for (size_t begin = 0; begin < n; begin += pass) {
      const size_t len = std::min(pass, n - begin);
      sum.Add(
          PippengerMsm<C>(points.subspan(begin, len), scalars.subspan(begin, len), pool, options));
    }
    return sum;
  }

  size_t scalar_bits = 0;
  for (const Scalar& k : scalars) scalar_bits = std::max(scalar_bits, k.BitLength());
  if (scalar_bits == 0) return Xyzz();

  const size_t c = options.window_bits != 0 ? options.window_bits
                                            : ChooseWindowBits(n, pool.size(), scalar_bits);
  // One extra bit for the carry out of the top signed digit.
  const size_t windows = (scalar_bits + 1 + c - 1) / c;
  const size_t buckets = size_t{1} << (c - 1);
  const size_t slices = std::max<size_t>(1, (2 * pool.size() + windows - 1) / windows);
  const size_t slice_len = (n + slices - 1) / slices;

  // digits[w * n + i]: window-major, so each task reads its window contiguously. Every entry is
  // written below, so the array is left uninitialized (zeroing 4 bytes per point and window
  // was a pass over tens of MB of its own).
  const std::unique_ptr<int32_t[]> digits(new int32_t[windows * n]);
  pool.ParallelForRange(n, 1024, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      internal::SignedDigits(scalars[i], c, windows, &digits[i], n);
    }
  });

  const bool batch_affine = options.accumulation == BucketAccumulation::kBatchAffine ||
                            (options.accumulation == BucketAccumulation::kAuto &&
                             c >= kMinBatchAffineWindowBits && slice_len >= 4 * buckets);
  const size_t batch = std::max<size_t>(1, std::min(kMaxAffineBatch, buckets / 4));

#if PROVD_HAVE_IFMA
  // The points in the lanes' form, converted once for all windows.
  std::optional<internal::LanePoints<C>> lane_points;
  if (batch_affine || options.accumulation == BucketAccumulation::kBatchAffine) {
    if (options.use_avx512_ifma && field::ifma::kIfmaAvailable) lane_points.emplace(points, pool);
  }
#endif

  std::vector<Xyzz> partial(windows * slices);
  pool.ParallelFor(windows * slices, [&](size_t task) {
    const size_t w = task / slices;
    const size_t s = task % slices;
    const size_t begin = s * slice_len;
    const size_t end = std::min(n, begin + slice_len);
    const int32_t* d = &digits[w * n];
    // sum_b (b+1) * bucket[b] as a running sum from the top bucket down.
    Xyzz running;
    Xyzz total;
    // In kAuto, the top window, which holds only the few highest scalar bits, accumulates in
    // XYZZ: with so few distinct digits a batch would mostly collide.
    const size_t window_bits = std::min(c, scalar_bits + 1 - std::min(scalar_bits + 1, w * c));
    const bool affine_here = options.accumulation == BucketAccumulation::kBatchAffine ||
                             (batch_affine && window_bits >= kMinBatchAffineWindowBits);
    auto accumulate_affine = [&](auto& bucket) {
      for (size_t i = begin; i < end; ++i) {
        if (i + internal::kBucketPrefetchDistance < end) {
          const int32_t ahead = d[i + internal::kBucketPrefetchDistance];
          if (ahead != 0) bucket.Prefetch(internal::BucketOf(ahead));
        }
        const int32_t digit = d[i];
        if (digit != 0) bucket.Add(internal::BucketOf(digit), i, digit < 0);
      }
      bucket.Finish();
      total = bucket.WeightedSum();
    };
    bool in_lanes = false;
#if PROVD_HAVE_IFMA
    if (affine_here && lane_points.has_value()) {
      internal::IfmaBatchAffineBuckets<C> bucket(buckets, batch, points, *lane_points);
      accumulate_affine(bucket);
      in_lanes = true;
    }
#endif
    if (in_lanes) {
      // accumulated above
    } else if (affine_here) {
      internal::BatchAffineBuckets<C> bucket(buckets, batch, points);
      accumulate_affine(bucket);
    } else {
      std::vector<Xyzz> bucket(buckets);
      for (size_t i = begin; i < end; ++i) {
        if (i + internal::kBucketPrefetchDistance < end) {
          const int32_t ahead = d[i + internal::kBucketPrefetchDistance];
          if (ahead != 0) internal::PrefetchLines(bucket[internal::BucketOf(ahead)]);
        }
        const int32_t digit = d[i];
        if (digit > 0) {
          bucket[static_cast<size_t>(digit) - 1].AddAffine(points[i]);
        } else if (digit < 0) {
          bucket[static_cast<size_t>(-digit) - 1].SubAffine(points[i]);
        }
      }
      for (size_t b = buckets; b-- > 0;) {
        running.Add(bucket[b]);
        total.Add(running);
      }
    }
    partial[task] = total;
  });

  // Horner over the windows: acc = sum_w window_w * 2^(c w).
  Xyzz acc;
  for (size_t w = windows; w-- > 0;) {
    for (size_t i = 0; i < c && !acc.IsInfinity(); ++i) acc = acc.Double();
    for (size_t s = 0; s < slices; ++s) acc.Add(partial[w * slices + s]);
  }
  return acc;
}

template <typename C>
absl::StatusOr<curve::XyzzPoint<C>> Msm(std::span<const curve::AffinePoint<C>> points,
                                        std::span<const Scalar> scalars, ThreadPool& pool,
                                        MsmOptions options) {
  if (points.size() != scalars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(C::kName, " MSM: ", points.size(),
                                                   " points but ", scalars.size(), " scalars"));
  }
  if (absl::Status s = ValidateMsmOptions(options); !s.ok()) return s;
  return PippengerMsm<C>(points, scalars, pool, options);
}

}  // namespace provd::msm
