// Batch-affine bucket accumulation (batch_affine.hpp) with the field arithmetic of a batch in
// eight AVX-512 IFMA lanes (field/ifma_field.hpp): the additions of a batch are independent, so
// lane l takes additions l, l + 8, l + 16, ... and the eight prefix-product chains of
// Montgomery's trick share one eight-lane inversion.
//
// The points and the buckets are kept in the lanes' representation (canonical, radix 2^52,
// Montgomery radix 2^(52K)): the points are converted once per MSM (LanePoints), which costs
// two lane products per point against the windows' 2 * 256 / c lane products per point, and
// the buckets go back to the scalar field only for the bucket reduction.
//
// A bucket that is busy in the current batch does not stall the batch: the addition waits for
// the next batch (deferred once), and if its bucket is busy again then, or the deferred list is
// full, it goes into the bucket's XYZZ overflow, as in batch_affine.hpp. Equal x (doubling or
// cancellation) goes through XYZZ too. So the cost stays linear whatever the digits are.
//
// One implementation for G1 and G2: field/ifma_extension.hpp gives Fq2 the same lane interface
// as the prime fields.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/ifma_extension.hpp"
#include "prover_core/msm/batch_affine.hpp"
#include "prover_core/msm/lane_bucket_sum.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::msm::internal {

#if PROVD_HAVE_IFMA

// The MSM's points in lane form: point i is x then y, K limbs each, at limbs() + i * kStride.
template <typename C>
class LanePoints {
 public:
  using Field = typename C::Field;
  using LF = field::ifma::LaneField<Field>;
  using Base = typename LF::Base;
  using R = field::ifma::Radix52<Base>;
  using BaseOps = field::ifma::LaneOps<Base>;
  static constexpr size_t K = R::K;
  static constexpr size_t kCoordinateLimbs = LF::kDegree * K;
  static constexpr size_t kStride = 2 * kCoordinateLimbs;

  // Every limb is written by ConvertGroup: the storage starts uninitialized.
  LanePoints(std::span<const curve::AffinePoint<C>> points, ThreadPool& pool)
      : limbs_(new uint64_t[points.size() * kStride]) {
    const size_t groups = (points.size() + 7) / 8;
    pool.ParallelForRange(groups, 64, [&](size_t begin, size_t end) {
      for (size_t g = begin; g < end; ++g) ConvertGroup(points, g);
    });
  }

  const uint64_t* limbs() const { return limbs_.get(); }

 private:
  // Eight points at a time: each base-field component of x and y repacked into a block, moved
  // into the lanes' Montgomery radix by one lane product, and written back per point.
  PROVD_IFMA_TARGET void ConvertGroup(std::span<const curve::AffinePoint<C>> points, size_t g) {
    const size_t first = 8 * g;
    const size_t lanes = std::min<size_t>(8, points.size() - first);
    constexpr size_t kComponents = 2 * LF::kDegree;  // x's components, then y's
    field::ifma::LaneBlock<Base> block[kComponents] = {};
    for (size_t l = 0; l < lanes; ++l) {
      const auto& p = points[first + l];
      for (size_t c = 0; c < kComponents; ++c) {
        const Field& coordinate = c < LF::kDegree ? p.x : p.y;
        const auto limbs =
            field::ifma::ToRadix52<K>(LF::Component(coordinate, c % LF::kDegree).Montgomery());
        for (size_t j = 0; j < K; ++j) block[c].limb[j][l] = limbs[j];
      }
    }
    const auto to_lanes = BaseOps::Broadcast(R::kToLanes);
    for (auto& b : block) {
      BaseOps::Store(b, BaseOps::Canonical(BaseOps::Mul(BaseOps::Load(b), to_lanes)));
    }
    for (size_t l = 0; l < lanes; ++l) {
      uint64_t* out = limbs_.get() + (first + l) * kStride;
      for (size_t c = 0; c < kComponents; ++c) {
        for (size_t j = 0; j < K; ++j) out[c * K + j] = block[c].limb[j][l];
      }
    }
  }

  std::unique_ptr<uint64_t[]> limbs_;
};

template <typename C>
class IfmaBatchAffineBuckets {
 public:
  using Field = typename C::Field;
  using Ops = typename field::ifma::LaneField<Field>::Ops;
  using Block = typename Ops::Block;
  using Affine = curve::AffinePoint<C>;
  using Xyzz = curve::XyzzPoint<C>;
  static constexpr size_t kCoordinateLimbs = Ops::kElementLimbs;
  static constexpr size_t kStride = 2 * kCoordinateLimbs;
  static_assert(kStride == LanePoints<C>::kStride);

