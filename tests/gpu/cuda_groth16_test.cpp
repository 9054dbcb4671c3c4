// Groth16 proofs with the CUDA backend in the schedule: GPU only, chunks alternating between
// GPU and CPU, and GPU calls failing by fault injection; each must give the CPU-only proof's
// bytes, and snarkjs must accept it.
//
// Not skipped without a GPU: there every CUDA call fails and every chunk falls back to the CPU,
// visibly, which is the fallback path CI must keep working. With a GPU, no chunk may fall back
// unless faults are injected.
#include <string>
#include <vector>

#include "arbiter/arbiter.hpp"
#include "gtest/gtest.h"
#include "kernels/cuda_backend_factory.hpp"
#include "kernels/cuda_devices.hpp"
#include "prover_core/cpu_backend.hpp"
#include "prover_core/device_lost.hpp"
#include "prover_core/plan/lease_placement.hpp"
#include "tests/support/proving.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using ::provd::testing::AlternatingPlacement;
using ::provd::testing::FixedPlacement;
using ::provd::testing::Inputs;
using ::provd::testing::LoadTyped;
using ::provd::testing::ProveBytes;

ThreadPool& Pool() {
  static ThreadPool pool(2);
  return pool;
}

class FallbackCounter final : public plan::ProofObserver {
 public:
  void ChunkFellBack(const plan::ChunkRef&, std::string_view backend,
                     const absl::Status& error) override {
    ++fallbacks;
    EXPECT_EQ(backend, "cuda:0");
    EXPECT_FALSE(absl::IsInvalidArgument(error)) << error;
  }
  int fallbacks = 0;
};

template <typename E>
void ExpectCudaSchedulesGiveTheCpuBytes(const std::string& name) {
  const bool has_gpu = !kernels::ProbeCudaDevices().devices.empty();
  const Inputs<E> in = LoadTyped<E>(name);
  ProveOptions options;
  options.seed = std::vector<uint8_t>(16, 9);
  options.msm_chunk_points = 7;
  options.ntt_chunk_stages = 2;
  CpuBackend<E> cpu(Pool());
  Backend<E>* only_cpu[] = {&cpu};
  const std::vector<uint8_t> reference =
      ProveBytes<E>(Pool(), in, options, only_cpu, nullptr, nullptr);
  ASSERT_FALSE(reference.empty());

  // LDE rounds in stage chunks (2 stages each), then whole (one ShiftToCoset per column): the
  // same bytes as the CPU's either way.
  for (const size_t ntt_chunk_stages : {size_t{2}, size_t{0}}) {
    SCOPED_TRACE(::testing::Message() << "ntt_chunk_stages " << ntt_chunk_stages);
    options.ntt_chunk_stages = ntt_chunk_stages;
    kernels::CudaBackend<E> gpu(0, {});
    Backend<E>* both[] = {&cpu, &gpu};
    {
      SCOPED_TRACE("every chunk on the GPU");
      FixedPlacement on_gpu(1);
      FallbackCounter observer;
      EXPECT_EQ(ProveBytes<E>(Pool(), in, options, both, &on_gpu, &observer), reference);
      if (has_gpu) {
        EXPECT_EQ(observer.fallbacks, 0);
      } else {
        EXPECT_GT(observer.fallbacks, 10);  // no device: every chunk fell back, visibly
      }
    }
    {
      SCOPED_TRACE("chunks alternating between GPU and CPU, memory released in between");
      AlternatingPlacement alternate(2);
      FallbackCounter observer;
      EXPECT_EQ(ProveBytes<E>(Pool(), in, options, both, &alternate, &observer), reference);
      gpu.ReleaseDeviceMemory();
      EXPECT_EQ(gpu.device_bytes(), 0u);
    }
    {
      SCOPED_TRACE("every other GPU call fails (fault injection)");
      kernels::CudaSessionOptions faulty;
      faulty.fail_every = 2;
      kernels::CudaBackend<E> failing(0, faulty);
      Backend<E>* with_failing[] = {&cpu, &failing};
      FixedPlacement on_gpu(1);
      FallbackCounter observer;
      EXPECT_EQ(ProveBytes<E>(Pool(), in, options, with_failing, &on_gpu, &observer), reference);
      EXPECT_GT(observer.fallbacks, 0);
    }
  }
}

