// G1 MSM at 2^12, 2^16, 2^18, 2^20 for both curves and G2 MSM at 2^16, on the process pool (all
// cores unless --threads / PROVD_THREADS says otherwise). Inputs are built once per size.

#include "bench/bench_inputs.hpp"
#include "benchmark/benchmark.h"
#include "prover_core/msm/msm_instances.hpp"

namespace provd::bench {
namespace {

// The timed loop shared by the benchmarks below; state.range(0) is log2 of the size.
template <typename C>
void MeasureMsm(benchmark::State& state, const msm::MsmOptions& options) {
  const auto& [points, scalars] = MsmInputs<C>(static_cast<size_t>(state.range(0)));
  ThreadPool& pool = DefaultThreadPool();
  for (auto _ : state) {
    auto result = msm::PippengerMsm<C>(points, scalars, pool, options);
    benchmark::DoNotOptimize(result);
  }
  state.counters["threads"] = static_cast<double>(pool.size());
  state.counters["points"] = static_cast<double>(points.size());
}

// Arg 0: log2 of the size; arg 1 (optional): 0 auto, 1 XYZZ buckets, 2 batch-affine buckets.
template <typename C>
void BM_Msm(benchmark::State& state) {
  msm::MsmOptions options;
  if (state.range(1) == 1) options.accumulation = msm::BucketAccumulation::kXyzz;
  if (state.range(1) == 2) options.accumulation = msm::BucketAccumulation::kBatchAffine;
  MeasureMsm<C>(state, options);
}

BENCHMARK(BM_Msm<curve::Bn254G1>)
    ->ArgsProduct({{12, 16, 18, 20}, {0}})
    ->ArgsProduct({{16, 18}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Msm<curve::Bls12381G1>)
    ->ArgsProduct({{12, 16, 18, 20}, {0}})
    ->ArgsProduct({{16, 18}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Msm<curve::Bn254G2>)->Args({16, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Msm<curve::Bls12381G2>)->Args({16, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

// A window sweep, to check the cost model against the machine: arg 0 log2 size, arg 1 bits.
template <typename C>
void BM_MsmWindow(benchmark::State& state) {
  msm::MsmOptions options;
  options.window_bits = static_cast<size_t>(state.range(1));
  MeasureMsm<C>(state, options);
}
BENCHMARK(BM_MsmWindow<curve::Bn254G1>)
    ->ArgsProduct({{16, 18, 20}, {11, 12, 13, 14, 15, 16, 17, 18}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// What decoding a proving key's points costs per point, on one thread (the prover decodes each
// MSM chunk from the zkey on the pool before it runs): arg 0 is 0 for the full check
// (DecodeAffine: coordinates and curve equation), 1 for the coordinates only
// (DecodeAffineCoordinates, what a block of points already checked costs).
template <typename C>
void BM_DecodePoints(benchmark::State& state) {
  constexpr size_t kPoints = size_t{1} << 14;
  constexpr size_t kBytes = 2 * C::Field::kBytes;
  const auto& points = MsmInputs<C>(14).first;
  std::vector<uint8_t> encoded(kPoints * kBytes);
  for (size_t i = 0; i < kPoints; ++i) {
    curve::EncodeAffine(points[i], curve::CoordinateEncoding::kMontgomery,
                        std::span(encoded).subspan(i * kBytes, kBytes));
  }
  const bool checked = state.range(0) == 0;
  for (auto _ : state) {
    for (size_t i = 0; i < kPoints; ++i) {
      const auto bytes = std::span<const uint8_t>(encoded).subspan(i * kBytes, kBytes);
      auto point =
          checked
              ? curve::DecodeAffine<C>(bytes, curve::CoordinateEncoding::kMontgomery, false)
              : curve::DecodeAffineCoordinates<C>(bytes, curve::CoordinateEncoding::kMontgomery);
      benchmark::DoNotOptimize(point);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kPoints));
}
BENCHMARK(BM_DecodePoints<curve::Bn254G1>)->Arg(0)->Arg(1);
BENCHMARK(BM_DecodePoints<curve::Bn254G2>)->Arg(0)->Arg(1);
BENCHMARK(BM_DecodePoints<curve::Bls12381G1>)->Arg(0)->Arg(1);
BENCHMARK(BM_DecodePoints<curve::Bls12381G2>)->Arg(0)->Arg(1);

}  // namespace
}  // namespace provd::bench
