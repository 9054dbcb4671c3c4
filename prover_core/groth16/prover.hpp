// The Groth16 prover, snarkjs's construction (groth16_prove.js), as a plan of rounds:
//
//   witness_map   a = A·w, b = B·w on the domain of size n, c = a∘b
//   lde_a/b/c     iNTT, multiply coefficient i by w_2n^i, NTT: the values on the odd coset,
//                 where the zkey's H points expect them
//   h_combine     h = a·b − c there (normal form, the MSM's scalars)
//   msm_a, msm_b1, msm_b2 (G2), msm_c, msm_h
//
// then, with blinding scalars r and s (randomness.hpp):
//   A = α1 + Σ w_i A_i + r δ1          B = β2 + Σ w_i B2_i + s δ2   (G2)
//   B1 = β1 + Σ w_i B1_i + s δ1        C = Σ_{private} w_i C_i + Σ h_i H_i + s A + r B1 − rs δ1
//
// NTT rounds run in chunks of stages and MSM rounds in chunks of points, each on the backend the
// ChunkPlacement picks; everything else runs on the host pool. Results are exact group and field
// elements, so the proof does not depend on where any chunk ran.
#pragma once

#include <atomic>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/backend.hpp"
#include "prover_core/groth16/proving_key.hpp"
#include "prover_core/groth16/witness_file.hpp"
#include "prover_core/plan/checkpoint.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::groth16 {

template <typename E>
struct Proof {
  curve::AffinePoint<typename E::G1> a;
  curve::AffinePoint<typename E::G2> b;
  curve::AffinePoint<typename E::G1> c;
};

struct ProveOptions {
  // Derive r and s from this seed (see randomness.hpp); unset: OS entropy.
  std::optional<std::vector<uint8_t>> seed;
  // Points per MSM chunk (0: one chunk per round). Smaller chunks let a GPU be handed over
  // sooner but cost the MSM some efficiency; 2^18 keeps a CPU chunk near a second on 2 cores.
  size_t msm_chunk_points = size_t{1} << 18;
  // NTT stages per chunk (0: all stages of a transform in one chunk).
  size_t ntt_chunk_stages = 0;
};

template <typename E>
struct ProveContext {
  std::span<Backend<E>* const> backends;  // backends[0] is the CPU
  ThreadPool* pool = nullptr;             // host work: decoding, witness map, pointwise ops
  plan::ChunkPlacement* placement = nullptr;
  plan::ProofObserver* observer = nullptr;
  const std::atomic<bool>* cancelled = nullptr;  // checked before every chunk: CANCELLED
  plan::ProofCheckpoint* checkpoint = nullptr;   // MSM progress to resume from and to save
};

// INVALID_ARGUMENT when the witness does not fit the key (field, count); CANCELLED; or the
// error of a round, prefixed with the round's name.
template <typename E>
absl::StatusOr<Proof<E>> Prove(const ProvingKey<E>& key, const Witness& witness,
                               const ProveOptions& options, const ProveContext<E>& context);

// INVALID_ARGUMENT unless `witness` is a witness of `key`'s circuit: same field, one value per
// variable, witness[0] = 1. What the prover checks first; the daemon checks it on submission.
template <typename E>
absl::Status CheckWitnessFits(const ProvingKey<E>& key, const Witness& witness) {
  if (witness.prime != E::Fr::Modulus()) {
    return absl::InvalidArgumentError(absl::StrCat(witness.label,
                                                   ": the witness is over another field than the ",
                                                   E::kSnarkjsName, " key ", key.file().path()));
  }
  if (witness.values.size() != key.header().n_vars) {
    return absl::InvalidArgumentError(absl::StrCat(
        witness.label, ": ", witness.values.size(), " values, but the key ", key.file().path(),
        " has ", key.header().n_vars, " variables (a witness of another circuit?)"));
  }
  if (witness.values[0] != field::BigInt<4>::FromUint64(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(witness.label, ": witness[0] must be the constant 1"));
  }
  return absl::OkStatus();
}

extern template absl::StatusOr<Proof<Bn254Engine>> Prove(const ProvingKey<Bn254Engine>&,
                                                         const Witness&, const ProveOptions&,
                                                         const ProveContext<Bn254Engine>&);
extern template absl::StatusOr<Proof<Bls12381Engine>> Prove(const ProvingKey<Bls12381Engine>&,
                                                            const Witness&, const ProveOptions&,
                                                            const ProveContext<Bls12381Engine>&);

}  // namespace provd::groth16
