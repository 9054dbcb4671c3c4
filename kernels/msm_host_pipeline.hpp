// The GPU MSM pipeline (msm_steps.hpp) walked through on the host, one "thread" after another,
// with std::stable_sort in place of the device's radix sort. It exists so that CI, which has no
// GPU, checks the algorithm the kernels run against the CPU MSM: the kernels call the same
// steps with the same indices. Not a fast path; nothing in the prover uses it.
#pragma once

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include "kernels/msm_steps.hpp"

namespace provd::kernels {

template <typename C>
absl::StatusOr<curve::XyzzPoint<C>> RunMsmPipelineOnHost(
    std::span<const curve::AffinePoint<C>> points, std::span<const msm::Scalar> scalars,
    uint32_t window_bits = 0, uint32_t sub_run_pairs = 0) {
  using Xyzz = curve::XyzzPoint<C>;
  if (points.size() != scalars.size()) {
    return absl::InvalidArgumentError("host MSM pipeline: points and scalars differ in number");
  }
  if (points.empty()) return Xyzz();
  absl::StatusOr<MsmLayout> layout_or = PlanMsmLayout(points.size(), window_bits, sub_run_pairs);
  if (!layout_or.ok()) return layout_or.status();
  const MsmLayout layout = *layout_or;

  std::vector<uint32_t> keys(layout.pairs());
  std::vector<uint32_t> values(layout.pairs());
  for (uint32_t i = 0; i < layout.points; ++i) {
    WriteDigitPairs(layout, scalars[i], i, keys.data(), values.data());
  }

  std::vector<uint64_t> order(layout.pairs());
  std::iota(order.begin(), order.end(), uint64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint64_t a, uint64_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> sorted_keys(layout.pairs());
  std::vector<uint32_t> sorted_values(layout.pairs());
  for (uint64_t j = 0; j < layout.pairs(); ++j) {
    sorted_keys[j] = keys[order[j]];
    sorted_values[j] = values[order[j]];
  }

  std::vector<uint32_t> begins(layout.buckets(), 0);
  std::vector<uint32_t> ends(layout.buckets(), 0);
  for (uint64_t j = 0; j < layout.pairs(); ++j) {
    MarkRun(layout, sorted_keys.data(), layout.pairs(), j, begins.data(), ends.data());
  }

  std::vector<uint32_t> counts(layout.buckets());
  for (uint32_t b = 0; b < layout.buckets(); ++b) {
    counts[b] = SubRunCount(layout, b, begins.data(), ends.data());
  }
  std::vector<uint32_t> first_sub(layout.buckets());
  std::exclusive_scan(counts.begin(), counts.end(), first_sub.begin(), uint32_t{0});
  std::vector<uint32_t> owner(MaxSubRuns(layout));
  std::vector<Xyzz> partial(MaxSubRuns(layout));
  for (uint32_t s = 0; s < MaxSubRuns(layout); ++s) {
    AccumulateSubRun<C>(layout, s, points.data(), sorted_values.data(), begins.data(), ends.data(),
                        first_sub.data(), counts.data(), owner.data(), partial.data());
  }
  for (uint32_t stride = 1; stride < MaxSubRunsPerBucket(layout); stride *= 2) {
    for (uint32_t s = 0; s < MaxSubRuns(layout); ++s) {
      FoldSubRuns<C>(layout, stride, s, first_sub.data(), counts.data(), owner.data(),
                     partial.data());
    }
  }
  std::vector<Xyzz> segment_sums(layout.segments());
  for (uint32_t s = 0; s < layout.segments(); ++s) {
    segment_sums[s] = ReduceSegment<C>(layout, s, first_sub.data(), counts.data(), partial.data());
  }
  for (uint32_t stride = 1; stride < layout.segments_per_window(); stride *= 2) {
    for (uint32_t item = 0; item < FoldItems(layout, stride); ++item) {
      FoldSegmentPair<C>(layout, stride, item, segment_sums.data());
    }
  }
  std::vector<Xyzz> window_sums(layout.windows);
  for (uint32_t w = 0; w < layout.windows; ++w) {
    window_sums[w] = WindowSum<C>(layout, w, segment_sums.data());
  }
  return CombineWindows<C>(layout, window_sums.data());
}

}  // namespace provd::kernels
