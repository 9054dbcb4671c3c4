// A proof is a plan of rounds, and a round runs in chunks: the unit at which work may move
// between devices. Two plans exist: a Groth16 proof's ten rounds and a STARK trace
// commitment's three. This file names the rounds and declares the two hooks a caller plugs into a
// proof: where each chunk runs (ChunkPlacement, implemented by the arbiter's lease) and what
// happened (ProofObserver: round timings, fallbacks, for logs, metrics and job events).
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace provd::plan {

enum class Round {
  kWitnessMap,  // A·w and B·w from the coefficient section, C·w = (A·w)∘(B·w)
  kLdeA,        // iNTT, shift to the odd coset, NTT
  kLdeB,
  kLdeC,
  kHCombine,  // A·B − C on the coset
  kMsmA,
  kMsmB1,
  kMsmB2,  // the G2 multiexp
  kMsmC,
  kMsmH,
  // A STARK trace commitment (stark/trace_commitment.hpp):
  kTraceLde,      // the coset LDE, in chunks of columns
  kMerkleLeaves,  // a linear hash of every extended row, in chunks of rows
  kMerkleLevels,  // the 2-to-1 levels of the tree, bottom up, in chunks of hashes
};
inline constexpr size_t kRoundCount = 10;  // Groth16's
inline constexpr size_t kStarkRoundCount = 3;

constexpr const char* RoundName(Round round) {
  constexpr const char* kNames[kRoundCount + kStarkRoundCount] = {
      "witness_map", "lde_a", "lde_b", "lde_c",     "h_combine",     "msm_a",        "msm_b1",
      "msm_b2",      "msm_c", "msm_h", "trace_lde", "merkle_leaves", "merkle_levels"};
  return kNames[static_cast<size_t>(round)];
}

// The round's position in its own plan (Job.rounds' round_index): 0 .. 9 for Groth16, 0 .. 2 for
// a trace commitment.
constexpr size_t PlanIndex(Round round) {
  const size_t r = static_cast<size_t>(round);
  return r >= kRoundCount ? r - kRoundCount : r;
}

struct ChunkRef {
  Round round;
  size_t index;  // 0-based
  size_t count;  // chunks in this round
};

// Chooses the backend for each chunk, as an index into the backends the prover was given
// (index 0 is the CPU). Asked before every chunk, so an implementation can yield a GPU between
// two chunks and take it back later.
class ChunkPlacement {
 public:
  virtual ~ChunkPlacement() = default;
  virtual size_t Place(const ChunkRef& chunk) = 0;
  // Backend `backend` failed `chunk` with an error marked IsDeviceLost (device_lost.hpp): its
  // device is of no further use to this process. Told after the fallback was reported and
  // before the chunk reruns on the CPU; later Place calls must not pick that backend again.
  virtual void DeviceLost(size_t /*backend*/, const ChunkRef& /*chunk*/,
                          const absl::Status& /*error*/) {}
};

enum class DeviceMove {
  kYielded,   // a higher-priority prover wanted the device: chunks go to the CPU
  kReturned,  // the device was free again: chunks go back to it
};
constexpr const char* DeviceMoveName(DeviceMove move) {
  return move == DeviceMove::kYielded ? "yielded" : "returned";
}

class ProofObserver {
 public:
  virtual ~ProofObserver() = default;
  // Before the first chunk of `round`, which runs in `chunks` chunks.
  virtual void RoundStarted(Round /*round*/, size_t /*chunks*/) {}
  virtual void RoundFinished(Round /*round*/, size_t /*chunks*/, absl::Duration /*wall*/) {}
  // Before `chunk`, the proof moved off or back onto `device`; `took` is what the move cost
  // (freeing device memory and unlocking, or taking the lock).
  virtual void DeviceMoved(const ChunkRef& /*chunk*/, DeviceMove /*move*/, size_t /*device*/,
                           absl::Duration /*took*/) {}
  // A chunk failed on `backend` and is being rerun on the CPU.
  virtual void ChunkFellBack(const ChunkRef& /*chunk*/, std::string_view /*backend*/,
                             const absl::Status& /*error*/) {}
  // After that fallback: the error said the device is lost, and the proof gave it up for good
  // (the arbiter's lease retired it: no prover of this process takes it again).
  virtual void DeviceRetired(const ChunkRef& /*chunk*/, size_t /*device*/,
                             const absl::Status& /*error*/) {}
};

}  // namespace provd::plan
