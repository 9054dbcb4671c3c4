// The curve-independent entry points of the Groth16 prover: load a key whatever its curve, and
// prove into snarkjs's files. The CLI (`provd prove`) and the daemon go through these.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/groth16/prover.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::groth16 {

using AnyProvingKey = std::variant<std::shared_ptr<const ProvingKey<Bn254Engine>>,
                                   std::shared_ptr<const ProvingKey<Bls12381Engine>>>;

absl::StatusOr<AnyProvingKey> LoadProvingKey(std::shared_ptr<const ZkeyFile> file);
absl::StatusOr<AnyProvingKey> LoadProvingKey(const std::string& path);
const ZkeyFile& KeyFile(const AnyProvingKey& key);

struct ProofArtifacts {
  CurveId curve = CurveId::kBn254;
  std::string proof_json;            // snarkjs's proof.json
  std::string public_json;           // snarkjs's public.json
  std::vector<uint8_t> proof_bytes;  // compact binary form (proof_format.hpp)
};

// Proves on the CPU backend over `pool`.
absl::StatusOr<ProofArtifacts> ProveOnCpu(const AnyProvingKey& key, const Witness& witness,
                                          const ProveOptions& options, ThreadPool& pool,
                                          plan::ProofObserver* observer = nullptr,
                                          const std::atomic<bool>* cancelled = nullptr);

}  // namespace provd::groth16
