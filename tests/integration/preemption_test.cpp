// A low-priority proof on a (simulated) GPU is preempted by a high-priority prover mid-proof:
// it frees the device memory, yields the device within a chunk, carries on on the CPU, moves
// back once the device is free, and its proof is byte-identical to an undisturbed one with the
// same seed (and verified by snarkjs).
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "arbiter/arbiter.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/cpu_backend.hpp"
#include "prover_core/device_lost.hpp"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/proof_format.hpp"
#include "prover_core/plan/lease_placement.hpp"
#include "prover_core/simulated_gpu.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd {
namespace {

using ::provd::testing::IsOk;
using E = groth16::Bn254Engine;

class RecordingObserver final : public plan::ProofObserver {
 public:
  void DeviceMoved(const plan::ChunkRef& chunk, plan::DeviceMove move, size_t device,
                   absl::Duration took) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      moves.push_back({chunk, move, device, took, absl::Now()});
    }
    if (move == plan::DeviceMove::kYielded && after_yield) after_yield();
  }
  // Runs on the proving thread right after it yielded.
  std::function<void()> after_yield;
  struct Move {
    plan::ChunkRef chunk;
    plan::DeviceMove move;
    size_t device;
    absl::Duration took;
    absl::Time at;
  };
  std::vector<Move> Moves() {
    std::lock_guard<std::mutex> lock(mutex_);
    return moves;
  }

 private:
  std::mutex mutex_;
  std::vector<Move> moves;
};

// A fixture circuit loaded for BN254, with a pool and the undisturbed CPU-only proof.
struct Case {
  explicit Case(const std::string& name, groth16::ProveOptions prove_options)
      : dir(testing::CircuitCase(name)), options(std::move(prove_options)) {
    absl::StatusOr<groth16::AnyProvingKey> any =
        groth16::LoadProvingKey((dir / "circuit.zkey").string());
    absl::StatusOr<groth16::Witness> read =
        groth16::ReadWitnessFile((dir / "witness.wtns").string());
    if (!any.ok() || !read.ok()) throw std::runtime_error("cannot load fixture " + name);
    key = std::get<std::shared_ptr<const groth16::ProvingKey<E>>>(*any);
    witness = *std::move(read);
    Backend<E>* cpu_only[] = {&cpu};
    absl::StatusOr<groth16::Proof<E>> proof =
        groth16::Prove<E>(*key, witness, options, {cpu_only, &pool, nullptr, nullptr, nullptr});
    if (!proof.ok()) throw std::runtime_error(proof.status().ToString());
    reference = groth16::ProofBytes<E>(*proof);
  }
  absl::StatusOr<groth16::Proof<E>> Prove(std::span<Backend<E>* const> backends,
                                          plan::ChunkPlacement* placement,
                                          plan::ProofObserver* observer) {
    return groth16::Prove<E>(*key, witness, options,
                             {backends, &pool, placement, observer, nullptr});
  }

  std::filesystem::path dir;
  groth16::ProveOptions options;
  std::shared_ptr<const groth16::ProvingKey<E>> key;
  groth16::Witness witness;
  ThreadPool pool{2};
  CpuBackend<E> cpu{pool};
  std::vector<uint8_t> reference;
};