TEST(CudaSchedule, Bn128ProofBytesDoNotDependOnTheGpu) {
  ExpectCudaSchedulesGiveTheCpuBytes<Bn254Engine>("poseidon_bn128");
}

TEST(CudaSchedule, Bls12381ProofBytesDoNotDependOnTheGpu) {
  ExpectCudaSchedulesGiveTheCpuBytes<Bls12381Engine>("mult_bls12381");
}

TEST(CudaSchedule, AGpuProofIsAcceptedBySnarkjs) {
  const Inputs<Bn254Engine> in = LoadTyped<Bn254Engine>("poseidon_bn128");
  CpuBackend<Bn254Engine> cpu(Pool());
  kernels::CudaBackend<Bn254Engine> gpu(0, {});
  Backend<Bn254Engine>* both[] = {&cpu, &gpu};
  FixedPlacement on_gpu(1);
  ProveContext<Bn254Engine> context{both, &Pool(), &on_gpu, nullptr, nullptr};
  absl::StatusOr<Proof<Bn254Engine>> proof = Prove<Bn254Engine>(*in.key, in.witness, {}, context);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_TRUE(testing::SnarkjsAccepts(
      PROVD_SNARKJS, testing::CircuitCase("poseidon_bn128") / "vkey.json",
      PublicJson(in.witness, in.key->header().n_public), ProofJson<Bn254Engine>(*proof)));
}

// A device lost mid-proof (fault injection marks the injected failure as a sticky error, which
// a real one would ruin the test process's context with): the proof falls back once, retires
// the device through its lease, finishes on the CPU with the CPU's bytes and frees the device
// memory; no later lease of this arbiter takes the device.
TEST(CudaSchedule, ALostDeviceIsRetiredAndTheProofFinishesOnTheCpu) {
  if (kernels::ProbeCudaDevices().devices.empty()) GTEST_SKIP() << "needs a CUDA device";
  using E = Bn254Engine;
  const Inputs<E> in = LoadTyped<E>("poseidon_bn128");
  ProveOptions options;
  options.seed = std::vector<uint8_t>(16, 3);
  options.msm_chunk_points = 64;
  CpuBackend<E> cpu(Pool());
  Backend<E>* only_cpu[] = {&cpu};
  const std::vector<uint8_t> reference =
      ProveBytes<E>(Pool(), in, options, only_cpu, nullptr, nullptr);

  testing::TempDir locks;
  absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
      arbiter::Arbiter::Open(locks / "l", 1);
  ASSERT_TRUE(arbiter.ok()) << arbiter.status();
  absl::StatusOr<arbiter::DeviceLease> lease = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_TRUE(lease.ok()) << lease.status();
  ASSERT_EQ(lease->device(), std::optional<size_t>(0));

  kernels::CudaSessionOptions dying;
  dying.fail_every = 3;
  dying.fault_is_loss = true;
  kernels::CudaBackend<E> gpu(0, dying);
  Backend<E>* both[] = {&cpu, &gpu};
  struct Observer final : plan::ProofObserver {
    void ChunkFellBack(const plan::ChunkRef&, std::string_view, const absl::Status& e) override {
      ++fallbacks;
      EXPECT_TRUE(IsDeviceLost(e)) << e;
    }
    void DeviceRetired(const plan::ChunkRef&, size_t device, const absl::Status&) override {
      retired.push_back(device);
    }
    int fallbacks = 0;
    std::vector<size_t> retired;
  } observer;
  plan::LeasePlacement placement(
      *lease, [&](size_t) { gpu.ReleaseDeviceMemory(); }, &observer);
  EXPECT_EQ(ProveBytes<E>(Pool(), in, options, both, &placement, &observer), reference);
  EXPECT_EQ(observer.fallbacks, 1);
  EXPECT_EQ(observer.retired, std::vector<size_t>{0});
  EXPECT_EQ(gpu.device_bytes(), 0u);
  EXPECT_EQ(lease->device(), std::nullopt);
  EXPECT_TRUE((*arbiter)->retired(0));
  absl::StatusOr<arbiter::DeviceLease> next = (*arbiter)->Acquire(arbiter::Priority::kLow, {});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->device(), std::nullopt);
}

}  // namespace
}  // namespace provd::groth16
