// A STARK trace commitment as pil-stark's buildConstTree makes it: the trace's coset LDE
// (trace_lde.hpp), the MerkleHashGL tree over its rows (merkle_tree.hpp) and the root.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/stark/merkle_tree.hpp"
#include "prover_core/stark/trace.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

struct TraceCommitment {
  TraceShape shape;
  std::vector<Goldilocks> extended;  // shape.extended_rows() rows of shape.n_cols, row-major
  std::vector<Goldilocks> nodes;     // MerkleNodeElements(shape.extended_rows())
  Digest root{};
};

absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, ThreadPool& pool);

// The verification key file pil-stark writes for the commitment (`{"constRoot": [...]}` by
// json-bigint with an indent of 1: four bare u64 integers, which its verifier reads as BigInt),
// byte for byte.
std::string RootJson(const Digest& root);

// The header of pil-stark's tree file (MerkleHash.writeToFile): width and height as u64; the
// file is this header, then `extended`, then `nodes`, all little-endian u64.
std::array<uint64_t, 2> TreeFileHeader(const TraceCommitment& commitment);

}  // namespace provd::stark
