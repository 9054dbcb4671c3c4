// The CUDA MSM: kernels that run the steps of msm_steps.hpp one thread per item, and
// CudaSession::Msm, which plans batches that fit the session's VRAM budget and runs the
// pipeline over each. Included by one .cu file per curve (msm_bn254.cu, msm_bls12_381.cu) so
// the two compile in parallel.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_session_resources.cuh"
#include "kernels/msm_steps.hpp"

namespace provd::kernels {
// Internal linkage: this header is compiled into one .cu file per curve.
namespace msm_kernels {
namespace {

// Small blocks: an XYZZ point over Fq2 is 48 64-bit words, and register pressure, not
// occupancy, bounds these kernels.
inline constexpr unsigned kBlock = 128;

#define PROVD_GRID_STRIDE(i, count)                                               \
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < (count); \
       i += uint64_t{gridDim.x} * blockDim.x)

__global__ void __launch_bounds__(kBlock)
    DigitsKernel(MsmLayout layout, const msm::Scalar* scalars, uint32_t* keys, uint32_t* values) {
  PROVD_GRID_STRIDE(i, layout.points) {
    WriteDigitPairs(layout, scalars[i], static_cast<uint32_t>(i), keys, values);
  }
}

__global__ void __launch_bounds__(kBlock)
    MarkRunsKernel(MsmLayout layout, const uint32_t* sorted_keys, uint64_t count, uint32_t* begins,
                   uint32_t* ends) {
  PROVD_GRID_STRIDE(j, count) { MarkRun(layout, sorted_keys, count, j, begins, ends); }
}

__global__ void __launch_bounds__(kBlock)
    SubRunCountKernel(MsmLayout layout, const uint32_t* begins, const uint32_t* ends,
                      uint32_t* counts) {
  PROVD_GRID_STRIDE(b, layout.buckets()) {
    counts[b] = SubRunCount(layout, static_cast<uint32_t>(b), begins, ends);
  }
}

template <typename C>
__global__ void __launch_bounds__(kBlock)
    SubRunsKernel(MsmLayout layout, const curve::AffinePoint<C>* points,
                  const uint32_t* sorted_values, const uint32_t* begins, const uint32_t* ends,
                  const uint32_t* first_sub, const uint32_t* counts, uint32_t* owner,
                  curve::XyzzPoint<C>* partial) {
  PROVD_GRID_STRIDE(s, MaxSubRuns(layout)) {
    AccumulateSubRun<C>(layout, static_cast<uint32_t>(s), points, sorted_values, begins, ends,
                        first_sub, counts, owner, partial);
  }
}

template <typename C>
__global__ void __launch_bounds__(kBlock)
    FoldSubRunsKernel(MsmLayout layout, uint32_t stride, const uint32_t* first_sub,
                      const uint32_t* counts, const uint32_t* owner, curve::XyzzPoint<C>* partial) {
  PROVD_GRID_STRIDE(s, MaxSubRuns(layout)) {
    FoldSubRuns<C>(layout, stride, static_cast<uint32_t>(s), first_sub, counts, owner, partial);
  }
}

template <typename C>
__global__ void __launch_bounds__(kBlock)
    SegmentsKernel(MsmLayout layout, const uint32_t* first_sub, const uint32_t* counts,
                   const curve::XyzzPoint<C>* partial, curve::XyzzPoint<C>* segment_sums) {
  PROVD_GRID_STRIDE(s, layout.segments()) {
    segment_sums[s] =
        ReduceSegment<C>(layout, static_cast<uint32_t>(s), first_sub, counts, partial);
  }
}

template <typename C>
__global__ void __launch_bounds__(kBlock)
    FoldKernel(MsmLayout layout, uint32_t stride, curve::XyzzPoint<C>* segment_sums) {
  PROVD_GRID_STRIDE(item, FoldItems(layout, stride)) {
    FoldSegmentPair<C>(layout, stride, static_cast<uint32_t>(item), segment_sums);
  }
}

template <typename C>
__global__ void __launch_bounds__(kBlock)
    WindowsKernel(MsmLayout layout, const curve::XyzzPoint<C>* segment_sums,
                  curve::XyzzPoint<C>* window_sums) {
  PROVD_GRID_STRIDE(w, layout.windows) {
    window_sums[w] = WindowSum<C>(layout, static_cast<uint32_t>(w), segment_sums);
  }
}

#undef PROVD_GRID_STRIDE

// Bytes the radix sort or the sub-run scan need besides their inputs and outputs (they share
// one buffer).
inline absl::StatusOr<size_t> SortTempBytes(uint64_t pairs, uint32_t key_bits, uint32_t buckets) {
  size_t sort_bytes = 0;
  PROVD_CUDA_RETURN_IF_ERROR(
      cub::DeviceRadixSort::SortPairs(
          nullptr, sort_bytes, static_cast<const uint32_t*>(nullptr),
          static_cast<uint32_t*>(nullptr), static_cast<const uint32_t*>(nullptr),
          static_cast<uint32_t*>(nullptr), pairs, 0, static_cast<int>(key_bits)),
      "MSM sort (size query)");
  size_t scan_bytes = 0;
  PROVD_CUDA_RETURN_IF_ERROR(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const uint32_t*>(nullptr),
                                    static_cast<uint32_t*>(nullptr), static_cast<int>(buckets)),
      "MSM sub-run scan (size query)");
  return std::max(sort_bytes, scan_bytes);
}

// Device bytes of one batch with `layout`.
template <typename C>
uint64_t BatchBytes(const MsmLayout& layout, size_t sort_temp) {
  return uint64_t{layout.points} * (sizeof(curve::AffinePoint<C>) + sizeof(msm::Scalar)) +
         layout.pairs() * 4 * sizeof(uint32_t) + sort_temp +
         uint64_t{layout.buckets()} * 4 * sizeof(uint32_t) +
         MaxSubRuns(layout) * (sizeof(uint32_t) + sizeof(curve::XyzzPoint<C>)) +
         (uint64_t{layout.segments()} + layout.windows) * sizeof(curve::XyzzPoint<C>);
}

}  // namespace
}  // namespace msm_kernels

