// Groth16 proofs from provd checked by the real verifier: circuits compiled with circom2, keys
// and witnesses made by snarkjs (the CTest fixture `circuits`, tests/circuits/generate.sh), and
// every proof verified with `snarkjs groth16 verify`. Also: determinism under a seed, proofs
// that do not depend on where the chunks ran, visible fallback, and errors on bad files.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prover_core/cpu_backend.hpp"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/proof_format.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/inconsistent_zkey.hpp"
#include "tests/support/proving.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using ::provd::testing::AlternatingPlacement;
using ::provd::testing::Inputs;
using ::provd::testing::IsOk;
using ::provd::testing::LoadTyped;
using ::provd::testing::ProveBytes;
using ::provd::testing::StatusIs;
using ::testing::_;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Case(const std::string& name) { return testing::CircuitCase(name); }

ThreadPool& Pool() {
  static ThreadPool pool(2);
  return pool;
}

std::vector<uint8_t> Seed(uint8_t v) { return std::vector<uint8_t>(16, v); }

absl::StatusOr<ProofArtifacts> ProveCase(const std::string& name, ProveOptions options = {}) {
  absl::StatusOr<AnyProvingKey> key = LoadProvingKey((Case(name) / "circuit.zkey").string());
  if (!key.ok()) return key.status();
  absl::StatusOr<Witness> witness = ReadWitnessFile((Case(name) / "witness.wtns").string());
  if (!witness.ok()) return witness.status();
  return ProveOnCpu(*key, *witness, options, Pool());
}

bool SnarkjsAccepts(const fs::path& vkey, const std::string& public_json,
                    const std::string& proof_json) {
  return testing::SnarkjsAccepts(PROVD_SNARKJS, vkey, public_json, proof_json);
}

class SnarkjsVerifies : public ::testing::TestWithParam<const char*> {};

TEST_P(SnarkjsVerifies, ProofFromProvd) {
  const std::string name = GetParam();
  absl::StatusOr<ProofArtifacts> proof = ProveCase(name);
  ASSERT_THAT(proof, IsOk());
  EXPECT_TRUE(SnarkjsAccepts(Case(name) / "vkey.json", proof->public_json, proof->proof_json));
  // The public signals are the ones snarkjs itself derives from the same witness.
  EXPECT_EQ(nlohmann::json::parse(proof->public_json),
            nlohmann::json::parse(testing::ReadFile(Case(name) / "snarkjs_public.json")));
  const nlohmann::json json = nlohmann::json::parse(proof->proof_json);
  EXPECT_EQ(json["protocol"], "groth16");
  EXPECT_EQ(json["curve"], name.ends_with("bls12381") ? "bls12381" : "bn128");
}

INSTANTIATE_TEST_SUITE_P(Circuits, SnarkjsVerifies,
                         ::testing::Values("mult_bn128", "poseidon_bn128", "many_public_bn128",
                                           "no_public_bn128", "mult_bls12381"));

TEST(SnarkjsOracle, RejectsTamperedProofsAndPublicSignals) {
  absl::StatusOr<ProofArtifacts> proof = ProveCase("poseidon_bn128");
  ASSERT_THAT(proof, IsOk());
  const fs::path vkey = Case("poseidon_bn128") / "vkey.json";
  nlohmann::json swapped = nlohmann::json::parse(proof->proof_json);
  std::swap(swapped["pi_a"], swapped["pi_c"]);  // two valid points in the wrong places
  EXPECT_FALSE(SnarkjsAccepts(vkey, proof->public_json, swapped.dump()));
  nlohmann::json public_signals = nlohmann::json::parse(proof->public_json);
  public_signals[0] = "12345";
  EXPECT_FALSE(SnarkjsAccepts(vkey, public_signals.dump(), proof->proof_json));
}

TEST(Determinism, SameSeedSameBytesOtherSeedOtherProofBothValid) {
  ProveOptions one;
  one.seed = Seed(1);
  ProveOptions two;
  two.seed = Seed(2);
  absl::StatusOr<ProofArtifacts> first = ProveCase("poseidon_bn128", one);
  absl::StatusOr<ProofArtifacts> again = ProveCase("poseidon_bn128", one);
  absl::StatusOr<ProofArtifacts> other = ProveCase("poseidon_bn128", two);
  absl::StatusOr<ProofArtifacts> unseeded = ProveCase("poseidon_bn128");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(again, IsOk());
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(unseeded, IsOk());
  EXPECT_EQ(first->proof_bytes, again->proof_bytes);
  EXPECT_EQ(first->proof_json, again->proof_json);
  EXPECT_NE(first->proof_bytes, other->proof_bytes);
  EXPECT_NE(first->proof_bytes, unseeded->proof_bytes);
  EXPECT_EQ(first->proof_bytes.size(), 256u);
  const fs::path vkey = Case("poseidon_bn128") / "vkey.json";
  EXPECT_TRUE(SnarkjsAccepts(vkey, first->public_json, first->proof_json));
  EXPECT_TRUE(SnarkjsAccepts(vkey, other->public_json, other->proof_json));
}

