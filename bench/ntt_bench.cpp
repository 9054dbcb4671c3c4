// Forward NTT and coset LDE (blow-up 2) at 2^16..2^22 for BN254 Fr, BLS12-381 Fr, Goldilocks,
// on the process pool. Twiddles are cached before timing, as in a long-running daemon.
#include <random>

#include "benchmark/benchmark.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/ntt/ntt.hpp"

namespace provd::bench {
namespace {

template <typename F>
std::vector<F> RandomVector(size_t n) {
  std::mt19937_64 rng(3);
  std::vector<F> v(n);
  for (F& x : v) x = F::FromUint64(rng());
  return v;
}

template <typename F>
void BM_NttForward(benchmark::State& state) {
  const size_t n = size_t{1} << state.range(0);
  ThreadPool& pool = DefaultThreadPool();
  std::vector<F> data = RandomVector<F>(n);
  (void)ntt::GetTwiddles<F>(static_cast<size_t>(state.range(0)), pool);
  for (auto _ : state) {
    if (!ntt::Forward<F>(data, pool).ok()) state.SkipWithError("NTT failed");
    benchmark::ClobberMemory();
  }
  state.counters["threads"] = static_cast<double>(pool.size());
}

template <typename F>
void BM_CosetLde2x(benchmark::State& state) {
  const size_t log_n = static_cast<size_t>(state.range(0));
  const size_t n = size_t{1} << log_n;
  ThreadPool& pool = DefaultThreadPool();
  std::vector<F> evals = RandomVector<F>(n);
  std::vector<F> out(2 * n);
  (void)ntt::GetTwiddles<F>(log_n, pool);
  (void)ntt::GetTwiddles<F>(log_n + 1, pool);
  const F shift = F::FromUint64(F::NonResidue());
  for (auto _ : state) {
    if (!ntt::CosetLde<F>(evals, out, shift, pool).ok()) state.SkipWithError("LDE failed");
    benchmark::ClobberMemory();
  }
}

#define PROVD_NTT_BENCH(F)            \
  BENCHMARK(BM_NttForward<F>)         \
      ->DenseRange(16, 22, 2)         \
      ->Unit(benchmark::kMillisecond) \
      ->UseRealTime();                \
  BENCHMARK(BM_CosetLde2x<F>)->DenseRange(16, 22, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

PROVD_NTT_BENCH(field::Bn254Fr)
PROVD_NTT_BENCH(field::Bls12381Fr)
PROVD_NTT_BENCH(field::Goldilocks)

}  // namespace
}  // namespace provd::bench
