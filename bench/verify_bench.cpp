// Pairings and Groth16 verification on one core. The verification benchmarks read the fixture
// circuits (tests/circuits/generate.sh) from $PROVD_BENCH_CIRCUITS; bench/verify/run.sh makes
// them and times `snarkjs groth16 verify` on the same files in the same run.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "prover_core/groth16/verifier.hpp"
#include "prover_core/pairing/pairing.hpp"

namespace provd {
namespace {

template <typename P>
void BM_Pairing(benchmark::State& state) {
  const auto p = P::G1::Generator();
  const auto q = P::G2::Generator();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::Pairing<P>(p, q));
}
BENCHMARK(BM_Pairing<pairing::Bn254Pairing>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing<pairing::Bls12381Pairing>)->Unit(benchmark::kMicrosecond);

template <typename P>
void BM_MillerLoopPrepared(benchmark::State& state) {
  const pairing::G2Prepared<P> q(P::G2::Generator());
  const pairing::PairingTerm<P> term{P::G1::Generator(), &q};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::MultiMillerLoop<P>(std::span(&term, 1)));
}
BENCHMARK(BM_MillerLoopPrepared<pairing::Bn254Pairing>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MillerLoopPrepared<pairing::Bls12381Pairing>)->Unit(benchmark::kMicrosecond);

template <typename P>
void BM_FinalExponentiation(benchmark::State& state) {
  const pairing::G2Prepared<P> q(P::G2::Generator());
  const pairing::PairingTerm<P> term{P::G1::Generator(), &q};
  const pairing::Fp12<P> f = pairing::MultiMillerLoop<P>(std::span(&term, 1));
  for (auto _ : state) benchmark::DoNotOptimize(pairing::FinalExponentiation<P>(f));
}
BENCHMARK(BM_FinalExponentiation<pairing::Bn254Pairing>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation<pairing::Bls12381Pairing>)->Unit(benchmark::kMicrosecond);

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One fixture case's files, or an error for the benchmark.
struct CaseFiles {
  std::string vkey, proof, inputs;
  bool ok = false;
};
CaseFiles Load(const std::string& name) {
  const char* dir = std::getenv("PROVD_BENCH_CIRCUITS");
  if (dir == nullptr) return {};
  const std::string base = std::string(dir) + "/" + name + "/";
  CaseFiles files{Read(base + "vkey.json"), Read(base + "snarkjs_proof.json"),
                  Read(base + "snarkjs_public.json"), true};
  files.ok = !files.vkey.empty() && !files.proof.empty();
  return files;
}

// A key prepared once, as the daemon keeps it: the proof's parsing, checks, public-input sum
// and pairing product.
void BM_VerifyPreparedKey(benchmark::State& state, const std::string& name) {
  const CaseFiles files = Load(name);
  if (!files.ok) return state.SkipWithError("set PROVD_BENCH_CIRCUITS (bench/verify/run.sh)");
  const groth16::AnyPreparedVerificationKey key =
      groth16::PrepareVerificationKey(*groth16::ParseVerificationKeyJson(files.vkey));
  for (auto _ : state) {
    auto outcome = groth16::VerifyProofJson(key, files.proof, files.inputs);
    if (!outcome.ok() || !outcome->valid) return state.SkipWithError("the proof did not verify");
  }
}

// Everything from the JSON texts, as `snarkjs groth16 verify` does per call: the key parsed and
// checked (subgroups included), its lines and e(alpha1, beta2) computed, then the proof.
void BM_VerifyFromJson(benchmark::State& state, const std::string& name) {
  const CaseFiles files = Load(name);
  if (!files.ok) return state.SkipWithError("set PROVD_BENCH_CIRCUITS (bench/verify/run.sh)");
  for (auto _ : state) {
    auto key = groth16::ParseVerificationKeyJson(files.vkey);
    if (!key.ok()) return state.SkipWithError("bad key");
    auto outcome = groth16::VerifyProofJson(groth16::PrepareVerificationKey(*std::move(key)),
                                            files.proof, files.inputs);
    if (!outcome.ok() || !outcome->valid) return state.SkipWithError("the proof did not verify");
  }
}

#define PROVD_VERIFY_BENCH(name)                                                       \
  BENCHMARK_CAPTURE(BM_VerifyPreparedKey, name, #name)->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(BM_VerifyFromJson, name, #name)->Unit(benchmark::kMicrosecond);
PROVD_VERIFY_BENCH(mult_bn128)
PROVD_VERIFY_BENCH(many_public_bn128)
PROVD_VERIFY_BENCH(mult_bls12381)
#undef PROVD_VERIFY_BENCH

}  // namespace
}  // namespace provd