// A non-CPU backend whose every kernel call fails, as a GPU that ran out of memory would.
template <typename E>
class FailingBackend final : public Backend<E> {
 public:
  using typename Backend<E>::G1;
  using typename Backend<E>::G2;
  using typename Backend<E>::Fr;
  std::string_view name() const override { return "failing"; }
  bool is_cpu() const override { return false; }
  absl::StatusOr<curve::XyzzPoint<G1>> MsmG1(std::span<const curve::AffinePoint<G1>>,
                                             std::span<const msm::Scalar>) override {
    return absl::ResourceExhaustedError("injected: out of device memory");
  }
  absl::StatusOr<curve::XyzzPoint<G2>> MsmG2(std::span<const curve::AffinePoint<G2>>,
                                             std::span<const msm::Scalar>) override {
    return absl::ResourceExhaustedError("injected: out of device memory");
  }
  absl::Status NttStages(std::span<Fr>, const ntt::Twiddles<Fr>&, ntt::Direction, size_t,
                         size_t) override {
    return absl::UnavailableError("injected: device lost");
  }
  absl::Status ShiftToCoset(std::span<Fr>, const ntt::Twiddles<Fr>&, const Fr&) override {
    return absl::UnavailableError("injected: device lost");
  }
};

class CountingObserver final : public plan::ProofObserver {
 public:
  void RoundFinished(plan::Round, size_t, absl::Duration) override { ++rounds; }
  void ChunkFellBack(const plan::ChunkRef&, std::string_view backend,
                     const absl::Status& error) override {
    ++fallbacks;
    EXPECT_EQ(backend, "failing");
    EXPECT_FALSE(error.ok());
  }
  int rounds = 0;
  int fallbacks = 0;
};

template <typename E>
void ExpectScheduleIndependent(const std::string& name) {
  const Inputs<E> in = LoadTyped<E>(name);
  ProveOptions whole;
  whole.seed = Seed(7);
  CpuBackend<E> cpu(Pool());
  Backend<E>* only_cpu[] = {&cpu};
  const std::vector<uint8_t> reference =
      ProveBytes<E>(Pool(), in, whole, only_cpu, nullptr, nullptr);

  // Small chunks, split between two differently tuned backends: other windows, the other
  // bucket accumulation, one thread.
  ProveOptions chunked = whole;
  chunked.msm_chunk_points = 5;
  chunked.ntt_chunk_stages = 1;
  ThreadPool one_thread(1);
  msm::MsmOptions tuned;
  tuned.window_bits = 3;
  tuned.accumulation = msm::BucketAccumulation::kXyzz;
  CpuBackend<E> other(one_thread, tuned, "cpu-tuned");
  Backend<E>* two[] = {&cpu, &other};
  AlternatingPlacement alternate(2);
  EXPECT_EQ(ProveBytes<E>(Pool(), in, chunked, two, &alternate, nullptr), reference);
  EXPECT_GT(alternate.placed(), 20u);

  // A backend that fails every chunk: each falls back to the CPU, visibly, same bytes.
  FailingBackend<E> failing;
  Backend<E>* with_failing[] = {&cpu, &failing};
  AlternatingPlacement half_failing(2);
  CountingObserver observer;
  EXPECT_EQ(ProveBytes<E>(Pool(), in, chunked, with_failing, &half_failing, &observer), reference);
  EXPECT_EQ(observer.rounds, static_cast<int>(plan::kRoundCount));
  EXPECT_GE(observer.fallbacks, 10);
}

TEST(Schedule, ProofBytesDoNotDependOnWhereChunksRanBn128) {
  ExpectScheduleIndependent<Bn254Engine>("poseidon_bn128");
}

TEST(Schedule, ProofBytesDoNotDependOnWhereChunksRanBls12381) {
  ExpectScheduleIndependent<Bls12381Engine>("mult_bls12381");
}