TEST(Preemption, LowProofYieldsToHighAndReturnsWithTheSameBytes) {
  groth16::ProveOptions options;
  options.seed = std::vector<uint8_t>{42};
  options.msm_chunk_points = 8;  // many chunks: room to be preempted in the middle
  options.ntt_chunk_stages = 1;
  Case c("poseidon_bn128", options);

  testing::TempDir locks;
  absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
      arbiter::Arbiter::Open(locks / "l", 1);
  ASSERT_THAT(arbiter, IsOk());
  absl::StatusOr<arbiter::DeviceLease> low = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_THAT(low, IsOk());
  ASSERT_EQ(low->device(), std::optional<size_t>(0));

  SimulatedGpuOptions gpu_options;
  gpu_options.latency_per_call = absl::Milliseconds(5);  // ~0.7 s of "GPU" work in all
  SimulatedGpuBackend<E> gpu(0, c.pool, gpu_options);
  Backend<E>* backends[] = {&c.cpu, &gpu};
  RecordingObserver observer;
  // Hold the low prover right after its yield until the high one is done, so that it has
  // chunks left to return with however fast its CPU is.
  std::promise<void> high_done;
  std::shared_future<void> high_done_future = high_done.get_future().share();
  observer.after_yield = [&] { high_done_future.wait_for(std::chrono::seconds(20)); };
  plan::LeasePlacement placement(
      *low, [&](size_t) { gpu.ReleaseDeviceMemory(); }, &observer);

  absl::StatusOr<groth16::Proof<E>> low_proof;
  std::thread low_prover([&] { low_proof = c.Prove(backends, &placement, &observer); });
  absl::SleepFor(absl::Milliseconds(150));  // the low proof is under way on the GPU
  const absl::Time asked = absl::Now();
  {
    absl::StatusOr<arbiter::DeviceLease> high =
        (*arbiter)->Acquire(arbiter::Priority::kHigh, absl::Seconds(20));
    // EXPECT, not ASSERT: returning early with the low prover's thread running would abort.
    EXPECT_THAT(high, IsOk());
    EXPECT_EQ(high.ok() ? high->device() : std::nullopt, std::optional<size_t>(0));
    // Within one chunk: at most one simulated call (5 ms) plus a probe interval, with a wide
    // margin for a loaded CI machine. The figure that matters is in bench/, not here.
    EXPECT_LT(absl::Now() - asked, absl::Seconds(2));
    absl::SleepFor(absl::Milliseconds(50));  // the high proof runs
  }
  high_done.set_value();
  low_prover.join();
  ASSERT_THAT(low_proof, IsOk());
  EXPECT_EQ(groth16::ProofBytes<E>(*low_proof), c.reference);

  const std::vector<RecordingObserver::Move> moves = observer.Moves();
  ASSERT_GE(moves.size(), 2u);
  EXPECT_EQ(moves[0].move, plan::DeviceMove::kYielded);
  EXPECT_EQ(moves[1].move, plan::DeviceMove::kReturned);
  EXPECT_GE(gpu.releases(), 1u);
  EXPECT_EQ(low->device(), std::optional<size_t>(0));  // back on the device at the end
  EXPECT_TRUE(testing::SnarkjsAccepts(PROVD_SNARKJS, c.dir / "vkey.json",
                                      groth16::PublicJson(c.witness, c.key->header().n_public),
                                      groth16::ProofJson<E>(*low_proof)));
}

TEST(SimulatedGpu, AFailingDeviceFallsBackToTheCpuVisibly) {
  groth16::ProveOptions options;
  options.seed = std::vector<uint8_t>{1};
  options.msm_chunk_points = 4;
  Case c("mult_bn128", options);

  struct AlwaysGpu final : plan::ChunkPlacement {
    size_t Place(const plan::ChunkRef&) override { return 1; }
  } always_gpu;
  struct Fallbacks final : plan::ProofObserver {
    void ChunkFellBack(const plan::ChunkRef&, std::string_view, const absl::Status& e) override {
      ++count;
      last = e;
    }
    int count = 0;
    absl::Status last;
  } fallbacks;
  SimulatedGpuOptions faulty;
  faulty.fail_every = 3;
  SimulatedGpuBackend<E> gpu(0, c.pool, faulty);
  Backend<E>* backends[] = {&c.cpu, &gpu};
  absl::StatusOr<groth16::Proof<E>> proof = c.Prove(backends, &always_gpu, &fallbacks);
  ASSERT_THAT(proof, IsOk());
  EXPECT_EQ(groth16::ProofBytes<E>(*proof), c.reference);
  EXPECT_GE(fallbacks.count, 3);
  EXPECT_THAT(fallbacks.last, testing::StatusIs(absl::StatusCode::kUnavailable,
                                                ::testing::HasSubstr("injected device failure")));

  SimulatedGpuOptions tiny;
  tiny.vram_bytes = 64;  // nothing fits: every chunk falls back, visibly
  SimulatedGpuBackend<E> small_gpu(0, c.pool, tiny);
  Backend<E>* small[] = {&c.cpu, &small_gpu};
  fallbacks.count = 0;
  proof = c.Prove(small, &always_gpu, &fallbacks);
  ASSERT_THAT(proof, IsOk());
  EXPECT_EQ(groth16::ProofBytes<E>(*proof), c.reference);
  EXPECT_GT(fallbacks.count, 10);
  EXPECT_THAT(fallbacks.last, testing::StatusIs(absl::StatusCode::kResourceExhausted,
                                                ::testing::HasSubstr("bytes of VRAM")));
}

