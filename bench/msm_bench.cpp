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

}  // namespace
}  // namespace provd::bench