TEST(Schedule, TheFirstBackendMustBeTheCpu) {
  const Inputs<Bn254Engine> in = LoadTyped<Bn254Engine>("mult_bn128");
  FailingBackend<Bn254Engine> failing;
  Backend<Bn254Engine>* backends[] = {&failing};
  ProveContext<Bn254Engine> context{backends, &Pool(), nullptr, nullptr, nullptr};
  EXPECT_THAT(Prove<Bn254Engine>(*in.key, in.witness, {}, context),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be the CPU")));
}

// MSM progress kept in memory, as the daemon keeps it in its job store.
class MemoryCheckpoint final : public plan::ProofCheckpoint {
 public:
  std::optional<plan::MsmProgress> Load(std::string_view binding, plan::Round round) override {
    auto it = saved.find({std::string(binding), round});
    if (it == saved.end()) return std::nullopt;
    ++loads;
    return it->second;
  }
  void Save(std::string_view binding, plan::Round round,
            const plan::MsmProgress& progress) override {
    saved[{std::string(binding), round}] = progress;
  }
  std::map<std::pair<std::string, plan::Round>, plan::MsmProgress> saved;
  int loads = 0;
};

// Counts the chunks placed and raises `stop` once `limit` have been: an interruption.
class StoppingPlacement final : public plan::ChunkPlacement {
 public:
  StoppingPlacement(size_t limit, std::atomic<bool>* stop) : limit_(limit), stop_(stop) {}
  size_t Place(const plan::ChunkRef& chunk) override {
    if (chunk.round >= plan::Round::kMsmA) ++msm_chunks;
    if (++placed_ >= limit_ && stop_ != nullptr) stop_->store(true);
    return 0;
  }
  size_t msm_chunks = 0;

 private:
  size_t placed_ = 0;
  size_t limit_;
  std::atomic<bool>* stop_;
};

TEST(Checkpoint, AnInterruptedProofResumesFromItsSavedMsmChunksWithTheSameBytes) {
  const Inputs<Bn254Engine> in = LoadTyped<Bn254Engine>("poseidon_bn128");
  ProveOptions options;
  options.seed = Seed(9);
  options.msm_chunk_points = 16;
  CpuBackend<Bn254Engine> cpu(Pool());
  Backend<Bn254Engine>* backends[] = {&cpu};
  StoppingPlacement full(SIZE_MAX, nullptr);
  const std::vector<uint8_t> reference =
      ProveBytes<Bn254Engine>(Pool(), in, options, backends, &full, nullptr);
  ASSERT_GT(full.msm_chunks, 40u);

  // Interrupted in the middle of its MSMs.
  MemoryCheckpoint checkpoint;
  std::atomic<bool> stop{false};
  StoppingPlacement interrupting(full.msm_chunks / 2 + 10, &stop);
  ProveContext<Bn254Engine> first{backends, &Pool(), &interrupting, nullptr, &stop, &checkpoint};
  EXPECT_THAT(Prove<Bn254Engine>(*in.key, in.witness, options, first),
              StatusIs(absl::StatusCode::kCancelled, _));
  ASSERT_FALSE(checkpoint.saved.empty());

  // The next attempt runs only the chunks that were not done, and proves the same bytes.
  StoppingPlacement resumed(SIZE_MAX, nullptr);
  ProveContext<Bn254Engine> second{backends, &Pool(), &resumed, nullptr, nullptr, &checkpoint};
  absl::StatusOr<Proof<Bn254Engine>> proof =
      Prove<Bn254Engine>(*in.key, in.witness, options, second);
  ASSERT_THAT(proof, IsOk());
  EXPECT_EQ(ProofBytes<Bn254Engine>(*proof), reference);
  EXPECT_GT(checkpoint.loads, 0);
  EXPECT_LT(resumed.msm_chunks, full.msm_chunks);

  // Progress that is not this proof's, or not a point, is ignored: same bytes, all chunks run.
  MemoryCheckpoint tampered;
  for (auto [key, progress] : checkpoint.saved) {
    progress.partial_sum[progress.partial_sum.size() / 2] ^= 1;  // off the curve
    tampered.saved[key] = progress;
  }
  ProveOptions other_chunks = options;
  other_chunks.msm_chunk_points = 17;  // another chunking: saved chunks do not line up
  for (auto [checkpoint_used, used_options] :
       {std::pair{&tampered, options}, std::pair{&checkpoint, other_chunks}}) {
    StoppingPlacement all(SIZE_MAX, nullptr);
    ProveContext<Bn254Engine> context{backends, &Pool(), &all, nullptr, nullptr, checkpoint_used};
    absl::StatusOr<Proof<Bn254Engine>> again =
        Prove<Bn254Engine>(*in.key, in.witness, used_options, context);
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(ProofBytes<Bn254Engine>(*again), reference);
  }
}

TEST(Cancel, ACancelledProofStopsWithCancelled) {
  absl::StatusOr<AnyProvingKey> key =
      LoadProvingKey((Case("poseidon_bn128") / "circuit.zkey").string());
  absl::StatusOr<Witness> witness =
      ReadWitnessFile((Case("poseidon_bn128") / "witness.wtns").string());
  ASSERT_THAT(key, IsOk());
  ASSERT_THAT(witness, IsOk());
  std::atomic<bool> cancelled{true};
  EXPECT_THAT(ProveOnCpu(*key, *witness, {}, Pool(), nullptr, &cancelled),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("witness_map")));
}

