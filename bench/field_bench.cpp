// Field multiplication latency: a dependent chain of multiplications, so the number is the
// latency of one mul (ns/op), the figure other libraries publish.
#include <random>

#include "benchmark/benchmark.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"

namespace provd::bench {
namespace {

template <typename F>
void BM_FieldMul(benchmark::State& state) {
  F a = F::FromUint64(0x1234567890abcdefull).Pow(uint64_t{1000003});
  F b = F::FromUint64(0xfedcba0987654321ull).Pow(uint64_t{1000033});
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) a = a * b;
    benchmark::DoNotOptimize(a);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}

template <typename F>
void BM_FieldSquare(benchmark::State& state) {
  F a = F::FromUint64(0x1234567890abcdefull).Pow(uint64_t{1000003});
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) a = a.Square();
    benchmark::DoNotOptimize(a);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}

template <typename F>
void BM_FieldInverse(benchmark::State& state) {
  F a = F::FromUint64(0x1234567890abcdefull);
  for (auto _ : state) {
    a = a.Inverse() + F::One();
    benchmark::DoNotOptimize(a);
  }
}

BENCHMARK(BM_FieldMul<field::Bn254Fr>);
BENCHMARK(BM_FieldMul<field::Bn254Fq>);
BENCHMARK(BM_FieldMul<field::Bls12381Fr>);
BENCHMARK(BM_FieldMul<field::Bls12381Fq>);
BENCHMARK(BM_FieldMul<field::Goldilocks>);
BENCHMARK(BM_FieldMul<field::Bn254Fq2>);
BENCHMARK(BM_FieldMul<field::Bls12381Fq2>);
BENCHMARK(BM_FieldSquare<field::Bn254Fq>);
BENCHMARK(BM_FieldInverse<field::Bn254Fq>);
BENCHMARK(BM_FieldInverse<field::Bls12381Fq>);

}  // namespace
}  // namespace provd::bench