// A device lost mid-proof (a sticky CUDA error, here simulated) is retired: the proof frees it,
// gives it up for good and carries on on the other device, with the same bytes; no lease of
// this process takes the retired device again, while another process (another arbiter) still
// may: its context there is its own.
TEST(SimulatedGpu, ALostDeviceIsRetiredAndTheProofMovesOn) {
  groth16::ProveOptions options;
  options.seed = std::vector<uint8_t>{7};
  options.msm_chunk_points = 8;
  options.ntt_chunk_stages = 1;
  Case c("mult_bn128", options);

  testing::TempDir locks;
  absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
      arbiter::Arbiter::Open(locks / "l", 2);
  ASSERT_THAT(arbiter, IsOk());
  absl::StatusOr<arbiter::DeviceLease> lease = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_THAT(lease, IsOk());
  ASSERT_EQ(lease->device(), std::optional<size_t>(0));

  SimulatedGpuOptions dying;
  dying.lost_at_call = 3;  // two chunks succeed, then every call fails
  SimulatedGpuBackend<E> gpu0(0, c.pool, dying);
  SimulatedGpuBackend<E> gpu1(1, c.pool);
  Backend<E>* backends[] = {&c.cpu, &gpu0, &gpu1};
  struct Observer final : plan::ProofObserver {
    void ChunkFellBack(const plan::ChunkRef&, std::string_view backend,
                       const absl::Status& error) override {
      fell_back.emplace_back(backend);
      EXPECT_TRUE(IsDeviceLost(error)) << error;
    }
    void DeviceRetired(const plan::ChunkRef&, size_t device, const absl::Status& error) override {
      retired.push_back(device);
      EXPECT_THAT(error.message(), ::testing::HasSubstr("injected loss"));
    }
    std::vector<std::string> fell_back;
    std::vector<size_t> retired;
  } observer;
  plan::LeasePlacement placement(
      *lease,
      [&](size_t device) {
        if (device == 0) gpu0.ReleaseDeviceMemory();
        if (device == 1) gpu1.ReleaseDeviceMemory();
      },
      &observer);

  absl::StatusOr<groth16::Proof<E>> proof = c.Prove(backends, &placement, &observer);
  ASSERT_THAT(proof, IsOk());
  EXPECT_EQ(groth16::ProofBytes<E>(*proof), c.reference);
  // One failed chunk, not one per chunk: after it the device was never asked again.
  EXPECT_EQ(observer.fell_back, std::vector<std::string>{"simulated-gpu:0"});
  EXPECT_EQ(observer.retired, std::vector<size_t>{0});
  EXPECT_EQ(gpu0.bytes_resident(), 0u);
  EXPECT_GT(gpu1.uploads(), 0u);  // the rest of the proof ran on the other device
  EXPECT_EQ(lease->device(), std::optional<size_t>(1));
  EXPECT_TRUE((*arbiter)->retired(0));
  EXPECT_FALSE((*arbiter)->retired(1));

  // This process: device 0 is retired, device 1 held, so a new low lease gets the CPU.
  absl::StatusOr<arbiter::DeviceLease> next = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(next->device(), std::nullopt);
  // Another process: its arbiter has retired nothing, and device 0 is unlocked.
  absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> other = arbiter::Arbiter::Open(locks / "l", 2);
  ASSERT_THAT(other, IsOk());
  absl::StatusOr<arbiter::DeviceLease> theirs = (*other)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_THAT(theirs, IsOk());
  EXPECT_EQ(theirs->device(), std::optional<size_t>(0));
}

