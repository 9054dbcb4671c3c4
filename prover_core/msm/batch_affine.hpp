// Bucket accumulation in affine coordinates with batched inversions, the method of the fastest
// CPU MSMs (gnark-crypto's "batch affine", Aztec's barretenberg): adding P to an affine bucket B
// costs lambda = (y_P - y_B) / (x_P - x_B), x = lambda^2 - x_B - x_P, y = lambda (x_B - x) - y_B;
// with the denominators of a whole batch inverted at once (Montgomery's trick: 3 multiplications
// per element plus one shared inversion) that is about 5M + 1S per addition, against 8M + 2S for
// a mixed XYZZ addition.
//
// A bucket may take part in one addition per batch. A second addition to a bucket that is busy
// in the current batch goes into that bucket's XYZZ overflow instead (8M + 2S, no waiting, no
// queue): the cost stays linear whatever the digits are, even when every point hits one bucket.
// Doubling and cancellation (P = +-B) are rare and go through XYZZ too.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"

namespace provd::msm::internal {

// Prefetches every cache line of `object` (for writing: the MSM's buckets are updated in place).
template <typename T>
inline void PrefetchLines(const T& object) {
  const char* p = reinterpret_cast<const char*>(&object);
  for (size_t offset = 0; offset < sizeof(T); offset += 64) __builtin_prefetch(p + offset, 1);
  __builtin_prefetch(p + sizeof(T) - 1, 1);
}

template <typename C>
class BatchAffineBuckets {
 public:
  using Field = typename C::Field;
  using Affine = curve::AffinePoint<C>;
  using Xyzz = curve::XyzzPoint<C>;

  // `points` must outlive this object: the batch keeps addresses into it, not copies.
  BatchAffineBuckets(size_t buckets, size_t batch, std::span<const Affine> points)
      : points_(points), bucket_(buckets), overflow_(buckets), busy_(buckets, 0), batch_(batch) {
    pending_.reserve(batch);
    denominators_.reserve(batch);
    prefix_.reserve(batch);
  }

  // bucket[index] += points[point], or -= when `negate`.
  void Add(size_t index, size_t point, bool negate) {
    const Affine& q = points_[point];
    if (q.infinity) return;
    // The paths below the batch are rare (a busy bucket, an empty one, equal x): a signed copy
    // of q costs nothing there.
    if (busy_[index] != 0) {
      overflow_[index].AddAffine(negate ? -q : q);
      return;
    }
    Affine& b = bucket_[index];
    if (b.infinity) {
      b = negate ? -q : q;
      return;
    }
    if (b.x == q.x) {
      // Doubling or cancellation: rare, so one inversion through XYZZ is fine.
      Xyzz sum(b);
      sum.AddAffine(negate ? -q : q);
      b = sum.ToAffine();
      return;
    }
    busy_[index] = 1;
    pending_.push_back({index, &q, negate});
    denominators_.push_back(q.x - b.x);
    if (pending_.size() == batch_) Flush();
  }

  // Starts loading what Add(index, ...) will touch (see kBucketPrefetchDistance).
  void Prefetch(size_t index) const {
    __builtin_prefetch(&busy_[index]);
    PrefetchLines(bucket_[index]);
  }

  // Completes the pending batch; the buckets are final afterwards.
  void Finish() { Flush(); }

  // sum_b (b + 1) * bucket[b], as a running sum from the top bucket down. After Finish().
  Xyzz WeightedSum() const {
    Xyzz running;
    Xyzz total;
    for (size_t b = bucket_.size(); b-- > 0;) {
      AddBucketTo(b, running);
      total.Add(running);
    }
    return total;
  }

 private:
  // acc += bucket[index] (its affine part and its overflow).
  void AddBucketTo(size_t index, Xyzz& acc) const {
    acc.AddAffine(bucket_[index]);
    acc.Add(overflow_[index]);
  }

  void Flush() {
    const size_t m = pending_.size();
    if (m == 0) return;
    // Montgomery's trick: prefix products, one inversion, walk back.
    prefix_.resize(m);
    Field acc = Field::One();
    for (size_t i = 0; i < m; ++i) {
      prefix_[i] = acc;
      acc *= denominators_[i];
    }
    Field inv = acc.Inverse();
    for (size_t i = m; i-- > 0;) {
      // The batch's points and buckets were read a whole batch ago and have mostly left L2.
      if (i >= kPrefetchDistance) {
        const Pending& ahead = pending_[i - kPrefetchDistance];
        PrefetchLines(*ahead.point);
        PrefetchLines(bucket_[ahead.bucket]);
      }
      const Field inv_d = inv * prefix_[i];
      inv *= denominators_[i];
      const Pending& job = pending_[i];
      Affine& b = bucket_[job.bucket];
      const Field q_y = job.negate ? -job.point->y : job.point->y;
      const Field lambda = (q_y - b.y) * inv_d;
      const Field x3 = lambda.Square() - b.x - job.point->x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
      busy_[job.bucket] = 0;
    }
    pending_.clear();
    denominators_.clear();
  }

  // Additions of a batch ahead of the one being finished whose operands Flush prefetches.
  static constexpr size_t kPrefetchDistance = 4;

  std::span<const Affine> points_;
  std::vector<Affine> bucket_;
  std::vector<Xyzz> overflow_;
  std::vector<uint8_t> busy_;
  const size_t batch_;
  // An addition waiting for the batch's inversion.
  struct Pending {
    size_t bucket;
    const Affine* point;
    bool negate;
  };
  std::vector<Pending> pending_;
  std::vector<Field> denominators_;
  std::vector<Field> prefix_;
};

}  // namespace provd::msm::internal
