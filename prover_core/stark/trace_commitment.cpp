#include "prover_core/stark/trace_commitment.hpp"

#include "absl/strings/str_cat.h"
#include "prover_core/stark/trace_lde.hpp"

namespace provd::stark {

absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, ThreadPool& pool) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  TraceCommitment c;
  c.shape = shape;
  c.extended.resize(shape.extended_elements());
  if (absl::Status s = ExtendColumns(trace, shape, 0, shape.n_cols, c.extended, pool); !s.ok()) {
    return s;
  }
  const size_t height = shape.extended_rows();
  c.nodes.assign(MerkleNodeElements(height), Goldilocks::Zero());
  if (absl::Status s = HashLeaves(c.extended, shape.n_cols, 0, height, c.nodes, pool); !s.ok()) {
    return s;
  }
  for (const MerkleLevel& level : MerkleLevels(height)) {
    if (absl::Status s = HashLevel(level, 0, level.hashes, c.nodes, pool); !s.ok()) return s;
  }
  c.root = MerkleRoot(c.nodes);
  return c;
}

std::string RootJson(const Digest& root) {
  std::string json = "{\n \"constRoot\": [\n";
  for (size_t i = 0; i < root.size(); ++i) {
    absl::StrAppend(&json, "  ", root[i].value(), i + 1 < root.size() ? ",\n" : "\n");
  }
  absl::StrAppend(&json, " ]\n}");
  return json;
}

std::array<uint64_t, 2> TreeFileHeader(const TraceCommitment& commitment) {
  return {commitment.shape.n_cols, commitment.shape.extended_rows()};
}

}  // namespace provd::stark
