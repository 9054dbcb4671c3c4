// The CUDA backend against the CPU backend of the same binary: G1 MSM 2^16..2^24 for both
// curves, G2 MSM 2^20, NTT 2^16..2^26 (BN254 Fr, Goldilocks). Times include the host-device
// copies of the inputs and results (what a proof's chunk pays); the session, its buffers and
// the NTT's twiddles stay resident across iterations, as within a proof. Also the Groth16 LDE's
// step (ntt::ShiftToCoset) as one device call, a STARK trace's batched coset LDE, and the
// device's two forms of the field product, in products per second. CPU cases are named .../cpu and
// GPU cases .../gpu; on a host without a GPU the GPU cases report an error.
#include <memory>

#include "bench/bench_inputs.hpp"
#include "benchmark/benchmark.h"
#include "kernels/cuda_session.hpp"
#include "kernels/field_ops.hpp"
#include "prover_core/curve/bls12_381.hpp"
#include "prover_core/curve/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/msm/msm_instances.hpp"

namespace provd::bench {
namespace {

// Phase times on: each GPU case also reports where its time went (upload, sort, buckets, ...:
// the session's last call) as counters in milliseconds, and kernels_ms, the device's own share.
kernels::CudaSession* Session() {
  static absl::StatusOr<std::unique_ptr<kernels::CudaSession>> session =
      kernels::CudaSession::Open(0, kernels::CudaSessionOptions{.time_phases = true});
  return session.ok() ? session->get() : nullptr;
}

void ReportPhases(benchmark::State& state) {
  double kernels_ms = 0;
  for (const kernels::CudaPhase& phase : Session()->last_call_phases()) {
    state.counters[phase.name + "_ms"] = phase.milliseconds;
    const bool transfer = phase.name == "upload" || phase.name == "download" ||
                          phase.name == "allocate" || phase.name == "twiddles";
    if (!transfer) kernels_ms += phase.milliseconds;
  }
  state.counters["kernels_ms"] = kernels_ms;
}

// Times session.Msm over the inputs, after one untimed call: buffers and staging are
// allocated once per session, as in a proof. False (the case skipped) on any error.
template <typename C>
bool TimeGpuMsm(benchmark::State& state, kernels::CudaSession& session,
                std::span<const curve::AffinePoint<C>> points,
                std::span<const msm::Scalar> scalars) {
  if (!session.Msm<C>(points, scalars).ok()) {
    state.SkipWithError("warm-up failed");
    return false;
  }
  for (auto _ : state) {
    auto result = session.Msm<C>(points, scalars);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return false;
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel("gpu");
  return true;
}

// Arg 0: log2 of the size; arg 1: 0 CPU, 1 GPU.
template <typename C>
void BM_Msm(benchmark::State& state) {
  const auto& [points, scalars] = MsmInputs<C>(static_cast<size_t>(state.range(0)));
  if (state.range(1) == 1) {
    if (Session() == nullptr) {
      state.SkipWithError("no CUDA device");
    } else if (TimeGpuMsm<C>(state, *Session(), points, scalars)) {
      ReportPhases(state);
    }
    return;
  }
  for (auto _ : state) {
    auto result = msm::PippengerMsm<C>(points, scalars, DefaultThreadPool(), {});
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel("cpu");
}

// A forward NTT's stages or (kCoset) the Groth16 LDE's whole step, ntt::ShiftToCoset.
enum class NttCase { kStages, kCoset };

template <typename F, NttCase kCase = NttCase::kStages>
void BM_Ntt(benchmark::State& state) {
  const size_t log_n = static_cast<size_t>(state.range(0));
  const bool gpu = state.range(1) == 1;
  if (gpu && Session() == nullptr) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto tw = ntt::GetTwiddles<F>(log_n, DefaultThreadPool());
  if (!tw.ok()) {
    state.SkipWithError(std::string(tw.status().message()).c_str());
    return;
  }
  std::vector<F> data(size_t{1} << log_n);
  for (size_t i = 0; i < data.size(); ++i) data[i] = F::FromUint64(i * 0x9e3779b97f4a7c15ull);
  const F shift = ntt::RootOfUnity<F>(log_n + 1);
  auto run = [&]() -> absl::Status {
    if (kCase == NttCase::kCoset) {
      return gpu ? Session()->ShiftToCoset<F>(data, **tw, shift)
                 : ntt::ShiftToCoset<F>(data, **tw, shift, DefaultThreadPool());
    }
    return gpu ? Session()->NttStages<F>(data, **tw, ntt::Direction::kForward, 0, log_n)
               : ntt::RunStages<F>(data, **tw, ntt::Direction::kForward, 0, log_n,
                                   DefaultThreadPool());
  };
  if (gpu && !run().ok()) {
    state.SkipWithError("warm-up failed");
    return;
  }
  for (auto _ : state) {
    absl::Status s = run();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  if (gpu) ReportPhases(state);
  state.SetLabel(gpu ? "gpu" : "cpu");
}

// A STARK trace's LDE: `columns` (arg 1) polynomials of 2^log_n values (arg 0) to their values
// on a coset 4 times larger, in one device call or column by column on the CPU (arg 2: 0 CPU,
// 1 GPU, last so that the scripts' /0/ and /1/ filters apply).
template <typename F>
void BM_CosetLde(benchmark::State& state) {
  const size_t log_n = static_cast<size_t>(state.range(0));
  const size_t columns = static_cast<size_t>(state.range(1));
  const bool gpu = state.range(2) == 1;
  constexpr size_t kBlowupLog = 2;
  if (gpu && Session() == nullptr) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto small = ntt::GetTwiddles<F>(log_n, DefaultThreadPool());
  auto large = ntt::GetTwiddles<F>(log_n + kBlowupLog, DefaultThreadPool());
  if (!small.ok() || !large.ok()) {
    state.SkipWithError("no twiddles for the domain");
    return;
  }
  const size_t n = size_t{1} << log_n;
  const size_t big = n << kBlowupLog;
  std::vector<F> evals(columns * n);
  for (size_t i = 0; i < evals.size(); ++i) evals[i] = F::FromUint64(i * 0x9e3779b97f4a7c15ull);
  std::vector<F> out(columns * big);
  const F shift = F::FromUint64(7);
  auto run = [&]() -> absl::Status {
    if (gpu) return Session()->CosetLde<F>(evals, out, columns, **small, **large, shift);
    return ntt::CosetLdeColumns<F>(evals, out, columns, shift, DefaultThreadPool());
  };
  if (gpu && !run().ok()) {
    state.SkipWithError("warm-up failed");
    return;
  }
  for (auto _ : state) {
    if (absl::Status s = run(); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  if (gpu) ReportPhases(state);
  state.SetLabel(gpu ? "gpu" : "cpu");
}

// Tuning sweep for a device run: BN254 / BLS12-381 G1 MSM at 2^log_n (arg 0) with c-bit
// windows (arg 1, 0: the planner's) and sub-runs of K pairs (arg 2), each in a session of its
// own. Select with --benchmark_filter=BM_MsmTuning.
template <typename C>
void BM_MsmTuning(benchmark::State& state) {
  const auto& [points, scalars] = MsmInputs<C>(static_cast<size_t>(state.range(0)));
  kernels::CudaSessionOptions options{.msm_window_bits = static_cast<uint32_t>(state.range(1)),
                                      .msm_sub_run_pairs = static_cast<uint32_t>(state.range(2))};
  absl::StatusOr<std::unique_ptr<kernels::CudaSession>> session =
      kernels::CudaSession::Open(0, options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  TimeGpuMsm<C>(state, **session, points, scalars);
}

// Device Montgomery products per second by each form (kernels/field_ops.hpp): 2^18 threads each
// chaining 2048 dependent products. Arg 0: 0 for 64-bit limbs, 1 for 32-bit words on PTX's
// carry flag; arg 1 is always 1 (a GPU case, for the filters of scripts/gpu-check.sh).
template <typename F>
void BM_FieldProduct(benchmark::State& state) {
  constexpr uint32_t kThreads = 1u << 18;
  constexpr uint32_t kRounds = 2048;
  const auto form =
      state.range(0) == 1 ? kernels::ProductForm::kWords32Ptx : kernels::ProductForm::kLimbs64;
  double device_seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<double> seconds =
        kernels::TimeProductChainsOnDevice<F>(0, form, kThreads, kRounds);
    if (!seconds.ok()) {
      state.SkipWithError(std::string(seconds.status().message()).c_str());
      return;
    }
    device_seconds += *seconds;
  }
  state.counters["gproducts_per_s"] =
      double{kThreads} * kRounds * static_cast<double>(state.iterations()) / device_seconds / 1e9;
  state.SetLabel(form == kernels::ProductForm::kWords32Ptx ? "gpu words32 ptx" : "gpu limbs64");
}

// First, so that a run cut short still brings back the comparison of the two products.
BENCHMARK(BM_FieldProduct<field::Bn254Fq>)->ArgsProduct({{0, 1}, {1}})->UseRealTime();
BENCHMARK(BM_FieldProduct<field::Bn254Fr>)->ArgsProduct({{0, 1}, {1}})->UseRealTime();
BENCHMARK(BM_FieldProduct<field::Bls12381Fq>)->ArgsProduct({{0, 1}, {1}})->UseRealTime();
BENCHMARK(BM_FieldProduct<field::Bls12381Fr>)->ArgsProduct({{0, 1}, {1}})->UseRealTime();

// CPU cases stop at sizes that finish in seconds on a many-core host.
BENCHMARK(BM_Msm<curve::Bn254G1>)
    ->ArgsProduct({{16, 18, 20}, {0, 1}})
    ->ArgsProduct({{22, 24}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Msm<curve::Bls12381G1>)
    ->ArgsProduct({{16, 18, 20}, {0, 1}})
    ->ArgsProduct({{22, 24}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Msm<curve::Bn254G2>)
    ->Args({20, 0})
    ->Args({20, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Ntt<field::Bn254Fr>)
    ->ArgsProduct({{16, 20, 22, 24}, {0, 1}})
    ->ArgsProduct({{26}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Ntt<field::Goldilocks>)
    ->ArgsProduct({{16, 20, 22, 24}, {0, 1}})
    ->ArgsProduct({{26}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// One column of the Groth16 LDE (inverse NTT, coset powers, NTT) per iteration.
BENCHMARK(BM_Ntt<field::Bn254Fr, NttCase::kCoset>)
    ->Name("BM_ShiftToCoset<Bn254Fr>")
    ->ArgsProduct({{16, 20, 22}, {0, 1}})
    ->ArgsProduct({{24}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_CosetLde<field::Goldilocks>)
    ->ArgsProduct({{16, 20}, {8}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CosetLde<field::Bn254Fr>)
    ->ArgsProduct({{16, 18}, {4}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_MsmTuning<curve::Bn254G1>)
    ->ArgsProduct({{20, 24}, {0}, {16, 32, 64, 128}})
    ->ArgsProduct({{24}, {14, 15}, {32}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MsmTuning<curve::Bls12381G1>)
    ->ArgsProduct({{20, 24}, {0}, {16, 32, 64, 128}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace provd::bench
