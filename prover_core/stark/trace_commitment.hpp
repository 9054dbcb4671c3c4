// A STARK trace commitment as pil-stark's buildConstTree makes it: the trace's coset LDE
// (trace_lde.hpp), the MerkleHashGL tree over its rows (merkle_tree.hpp) and the root.
//
// It runs as a plan of three rounds (plan/round.hpp), each in chunks that the round executor
// places on a backend (stark_backend.hpp) one at a time, as a Groth16 proof's MSM chunks are:
//   trace_lde      chunks of `lde_chunk_columns` columns
//   merkle_leaves  chunks of `merkle_chunk_rows` extended rows
//   merkle_levels  each level above the leaves in chunks of `merkle_chunk_rows` hashes
// Every chunk writes a disjoint part of the result, computed exactly, so the bytes are the same
// whichever backend ran each chunk and however the work was split.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/plan/round.hpp"
#include "prover_core/stark/merkle_tree.hpp"
#include "prover_core/stark/stark_backend.hpp"
#include "prover_core/stark/trace.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

struct TraceCommitment {
  TraceShape shape;
  std::vector<Goldilocks> extended;  // shape.extended_rows() rows of shape.n_cols, row-major
  std::vector<uint64_t> nodes;       // MerkleNodeWords(shape.extended_rows(), arity)
  RootWords root{};                  // the last digest of `nodes`
};

struct CommitOptions {
  // Columns per LDE chunk (0: one chunk). Each costs one NTT pair per column on 2^(n+b) points.
  size_t lde_chunk_columns = 8;
  // Rows per leaf chunk and hashes per level chunk (0: one chunk per level). 2^16 rows of 16
  // columns are some 0.1 s of hashing on one core.
  size_t merkle_chunk_rows = size_t{1} << 16;
};

struct CommitContext {
  std::span<StarkBackend* const> backends;  // backends[0] is the CPU
  ThreadPool* pool = nullptr;
  plan::ChunkPlacement* placement = nullptr;     // null: every chunk on backends[0]
  plan::ProofObserver* observer = nullptr;       // may be null
  const std::atomic<bool>* cancelled = nullptr;  // checked before every chunk: CANCELLED
};

// Writes the trace (shape.elements() elements, checked) into `out`. The trace is read into the
// first rows of the extension, which holds it in the same row-major layout, and extended there
// in place, column by column: the process never holds the trace and its extension side by
// side, so a reader that copies from a mapping drops the mapping's pages as it goes
// (CopyTrace's after_block) and the peak memory is the extension and the tree.
using TraceReader = std::function<absl::Status(std::span<Goldilocks> out)>;

// INVALID_ARGUMENT for a shape out of range; the reader's error; CANCELLED; or the error of a
// round, prefixed with its name.
absl::StatusOr<TraceCommitment> CommitTrace(const TraceReader& read_trace, const TraceShape& shape,
                                            const CommitOptions& options,
                                            const CommitContext& context);

// The same from a trace in memory (INVALID_ARGUMENT when it is not shape.elements() long).
absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, const CommitOptions& options,
                                            const CommitContext& context);

// On the CPU over `pool`, with the default chunking.
absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, ThreadPool& pool);

// The root as integers: MerkleHashGL's four elements, or MerkleHashBN128's one element as its
// four little-endian u64 limbs (the tree keeps it in Montgomery form).
RootWords RootIntegers(const TraceCommitment& commitment);

// The verification key file pil-stark writes for the commitment, byte for byte, by json-bigint
// with an indent of 1: `{"constRoot": [four bare u64 integers]}` for MerkleHashGL,
// `{"constRoot": <one bare integer>}` for MerkleHashBN128 (its verifier reads them as BigInt).
std::string RootJson(const TraceCommitment& commitment);

// The header of pil-stark's tree file (MerkleHash.writeToFile): width and height as u64; the
// file is this header, then `extended`, then `nodes`, all little-endian u64.
std::array<uint64_t, 2> TreeFileHeader(const TraceCommitment& commitment);

}  // namespace provd::stark