  // `points` and `lane_points` are the same points; both must outlive this object.
  IfmaBatchAffineBuckets(size_t buckets, size_t batch, std::span<const Affine> points,
                         const LanePoints<C>& lane_points)
      : points_(points),
        lane_points_(lane_points.limbs()),
        bucket_(buckets * kStride),
        empty_(buckets, 1),
        busy_(buckets, 0),
        overflow_(buckets),
        batch_(batch),
        denominator_((batch + 7) / 8),
        prefix_((batch + 7) / 8) {
    pending_bucket_.reserve(batch);
    pending_point_.reserve(batch);
    pending_negate_.reserve(batch);
    deferred_.reserve(batch);
  }

  // bucket[index] += points[point], or -= when `negate`.
  void Add(size_t index, size_t point, bool negate) {
    Push(index, point, negate, /*may_defer=*/true);
    if (pending_bucket_.size() >= batch_ || deferred_.size() >= batch_) Flush(/*finishing=*/false);
  }

  void Prefetch(size_t index) const {
    __builtin_prefetch(&busy_[index]);
    __builtin_prefetch(&bucket_[index * kStride], 1);
    __builtin_prefetch(&bucket_[index * kStride + kStride - 1], 1);
  }

  // Completes every pending and deferred addition; the buckets are final afterwards.
  void Finish() { Flush(/*finishing=*/true); }

  // sum_b (b + 1) * bucket[b], after Finish(): the overflows folded into their buckets (one
  // shared inversion), then the running sums in lanes (lane_bucket_sum.hpp) where there are
  // enough buckets for eight segments.
  Xyzz WeightedSum() {
    FoldOverflows();
    const size_t buckets = empty_.size();
    if (buckets >= kMinLaneReductionBuckets) {
      return LaneBucketSum<C>::WeightedSum(bucket_.data(), empty_.data(), buckets);
    }
    Xyzz running;
    Xyzz total;
    for (size_t b = buckets; b-- > 0;) {
      if (empty_[b] == 0) running.AddAffine(ToAffine(&bucket_[b * kStride]));
      total.Add(running);
    }
    return total;
  }

 private:
  struct Deferred {
    size_t bucket;
    size_t point;
    bool negate;
  };

  static Affine ToAffine(const uint64_t* limbs) { return LaneAffineToScalar<C>(limbs); }
  static void FromAffine(const Affine& p, uint64_t* limbs) {
    field::ifma::ScalarToLaneCoordinate(p.x, limbs);
    field::ifma::ScalarToLaneCoordinate(p.y, limbs + kCoordinateLimbs);
  }
  // Below this, segments of fewer than 8 buckets do not pay for the lanes' set-up.
  static constexpr size_t kMinLaneReductionBuckets = 64;

  // bucket[b] += overflow[b] for every nonempty overflow, through one batch inversion.
  void FoldOverflows() {
    std::vector<size_t> index;
    std::vector<Xyzz> sum;
    for (size_t b = 0; b < overflow_.size(); ++b) {
      if (overflow_[b].IsInfinity()) continue;
      Xyzz s = overflow_[b];
      if (empty_[b] == 0) s.AddAffine(ToAffine(&bucket_[b * kStride]));
      index.push_back(b);
      sum.push_back(s);
      overflow_[b] = Xyzz();
    }
    std::vector<Affine> affine(sum.size());
    curve::BatchToAffine<C>(sum, affine);
    for (size_t i = 0; i < index.size(); ++i) {
      empty_[index[i]] = affine[i].infinity ? 1 : 0;
      if (!affine[i].infinity) FromAffine(affine[i], &bucket_[index[i] * kStride]);
    }
  }

  Affine SignedPoint(size_t point, bool negate) const {
    return negate ? -points_[point] : points_[point];
  }

  void Push(size_t index, size_t point, bool negate, bool may_defer) {
    if (points_[point].infinity) return;
    if (busy_[index] != 0) {
      if (may_defer) {
        deferred_.push_back({index, point, negate});
      } else {
        overflow_[index].AddAffine(SignedPoint(point, negate));
      }
      return;
    }
    uint64_t* b = &bucket_[index * kStride];
    const uint64_t* q = lane_points_ + point * kStride;
    if (empty_[index] != 0) {
      std::memcpy(b, q, kCoordinateLimbs * sizeof(uint64_t));
      if (negate) {
        field::ifma::NegateLaneCoordinate<Field>(q + kCoordinateLimbs, b + kCoordinateLimbs);
      } else {
        std::memcpy(b + kCoordinateLimbs, q + kCoordinateLimbs,
                    kCoordinateLimbs * sizeof(uint64_t));
      }
      empty_[index] = 0;
      return;
    }
    if (std::memcmp(b, q, kCoordinateLimbs * sizeof(uint64_t)) == 0) {
      // Equal x: doubling or cancellation, rare; through XYZZ and one inversion.
      Xyzz sum(ToAffine(b));
      sum.AddAffine(SignedPoint(point, negate));
      if (sum.IsInfinity()) {
        empty_[index] = 1;
      } else {
        FromAffine(sum.ToAffine(), b);
      }
      return;
    }
    busy_[index] = 1;
    pending_bucket_.push_back(static_cast<int64_t>(index * kStride));
    pending_point_.push_back(static_cast<int64_t>(point * kStride));
    pending_negate_.push_back(negate ? 1 : 0);
  }

