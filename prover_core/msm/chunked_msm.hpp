// An MSM split into chunks of consecutive points. Partial sums of chunks add up to the whole
// MSM exactly (it is a sum of group elements), so a caller may run some chunks on a GPU, stop
// after any chunk, and hand the rest to the CPU without losing the chunks already done: the
// state to carry over is one group element and the index of the next chunk.
#pragma once

#include <algorithm>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "prover_core/msm/pippenger.hpp"

namespace provd::msm {

struct PointRange {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end - begin; }
};

template <typename C>
class ChunkedMsm {
 public:
  using Xyzz = curve::XyzzPoint<C>;

  // `n` points in chunks of `chunk_points` (the last one may be shorter). chunk_points = 0
  // means a single chunk.
  ChunkedMsm(size_t n, size_t chunk_points)
      : n_(n), chunk_points_(chunk_points == 0 ? std::max<size_t>(n, 1) : chunk_points) {}

  size_t chunk_count() const { return (n_ + chunk_points_ - 1) / chunk_points_; }
  PointRange chunk(size_t index) const {
    size_t begin = index * chunk_points_;
    return {begin, std::min(n_, begin + chunk_points_)};
  }
  size_t next_chunk() const { return next_; }
  bool done() const { return next_ >= chunk_count(); }

  // Adds the partial sum of chunk next_chunk(), computed by any backend, and moves on.
  void Accept(const Xyzz& partial) {
    sum_.Add(partial);
    ++next_;
  }

  // Continues an MSM of which the first `chunks_done` chunks summed to `sum` (saved by an
  // earlier attempt): the state a chunk boundary needs.
  void Resume(size_t chunks_done, const Xyzz& sum) {
    next_ = std::min(chunks_done, chunk_count());
    sum_ = sum;
  }

  // Computes chunk next_chunk() on the CPU and accepts it.
  absl::Status RunNextOnCpu(std::span<const curve::AffinePoint<C>> points,
                            std::span<const Scalar> scalars, ThreadPool& pool,
                            MsmOptions options = {}) {
    if (points.size() != n_ || scalars.size() != n_) {
      return absl::InvalidArgumentError(absl::StrCat(C::kName, " chunked MSM over ", n_,
                                                     " points given ", points.size(),
                                                     " points and ", scalars.size(), " scalars"));
    }
    if (done()) return absl::FailedPreconditionError("chunked MSM: every chunk already ran");
    if (absl::Status s = ValidateMsmOptions(options); !s.ok()) return s;
    PointRange r = chunk(next_);
    Accept(PippengerMsm<C>(points.subspan(r.begin, r.size()), scalars.subspan(r.begin, r.size()),
                           pool, options));
    return absl::OkStatus();
  }

  // The sum of the chunks accepted so far (the MSM once done()).
  const Xyzz& sum() const { return sum_; }

 private:
  size_t n_;
  size_t chunk_points_;
  size_t next_ = 0;
  Xyzz sum_;
};

}  // namespace provd::msm
