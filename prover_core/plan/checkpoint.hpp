// Where a proof keeps the progress of its MSM rounds, so that a proof interrupted by a crash or
// a shutdown resumes after its last finished chunk instead of starting over. MSMs are nearly all
// of a Groth16 proof's time and their state is one group element per round, so this is what is
// worth saving; the other rounds are cheap and rerun.
//
// Progress is bound to the proof's inputs: `binding` (a digest of the key's header and the
// witness) and the chunking must match, or a saved entry is ignored.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "prover_core/plan/round.hpp"

namespace provd::plan {

struct MsmProgress {
  size_t chunks_done = 0;
  size_t chunk_count = 0;
  size_t chunk_points = 0;
  std::string partial_sum;  // the sum of the finished chunks, encoded by the prover
};

class ProofCheckpoint {
 public:
  virtual ~ProofCheckpoint() = default;
  virtual std::optional<MsmProgress> Load(std::string_view binding, Round round) = 0;
  // Best effort: a progress that cannot be saved costs a rerun of its chunks after a restart.
  virtual void Save(std::string_view binding, Round round, const MsmProgress& progress) = 0;
};

}  // namespace provd::plan