template <typename C>
absl::StatusOr<curve::XyzzPoint<C>> CudaSession::Msm(std::span<const curve::AffinePoint<C>> points,
                                                     std::span<const msm::Scalar> scalars) {
  using Xyzz = curve::XyzzPoint<C>;
  using namespace msm_kernels;
  if (points.size() != scalars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(C::kName, " GPU MSM: ", points.size(),
                                                   " points but ", scalars.size(), " scalars"));
  }
  if (points.empty()) return Xyzz();
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  const std::string what = absl::StrCat("cuda:", device_, " ", C::kName, " MSM");
  const absl::Status fault = InjectedFault(what);
  const NvtxRange range(absl::StrCat(what, " of ", points.size()).c_str());
  Resources& r = *resources_;

  // Buffers held for NTTs are not this call's: free them, so the budget is the MSM's alone.
  r.ReleaseSlots(
      {Slot::kNttData, Slot::kForwardTwiddles, Slot::kInverseTwiddles, Slot::kCosetScale});
  // The largest batch (halving from all points) whose pairs can be indexed and whose buffers
  // fit the budget.
  uint64_t batch = points.size();
  MsmLayout layout;
  size_t sort_temp = 0;
  while (true) {
    absl::StatusOr<MsmLayout> planned =
        PlanMsmLayout(std::min<uint64_t>(batch, uint64_t{1} << 26), options_.msm_window_bits,
                      options_.msm_sub_run_pairs);
    if (!planned.ok() && batch > 1 && absl::IsInvalidArgument(planned.status()) &&
        absl::StrContains(planned.status().message(), "digit pairs")) {
      batch = (batch + 1) / 2;
      continue;
    }
    if (!planned.ok()) return planned.status();
    layout = *planned;
    batch = layout.points;
    absl::StatusOr<size_t> temp =
        SortTempBytes(layout.pairs(), layout.key_bits(), layout.buckets());
    if (!temp.ok()) return temp.status();
    sort_temp = *temp;
    if (BatchBytes<C>(layout, sort_temp) <= budget_) break;
    if (batch == 1) {
      return absl::ResourceExhaustedError(absl::StrCat(
          what, ": even one point needs more than the VRAM budget of ", budget_, " bytes"));
    }
    batch = (batch + 1) / 2;
  }

  cudaStream_t stream = r.stream.get();
  PhaseClock clock(options_.time_phases, stream, phases_);
  auto reserve_all = [&]() -> absl::Status {
    const char* w = what.c_str();
    // Slots only grow: if keeping the larger buffers of earlier calls (a G2 MSM's buckets, say)
    // would break the budget, start from nothing.
    if (r.device_bytes() > budget_ - BatchBytes<C>(layout, sort_temp)) r.ReleaseBuffers();
    for (auto [slot, bytes] : {
             std::pair{Slot::kPoints, uint64_t{layout.points} * sizeof(curve::AffinePoint<C>)},
             std::pair{Slot::kScalars, uint64_t{layout.points} * sizeof(msm::Scalar)},
             std::pair{Slot::kKeys, layout.pairs() * sizeof(uint32_t)},
             std::pair{Slot::kValues, layout.pairs() * sizeof(uint32_t)},
             std::pair{Slot::kSortedKeys, layout.pairs() * sizeof(uint32_t)},
             std::pair{Slot::kSortedValues, layout.pairs() * sizeof(uint32_t)},
             std::pair{Slot::kSortTemp, uint64_t{sort_temp}},
             std::pair{Slot::kRunBegins, uint64_t{layout.buckets()} * sizeof(uint32_t)},
             std::pair{Slot::kRunEnds, uint64_t{layout.buckets()} * sizeof(uint32_t)},
             std::pair{Slot::kSubRunCounts, uint64_t{layout.buckets()} * sizeof(uint32_t)},
             std::pair{Slot::kFirstSubRuns, uint64_t{layout.buckets()} * sizeof(uint32_t)},
             std::pair{Slot::kSubRunOwners, MaxSubRuns(layout) * sizeof(uint32_t)},
             std::pair{Slot::kSubRunSums, MaxSubRuns(layout) * sizeof(Xyzz)},
             std::pair{Slot::kSegments, uint64_t{layout.segments()} * sizeof(Xyzz)},
             std::pair{Slot::kWindows, uint64_t{layout.windows} * sizeof(Xyzz)},
         }) {
      PROVD_CUDA_RETURN_IF_ERROR(r.buffer(slot).reserve(bytes, stream), w);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = reserve_all(); !s.ok()) return s;
  clock.Mark("allocate");

  Xyzz total;
  std::vector<Xyzz> window_sums;
  for (uint64_t begin = 0; begin < points.size(); begin += batch) {
    const uint64_t count = std::min<uint64_t>(batch, points.size() - begin);
    absl::StatusOr<MsmLayout> batch_layout =
        PlanMsmLayout(count, layout.window_bits, layout.sub_run_pairs);
    if (!batch_layout.ok()) return batch_layout.status();
    const MsmLayout l = *batch_layout;  // the same window; fewer points in the last batch
    auto* d_points = r.buffer(Slot::kPoints).as<curve::AffinePoint<C>>();
    auto* d_scalars = r.buffer(Slot::kScalars).as<msm::Scalar>();
    auto* d_keys = r.buffer(Slot::kKeys).as<uint32_t>();
    auto* d_values = r.buffer(Slot::kValues).as<uint32_t>();
    auto* d_sorted_keys = r.buffer(Slot::kSortedKeys).as<uint32_t>();
    auto* d_sorted_values = r.buffer(Slot::kSortedValues).as<uint32_t>();
    auto* d_begins = r.buffer(Slot::kRunBegins).as<uint32_t>();
    auto* d_ends = r.buffer(Slot::kRunEnds).as<uint32_t>();
    auto* d_counts = r.buffer(Slot::kSubRunCounts).as<uint32_t>();
    auto* d_first_sub = r.buffer(Slot::kFirstSubRuns).as<uint32_t>();
    auto* d_owner = r.buffer(Slot::kSubRunOwners).as<uint32_t>();
    auto* d_partial = r.buffer(Slot::kSubRunSums).as<Xyzz>();
    auto* d_segments = r.buffer(Slot::kSegments).as<Xyzz>();
    auto* d_windows = r.buffer(Slot::kWindows).as<Xyzz>();

    if (absl::Status s = r.Upload(d_points, points.data() + begin, count, what.c_str()); !s.ok())
      return s;
    if (absl::Status s = r.Upload(d_scalars, scalars.data() + begin, count, what.c_str()); !s.ok())
      return s;
    clock.Mark("upload");
    if (!fault.ok()) return fault;
    DigitsKernel<<<GridFor(l.points, kBlock), kBlock, 0, stream>>>(l, d_scalars, d_keys, d_values);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": digits");
    clock.Mark("digits");
    size_t temp_bytes = sort_temp;
    PROVD_CUDA_RETURN_IF_ERROR(
        cub::DeviceRadixSort::SortPairs(r.buffer(Slot::kSortTemp).as<void>(), temp_bytes, d_keys,
                                        d_sorted_keys, d_values, d_sorted_values, l.pairs(), 0,
                                        static_cast<int>(l.key_bits()), stream),
        what + ": sort");
    clock.Mark("sort");
    PROVD_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(d_begins, 0, uint64_t{l.buckets()} * sizeof(uint32_t), stream), what);
    PROVD_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(d_ends, 0, uint64_t{l.buckets()} * sizeof(uint32_t), stream), what);
    MarkRunsKernel<<<GridFor(l.pairs(), kBlock), kBlock, 0, stream>>>(l, d_sorted_keys, l.pairs(),
                                                                      d_begins, d_ends);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": runs");
    clock.Mark("runs");
    SubRunCountKernel<<<GridFor(l.buckets(), kBlock), kBlock, 0, stream>>>(l, d_begins, d_ends,
                                                                           d_counts);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": sub-run counts");
    temp_bytes = sort_temp;
    PROVD_CUDA_RETURN_IF_ERROR(
        cub::DeviceScan::ExclusiveSum(r.buffer(Slot::kSortTemp).as<void>(), temp_bytes, d_counts,
                                      d_first_sub, static_cast<int>(l.buckets()), stream),
        what + ": sub-run scan");
    SubRunsKernel<C><<<GridFor(MaxSubRuns(l), kBlock), kBlock, 0, stream>>>(
        l, d_points, d_sorted_values, d_begins, d_ends, d_first_sub, d_counts, d_owner, d_partial);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": sub-runs");
    for (uint32_t stride = 1; stride < MaxSubRunsPerBucket(l); stride *= 2) {
      FoldSubRunsKernel<C><<<GridFor(MaxSubRuns(l), kBlock), kBlock, 0, stream>>>(
          l, stride, d_first_sub, d_counts, d_owner, d_partial);
      PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": sub-run fold");
    }
    clock.Mark("buckets");
    SegmentsKernel<C><<<GridFor(l.segments(), kBlock), kBlock, 0, stream>>>(
        l, d_first_sub, d_counts, d_partial, d_segments);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": segments");
    for (uint32_t stride = 1; stride < l.segments_per_window(); stride *= 2) {
      FoldKernel<C>
          <<<GridFor(FoldItems(l, stride), kBlock), kBlock, 0, stream>>>(l, stride, d_segments);
      PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": fold");
    }
    WindowsKernel<C><<<GridFor(l.windows, kBlock), kBlock, 0, stream>>>(l, d_segments, d_windows);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": windows");
    clock.Mark("reduce");
    window_sums.resize(l.windows);
    if (absl::Status s = r.Download(window_sums.data(), d_windows, l.windows, what.c_str());
        !s.ok())
      return s;
    total.Add(CombineWindows<C>(l, window_sums.data()));
    clock.Mark("download");
  }
  return total;
}

}  // namespace provd::kernels

// Instantiates CudaSession::Msm for one group.
#define PROVD_INSTANTIATE_CUDA_MSM(Curve)                                      \
  template absl::StatusOr<::provd::curve::XyzzPoint<::provd::curve::Curve>>    \
      provd::kernels::CudaSession::Msm<::provd::curve::Curve>(                 \
          std::span<const ::provd::curve::AffinePoint<::provd::curve::Curve>>, \
          std::span<const ::provd::msm::Scalar>);