  void Flush(bool finishing) {
    do {
      ProcessBatch();
      replay_.swap(deferred_);
      for (const Deferred& d : replay_) Push(d.bucket, d.point, d.negate, /*may_defer=*/false);
      replay_.clear();
    } while (pending_bucket_.size() >= batch_ || (finishing && !pending_bucket_.empty()));
  }

  // The pending additions, eight lanes at a time: Montgomery's trick per lane, one inversion.
  PROVD_IFMA_TARGET void ProcessBatch() {
    const size_t m = pending_bucket_.size();
    if (m == 0) return;
    const size_t groups = (m + 7) / 8;
    const auto one = Ops::One();
    const auto zero = Ops::Zero();
    auto acc = one;
    for (size_t g = 0; g < groups; ++g) {
      const __mmask8 active = ActiveLanes(m, g);
      const __m512i b = _mm512_maskz_loadu_epi64(active, &pending_bucket_[8 * g]);
      const __m512i q = _mm512_maskz_loadu_epi64(active, &pending_point_[8 * g]);
      // Idle lanes get 1 - 0: the chain must not meet a zero.
      const auto bx = Ops::Gather(bucket_.data(), b, active, zero);
      const auto qx = Ops::Gather(lane_points_, q, active, one);
      const auto d = Ops::SubLazy(qx, bx);
      Ops::Store(denominator_[g], d);
      Ops::Store(prefix_[g], acc);
      acc = Ops::Mul(acc, d);
    }
    auto inv = Ops::Inverse(acc);
    for (size_t g = groups; g-- > 0;) {
      const __mmask8 active = ActiveLanes(m, g);
      const auto inv_d = Ops::Mul(inv, Ops::Load(prefix_[g]));
      inv = Ops::Mul(inv, Ops::Load(denominator_[g]));
      const __m512i b = _mm512_maskz_loadu_epi64(active, &pending_bucket_[8 * g]);
      const __m512i q = _mm512_maskz_loadu_epi64(active, &pending_point_[8 * g]);
      const auto bx = Ops::Gather(bucket_.data(), b, active, zero);
      const auto by = Ops::Gather(bucket_.data() + kCoordinateLimbs, b, active, zero);
      const auto qx = Ops::Gather(lane_points_, q, active, zero);
      auto qy = Ops::Gather(lane_points_ + kCoordinateLimbs, q, active, zero);
      __mmask8 negate = 0;
      for (size_t l = 0; l < 8 && 8 * g + l < m; ++l) {
        negate |= static_cast<__mmask8>(pending_negate_[8 * g + l] << l);
      }
      qy = Ops::Select(negate, Ops::Neg(qy), qy);
      const auto lambda = Ops::Mul(Ops::SubLazy(qy, by), inv_d);
      const auto x3 = Ops::Canonical(Ops::Sub(Ops::Sub(Ops::Square(lambda), bx), qx));
      const auto y3 = Ops::Sub(Ops::Mul(lambda, Ops::SubLazy(bx, x3)), by);
      Ops::Scatter(bucket_.data(), b, active, x3);
      Ops::Scatter(bucket_.data() + kCoordinateLimbs, b, active, Ops::Canonical(y3));
    }
    for (int64_t b : pending_bucket_) busy_[static_cast<size_t>(b) / kStride] = 0;
    pending_bucket_.clear();
    pending_point_.clear();
    pending_negate_.clear();
  }

  static __mmask8 ActiveLanes(size_t m, size_t group) {
    const size_t left = m - 8 * group;
    return left >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << left) - 1);
  }

  std::span<const Affine> points_;
  const uint64_t* lane_points_;
  std::vector<uint64_t> bucket_;  // bucket b: x then y at b * kStride, canonical lane form
  std::vector<uint8_t> empty_;
  std::vector<uint8_t> busy_;
  std::vector<Xyzz> overflow_;
  const size_t batch_;
  // The batch, as offsets (in limbs) into bucket_ and the lane points.
  std::vector<int64_t> pending_bucket_;
  std::vector<int64_t> pending_point_;
  std::vector<uint8_t> pending_negate_;
  std::vector<Deferred> deferred_;
  std::vector<Deferred> replay_;
  std::vector<Block> denominator_;
  std::vector<Block> prefix_;
};

#endif  // PROVD_HAVE_IFMA

}  // namespace provd::msm::internal
