// pil-stark's tree file for a trace commitment (MerkleHash.writeToFile: u64 width and height,
// the extended rows, then the tree's nodes), written atomically: `provd stark-commit
// --tree-out` and a stark_commit job's tree_name.
#pragma once

#include <filesystem>

#include "absl/status/status.h"
#include "prover_core/stark/trace_commitment.hpp"

namespace provd::daemon {

absl::Status WriteTreeFile(const std::filesystem::path& path,
                           const stark::TraceCommitment& commitment, unsigned mode = 0644);

}  // namespace provd::daemon
