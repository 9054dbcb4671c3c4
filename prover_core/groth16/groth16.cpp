#include "prover_core/groth16/groth16.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "prover_core/cpu_backend.hpp"
#include "prover_core/groth16/proof_format.hpp"
#include "prover_core/plan/lease_placement.hpp"

namespace provd::groth16 {

absl::StatusOr<AnyProvingKey> LoadProvingKey(std::shared_ptr<const ZkeyFile> file) {
  auto load = [&]<typename E>() -> absl::StatusOr<AnyProvingKey> {
    absl::StatusOr<std::shared_ptr<const ProvingKey<E>>> key = ProvingKey<E>::Load(file);
    if (!key.ok()) return key.status();
    return AnyProvingKey(*std::move(key));
  };
  return file->header().curve == CurveId::kBn254 ? load.operator()<Bn254Engine>()
                                                 : load.operator()<Bls12381Engine>();
}

absl::StatusOr<AnyProvingKey> LoadProvingKey(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ZkeyFile>> file = ZkeyFile::Open(path);
  if (!file.ok()) return file.status();
  return LoadProvingKey(*std::move(file));
}

const ZkeyFile& KeyFile(const AnyProvingKey& key) {
  return std::visit([](const auto& k) -> const ZkeyFile& { return k->file(); }, key);
}

absl::Status CheckWitnessFits(const AnyProvingKey& key, const Witness& witness) {
  return std::visit([&](const auto& typed) { return CheckWitnessFits(*typed, witness); }, key);
}

absl::StatusOr<ProofArtifacts> Prove(const AnyProvingKey& key, const Witness& witness,
                                     const ProveOptions& options, ThreadPool& pool,
                                     const DevicePlan& devices, plan::ProofObserver* observer,
                                     const std::atomic<bool>* cancelled,
                                     plan::ProofCheckpoint* checkpoint) {
  size_t device_count = devices.simulated_gpus;
  if (devices.lease != nullptr) {
    for (size_t id : devices.lease->device_ids()) {
      if (id >= devices.simulated_gpus && devices.gpus == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("the lease arbitrates device ", id, " but there is no backend for it (",
                         devices.simulated_gpus, " simulated GPUs and no GPU backend)"));
      }
      device_count = std::max(device_count, id + 1);
    }
  }
  return std::visit(
      [&]<typename E>(
          const std::shared_ptr<const ProvingKey<E>>& typed) -> absl::StatusOr<ProofArtifacts> {
        CpuBackend<E> cpu(pool);
        // Backend n + 1 is device n (plan::LeasePlacement's numbering). Devices the lease does
        // not arbitrate get a backend too, never used: GPU backends open their device lazily.
        std::vector<std::unique_ptr<Backend<E>>> gpus;
        std::vector<Backend<E>*> backends = {&cpu};
        for (size_t n = 0; n < device_count; ++n) {
          if (n < devices.simulated_gpus) {
            gpus.push_back(std::make_unique<SimulatedGpuBackend<E>>(n, pool, devices.simulated));
          } else {
            gpus.push_back(devices.gpus->Make(n, std::type_identity<E>{}));
          }
          backends.push_back(gpus.back().get());
        }
        std::optional<plan::LeasePlacement> placement;
        if (devices.lease != nullptr) {
          placement.emplace(
              *devices.lease, [&](size_t n) { backends[n + 1]->ReleaseDeviceMemory(); }, observer);
        }
        ProveContext<E> context{backends, &pool,     placement ? &*placement : nullptr,
                                observer, cancelled, checkpoint};
        absl::StatusOr<Proof<E>> proof = groth16::Prove<E>(*typed, witness, options, context);
        if (!proof.ok()) return proof.status();
        return ProofArtifacts{E::kId, ProofJson<E>(*proof),
                              PublicJson(witness, typed->header().n_public), ProofBytes<E>(*proof)};
      },
      key);
}

absl::StatusOr<ProofArtifacts> ProveOnCpu(const AnyProvingKey& key, const Witness& witness,
                                          const ProveOptions& options, ThreadPool& pool,
                                          plan::ProofObserver* observer,
                                          const std::atomic<bool>* cancelled) {
  return Prove(key, witness, options, pool, DevicePlan{}, observer, cancelled);
}

}  // namespace provd::groth16
