// Proving a circuit fixture (tests/circuits/) through the typed Groth16 API with chosen
// backends and placements: what the schedule tests on the CPU and on GPUs share.
#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/proof_format.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {

template <typename E>
struct Inputs {
  std::shared_ptr<const groth16::ProvingKey<E>> key;
  groth16::Witness witness;
};

// The key and witness of fixture `name`; throws when the fixture is missing.
template <typename E>
Inputs<E> LoadTyped(const std::string& name) {
  const std::filesystem::path dir = CircuitCase(name);
  absl::StatusOr<groth16::AnyProvingKey> key =
      groth16::LoadProvingKey((dir / "circuit.zkey").string());
  absl::StatusOr<groth16::Witness> witness =
      groth16::ReadWitnessFile((dir / "witness.wtns").string());
  if (!key.ok() || !witness.ok()) throw std::runtime_error("cannot load fixture " + name);
  return {std::get<std::shared_ptr<const groth16::ProvingKey<E>>>(*key), *std::move(witness)};
}

// The proof's compact bytes (empty, with a test failure, when proving fails).
template <typename E>
std::vector<uint8_t> ProveBytes(ThreadPool& pool, const Inputs<E>& in,
                                const groth16::ProveOptions& options,
                                std::span<Backend<E>* const> backends,
                                plan::ChunkPlacement* placement, plan::ProofObserver* observer) {
  groth16::ProveContext<E> context{backends, &pool, placement, observer, nullptr};
  absl::StatusOr<groth16::Proof<E>> proof =
      groth16::Prove<E>(*in.key, in.witness, options, context);
  EXPECT_THAT(proof, IsOk());
  return proof.ok() ? groth16::ProofBytes<E>(*proof) : std::vector<uint8_t>{};
}

// Alternates chunks between backends, as an arbiter yielding and taking back a GPU would.
class AlternatingPlacement final : public plan::ChunkPlacement {
 public:
  explicit AlternatingPlacement(size_t backends) : backends_(backends) {}
  size_t Place(const plan::ChunkRef&) override { return next_++ % backends_; }
  size_t placed() const { return next_; }

 private:
  size_t backends_;
  size_t next_ = 0;
};

// Every chunk on backend `index`.
class FixedPlacement final : public plan::ChunkPlacement {
 public:
  explicit FixedPlacement(size_t index) : index_(index) {}
  size_t Place(const plan::ChunkRef&) override { return index_; }

 private:
  size_t index_;
};

}  // namespace provd::testing