// With every device retired, a high-priority prover of this process does not wait for one.
TEST(SimulatedGpu, AHighLeaseDoesNotWaitWhenEveryDeviceIsRetired) {
  testing::TempDir locks;
  absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
      arbiter::Arbiter::Open(locks / "l", 1);
  ASSERT_THAT(arbiter, IsOk());
  {
    absl::StatusOr<arbiter::DeviceLease> lease = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
    ASSERT_THAT(lease, IsOk());
    ASSERT_EQ(lease->device(), std::optional<size_t>(0));
    lease->Retire();
    EXPECT_EQ(lease->device(), std::nullopt);
    EXPECT_FALSE(lease->TryReturn());
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<arbiter::DeviceLease> high =
      (*arbiter)->Acquire(arbiter::Priority::kHigh, absl::Seconds(30));
  ASSERT_THAT(high, IsOk());
  EXPECT_EQ(high->device(), std::nullopt);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // not the 30 s wait
}

// Two real `provd prove` processes sharing a lock directory: the low one holds the simulated GPU
// when the high one starts, yields it within a chunk, finishes on the CPU, and both proofs
// verify; each one's bytes equal an undisturbed CPU proof with the same seed.
TEST(Preemption, BetweenRealProverProcesses) {
  const auto dir = testing::CircuitCase("poseidon_bn128");
  testing::TempDir work;
  auto argv = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {PROVD_BINARY,
                                     "prove",
                                     "--zkey",
                                     (dir / "circuit.zkey").string(),
                                     "--witness",
                                     (dir / "witness.wtns").string(),
                                     "--proof-out",
                                     (work / (name + ".json")).string(),
                                     "--public-out",
                                     (work / (name + ".public.json")).string(),
                                     "--proof-binary-out",
                                     (work / (name + ".bin")).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<std::string> gpu = {
      "--simulated-gpus",   "1", "--msm-chunk-points", "8",
      "--ntt-chunk-stages", "1", "--lock-dir",         (work / "locks").string()};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  for (const char* seed : {"01", "02"}) {  // undisturbed CPU-only proofs to compare with
    absl::StatusOr<testing::ExitInfo> reference = testing::RunToCompletion(
        argv(std::string("reference") + seed, {"--seed", seed, "--gpus", "none"}), work.path(),
        absl::Seconds(60));
    ASSERT_THAT(reference, IsOk());
    ASSERT_EQ(reference->code, 0) << reference->stderr_text;
  }

  absl::StatusOr<testing::Subprocess> low = testing::Subprocess::Start(
      argv("low", with({"--seed", "01", "--priority", "low", "--low-priority-nice", "5",
                        // ~2.5 s of "GPU" work: the high one surely arrives in the middle
                        "--simulated-gpu-latency-ms", "10"},
                       gpu)),
      work.path());
  ASSERT_THAT(low, IsOk());
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (low->Stderr().find("low priority: granted device 0") == std::string::npos &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(2));
  }
  ASSERT_THAT(low->Stderr(), ::testing::HasSubstr("low priority: granted device 0"));
  // Its threads run at the nice value asked for (field 19 of /proc/PID/stat), out of the high
  // prover's way. (5, not the default 19: the other tests of a parallel ctest run must not
  // starve this one.)
  const std::string stat = testing::ReadFile("/proc/" + std::to_string(low->pid()) + "/stat");
  const std::vector<std::string> fields = absl::StrSplit(stat.substr(stat.rfind(')') + 2), ' ');
  ASSERT_GT(fields.size(), 17u) << stat;
  EXPECT_EQ(fields[16], "5") << stat;
  absl::StatusOr<testing::ExitInfo> high = testing::RunToCompletion(
      argv("high", with({"--seed", "02", "--priority", "high", "--gpu-wait", "30",
                         "--simulated-gpu-latency-ms", "5"},
                        gpu)),
      work.path(), absl::Seconds(60));
  ASSERT_THAT(high, IsOk());
  absl::StatusOr<testing::ExitInfo> low_exit = low->Wait(absl::Seconds(60));
  ASSERT_THAT(low_exit, IsOk());
  EXPECT_EQ(high->code, 0) << high->stderr_text;
  EXPECT_EQ(low_exit->code, 0) << low_exit->stderr_text;
  EXPECT_THAT(high->stderr_text, ::testing::HasSubstr("high priority: granted device 0"));
  EXPECT_THAT(low_exit->stderr_text, ::testing::HasSubstr("yielded device 0"));
  EXPECT_EQ(testing::ReadFile(work / "low.bin"), testing::ReadFile(work / "reference01.bin"));
  EXPECT_EQ(testing::ReadFile(work / "high.bin"), testing::ReadFile(work / "reference02.bin"));
  for (const char* name : {"low", "high"}) {
    EXPECT_TRUE(
        testing::SnarkjsAccepts(PROVD_SNARKJS, dir / "vkey.json",
                                testing::ReadFile(work / (std::string(name) + ".public.json")),
                                testing::ReadFile(work / (std::string(name) + ".json"))))
        << name;
  }
}

}  // namespace
}  // namespace provd