// Byte offset of section `id`'s body in an iden3 container file.
size_t SectionOffset(const std::string& bytes, uint32_t id) {
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  size_t offset = 12;
  for (uint32_t i = 0; i < u32(8); ++i) {
    uint64_t size;
    std::memcpy(&size, bytes.data() + offset + 4, 8);
    if (u32(offset) == id) return offset + 12;
    offset += 12 + size;
  }
  throw std::runtime_error("no such section");
}

TEST(BadInputs, ClearErrorsForMismatchedTruncatedAndCorruptedFiles) {
  testing::TempDir dir;
  const std::string zkey = testing::ReadFile(Case("mult_bn128") / "circuit.zkey");
  const std::string wtns = testing::ReadFile(Case("mult_bn128") / "witness.wtns");
  ASSERT_FALSE(zkey.empty());
  ASSERT_FALSE(wtns.empty());

  absl::StatusOr<AnyProvingKey> key =
      LoadProvingKey((Case("mult_bn128") / "circuit.zkey").string());
  ASSERT_THAT(key, IsOk());
  absl::StatusOr<Witness> poseidon_witness =
      ReadWitnessFile((Case("poseidon_bn128") / "witness.wtns").string());
  absl::StatusOr<Witness> bls_witness =
      ReadWitnessFile((Case("mult_bls12381") / "witness.wtns").string());
  ASSERT_THAT(poseidon_witness, IsOk());
  ASSERT_THAT(bls_witness, IsOk());
  EXPECT_THAT(
      ProveOnCpu(*key, *poseidon_witness, {}, Pool()),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(a witness of another circuit?)")));
  EXPECT_THAT(ProveOnCpu(*key, *bls_witness, {}, Pool()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the witness is over another field than the bn128 key")));

  testing::WriteFile(dir / "half.zkey", zkey.substr(0, zkey.size() / 2));
  EXPECT_THAT(LoadProvingKey((dir / "half.zkey").string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated")));
  testing::WriteFile(dir / "half.wtns", wtns.substr(0, wtns.size() - 5));
  EXPECT_THAT(ReadWitnessFile((dir / "half.wtns").string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated")));
  testing::WriteFile(dir / "plain.zkey", "this is not a zkey at all");
  EXPECT_THAT(LoadProvingKey((dir / "plain.zkey").string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a .zkey file")));

  // Point 2 of the B1 section moved off the curve: x = y = 1 (Montgomery form of 1 = R mod q).
  std::string corrupted = zkey;
  const size_t at = SectionOffset(zkey, kZkeyB1) + 2 * 64;
  std::string one(32, '\0');
  Bn254Engine::Fq::One().ToMontBytesLE(std::span(reinterpret_cast<uint8_t*>(one.data()), 32));
  corrupted.replace(at, 64, one + one);
  testing::WriteFile(dir / "corrupt.zkey", corrupted);
  absl::StatusOr<AnyProvingKey> bad_key = LoadProvingKey((dir / "corrupt.zkey").string());
  ASSERT_THAT(bad_key, IsOk());  // points are checked as the rounds decode them
  absl::StatusOr<Witness> witness = ReadWitnessFile((Case("mult_bn128") / "witness.wtns").string());
  ASSERT_THAT(witness, IsOk());
  EXPECT_THAT(ProveOnCpu(*bad_key, *witness, {}, Pool()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("msm_b1: " + (dir / "corrupt.zkey").string() +
                                 ": section 6 (B1 points): point 2: bn254 G1 point is not on "
                                 "the curve")));
}

TEST(ProveCommand, WritesVerifiableFilesAndFailsClearly) {
  testing::TempDir dir;
  const fs::path c = Case("mult_bn128");
  auto prove = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {PROVD_BINARY,   "prove",
                                     "--zkey",       (c / "circuit.zkey").string(),
                                     "--witness",    (c / "witness.wtns").string(),
                                     "--proof-out",  (dir / "proof.json").string(),
                                     "--public-out", (dir / "public.json").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    absl::StatusOr<testing::ExitInfo> run =
        testing::RunToCompletion(argv, dir.path(), absl::Seconds(60));
    EXPECT_THAT(run, IsOk());
    return run.ok() ? *run : testing::ExitInfo{};
  };

  testing::ExitInfo ok = prove({"--seed", "00ff", "--verbose", "--proof-binary-out",
                                (dir / "proof.bin").string(), "--threads", "1"});
  EXPECT_TRUE(ok.exited && ok.code == 0) << ok.stderr_text;
  EXPECT_THAT(ok.stderr_text, HasSubstr("msm_b2"));
  EXPECT_EQ(fs::file_size(dir / "proof.bin"), 256u);
  const std::string first = testing::ReadFile(dir / "proof.json");
  EXPECT_TRUE(SnarkjsAccepts(c / "vkey.json", testing::ReadFile(dir / "public.json"), first));
  prove({"--seed", "0x00FF"});
  EXPECT_EQ(testing::ReadFile(dir / "proof.json"), first);  // same seed, same proof

  // A key whose verification key does not match: the proof is not written.
  testing::WriteFile(dir / "inconsistent.zkey", testing::ZkeyWithWrongGamma2(c / "circuit.zkey"));
  fs::remove(dir / "proof.json");
  {
    std::vector<std::string> argv = {PROVD_BINARY,   "prove",
                                     "--zkey",       (dir / "inconsistent.zkey").string(),
                                     "--witness",    (c / "witness.wtns").string(),
                                     "--proof-out",  (dir / "proof.json").string(),
                                     "--public-out", (dir / "public.json").string()};
    absl::StatusOr<testing::ExitInfo> run =
        testing::RunToCompletion(argv, dir.path(), absl::Seconds(60));
    ASSERT_THAT(run, IsOk());
    EXPECT_EQ(run->code, 1) << run->stderr_text;
    EXPECT_THAT(run->stderr_text, HasSubstr("fails verification"));
    EXPECT_FALSE(fs::exists(dir / "proof.json"));
  }

  testing::ExitInfo bad_seed = prove({"--seed", "xyz"});
  EXPECT_TRUE(bad_seed.exited && bad_seed.code == 2);
  EXPECT_THAT(bad_seed.stderr_text, HasSubstr("--seed"));
  const std::string locks = (dir / "locks").string();
  testing::ExitInfo second_gpu =
      prove({"--simulated-gpus", "2", "--gpus", "1", "--lock-dir", locks, "--seed", "00ff"});
  EXPECT_TRUE(second_gpu.exited && second_gpu.code == 0) << second_gpu.stderr_text;
  EXPECT_THAT(second_gpu.stderr_text, HasSubstr("granted device 1"));
  EXPECT_EQ(testing::ReadFile(dir / "proof.json"), first);  // same bytes on a (simulated) GPU
  testing::ExitInfo no_such_gpu =
      prove({"--simulated-gpus", "2", "--gpus", "5", "--lock-dir", locks});
  EXPECT_TRUE(no_such_gpu.exited && no_such_gpu.code == 2);
  EXPECT_THAT(no_such_gpu.stderr_text, HasSubstr("device 5 is not usable"));
  testing::ExitInfo gpu = prove({"--backend", "gpu"});
  EXPECT_TRUE(gpu.exited && gpu.code == 1);
  EXPECT_THAT(gpu.stderr_text, HasSubstr("--backend gpu: no usable GPU"));

  absl::StatusOr<testing::ExitInfo> missing = testing::RunToCompletion(
      {PROVD_BINARY, "prove", "--zkey", (dir / "absent.zkey").string(), "--witness",
       (c / "witness.wtns").string(), "--proof-out", (dir / "p.json").string(), "--public-out",
       (dir / "q.json").string()},
      dir.path(), absl::Seconds(60));
  ASSERT_THAT(missing, IsOk());
  EXPECT_TRUE(missing->exited && missing->code == 1);
  EXPECT_THAT(missing->stderr_text, HasSubstr("absent.zkey"));
  EXPECT_FALSE(fs::exists(dir / "p.json"));
}

}  // namespace
}  // namespace provd::groth16
