// The Groth16 prover for BN254 (snarkjs "bn128").
#include "prover_core/groth16/prover_impl.hpp"

namespace provd::groth16 {

template absl::StatusOr<Proof<Bn254Engine>> Prove(const ProvingKey<Bn254Engine>&, const Witness&,
                                                  const ProveOptions&,
                                                  const ProveContext<Bn254Engine>&);

}  // namespace provd::groth16
