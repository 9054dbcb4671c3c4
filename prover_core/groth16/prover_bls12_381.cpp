// The Groth16 prover for BLS12-381 (snarkjs "bls12381").
#include "prover_core/groth16/prover_impl.hpp"

namespace provd::groth16 {

template absl::StatusOr<Proof<Bls12381Engine>> Prove(const ProvingKey<Bls12381Engine>&,
                                                     const Witness&, const ProveOptions&,
                                                     const ProveContext<Bls12381Engine>&);

}  // namespace provd::groth16
