#include "prover_core/groth16/groth16.hpp"

#include "prover_core/cpu_backend.hpp"
#include "prover_core/groth16/proof_format.hpp"

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

absl::StatusOr<ProofArtifacts> ProveOnCpu(const AnyProvingKey& key, const Witness& witness,
                                          const ProveOptions& options, ThreadPool& pool,
                                          plan::ProofObserver* observer,
                                          const std::atomic<bool>* cancelled) {
  return std::visit(
      [&]<typename E>(
          const std::shared_ptr<const ProvingKey<E>>& typed) -> absl::StatusOr<ProofArtifacts> {
        CpuBackend<E> cpu(pool);
        Backend<E>* backends[] = {&cpu};
        ProveContext<E> context{backends, &pool, nullptr, observer, cancelled};
        absl::StatusOr<Proof<E>> proof = Prove<E>(*typed, witness, options, context);
        if (!proof.ok()) return proof.status();
        return ProofArtifacts{E::kId, ProofJson<E>(*proof),
                              PublicJson(witness, typed->header().n_public), ProofBytes<E>(*proof)};
      },
      key);
}

}  // namespace provd::groth16
