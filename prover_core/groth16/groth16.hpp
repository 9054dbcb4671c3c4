// The curve-independent entry points of the Groth16 prover: load a key whatever its curve, and
// prove into snarkjs's files. The CLI (`provd prove`) and the daemon go through these.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "arbiter/arbiter.hpp"
#include "prover_core/gpu_backend_factory.hpp"
#include "prover_core/groth16/prover.hpp"
#include "prover_core/plan/round.hpp"
#include "prover_core/simulated_gpu.hpp"

namespace provd::groth16 {

using AnyProvingKey = std::variant<std::shared_ptr<const ProvingKey<Bn254Engine>>,
                                   std::shared_ptr<const ProvingKey<Bls12381Engine>>>;

absl::StatusOr<AnyProvingKey> LoadProvingKey(std::shared_ptr<const ZkeyFile> file);
absl::StatusOr<AnyProvingKey> LoadProvingKey(const std::string& path);
const ZkeyFile& KeyFile(const AnyProvingKey& key);
// CheckWitnessFits (prover.hpp) for a key of either curve.
absl::Status CheckWitnessFits(const AnyProvingKey& key, const Witness& witness);

struct ProofArtifacts {
  CurveId curve = CurveId::kBn254;
  std::string proof_json;            // snarkjs's proof.json
  std::string public_json;           // snarkjs's public.json
  std::vector<uint8_t> proof_bytes;  // compact binary form (proof_format.hpp)
};

// Where a proof may run besides the CPU.
struct DevicePlan {
  // The proof's arbiter lease (null: CPU only). Chunks go to the lease's device while it holds
  // one, to the CPU after it yields, back when it returns (plan::LeasePlacement).
  arbiter::DeviceLease* lease = nullptr;
  // Device n of the lease is simulated (simulated_gpu.hpp) when n < simulated_gpus, and made by
  // `gpus` (the CUDA backend, kernels/) otherwise.
  size_t simulated_gpus = 0;
  SimulatedGpuOptions simulated;
  GpuBackendFactory* gpus = nullptr;
};

// Proves on the CPU backend over `pool`, plus the devices of `devices`.
absl::StatusOr<ProofArtifacts> Prove(const AnyProvingKey& key, const Witness& witness,
                                     const ProveOptions& options, ThreadPool& pool,
                                     const DevicePlan& devices,
                                     plan::ProofObserver* observer = nullptr,
                                     const std::atomic<bool>* cancelled = nullptr,
                                     plan::ProofCheckpoint* checkpoint = nullptr);

// Proves on the CPU backend over `pool` only.
absl::StatusOr<ProofArtifacts> ProveOnCpu(const AnyProvingKey& key, const Witness& witness,
                                          const ProveOptions& options, ThreadPool& pool,
                                          plan::ProofObserver* observer = nullptr,
                                          const std::atomic<bool>* cancelled = nullptr);

}  // namespace provd::groth16
