#include "prover_core/stark/trace_commitment.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "prover_core/plan/round_executor.hpp"
#include "prover_core/stark/merkle_tree_bn128.hpp"

namespace provd::stark {
namespace {

using plan::ChunkRef;
using plan::Round;

size_t ChunkCount(size_t items, size_t per_chunk) {
  if (per_chunk == 0 || items == 0) return 1;
  return (items + per_chunk - 1) / per_chunk;
}

class CommitRun {
 public:
  CommitRun(const TraceReader& read_trace, const TraceShape& shape, const CommitOptions& options,
            const CommitContext& context)
      : read_trace_(read_trace),
        shape_(shape),
        options_(options),
        context_(context),
        executor_(context.backends, context.placement, context.observer) {}

  absl::StatusOr<TraceCommitment> Run() {
    if (absl::Status s = ValidateShape(shape_); !s.ok()) return s;
    if (context_.pool == nullptr) return absl::InvalidArgumentError("no thread pool given");
    if (absl::Status s = executor_.Validate(); !s.ok()) return s;
    TraceCommitment c;
    c.shape = shape_;
    c.extended.resize(shape_.extended_elements());
    // Rows 0 .. 2^n - 1 of the extension, in the trace's own layout: ExtendColumns reads a
    // column's values there before it writes that column, and no other.
    const std::span<Goldilocks> trace = std::span(c.extended).first(shape_.elements());
    if (absl::Status s = read_trace_(trace); !s.ok()) return s;
    trace_ = trace;
    if (absl::Status s = Lde(c.extended); !s.ok()) return s;
    c.nodes.assign(MerkleNodeWords(shape_.extended_rows(), shape_.merkle.arity), 0);
    if (absl::Status s = Leaves(c.extended, c.nodes); !s.ok()) return s;
    if (absl::Status s = Levels(c.nodes); !s.ok()) return s;
    c.root = MerkleRoot(c.nodes);
    return c;
  }

 private:
  absl::Status Cancelled() const {
    if (context_.cancelled != nullptr && context_.cancelled->load(std::memory_order_relaxed)) {
      return absl::CancelledError("trace commitment cancelled");
    }
    return absl::OkStatus();
  }

  absl::Status Lde(std::span<Goldilocks> extended) {
    const size_t per_chunk =
        options_.lde_chunk_columns == 0 ? shape_.n_cols : options_.lde_chunk_columns;
    const size_t chunks = ChunkCount(shape_.n_cols, per_chunk);
    return executor_.RunRound(Round::kTraceLde, chunks, [&]() -> absl::Status {
      for (size_t k = 0; k < chunks; ++k) {
        if (absl::Status s = Cancelled(); !s.ok()) return s;
        const size_t first = k * per_chunk;
        const size_t count = std::min(per_chunk, shape_.n_cols - first);
        absl::Status s =
            executor_.RunChunk(ChunkRef{Round::kTraceLde, k, chunks}, [&](StarkBackend& backend) {
              return backend.ExtendColumns(trace_, shape_, first, count, extended);
            });
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    });
  }

  size_t MerkleChunk(size_t items) const {
    return options_.merkle_chunk_rows == 0 ? std::max<size_t>(items, 1)
                                           : options_.merkle_chunk_rows;
  }

  absl::Status Leaves(std::span<const Goldilocks> extended, std::span<uint64_t> nodes) {
    const size_t height = shape_.extended_rows();
    const size_t per_chunk = MerkleChunk(height);
    const size_t chunks = ChunkCount(height, per_chunk);
    return executor_.RunRound(Round::kMerkleLeaves, chunks, [&]() -> absl::Status {
      for (size_t k = 0; k < chunks; ++k) {
        if (absl::Status s = Cancelled(); !s.ok()) return s;
        const size_t first = k * per_chunk;
        const size_t count = std::min(per_chunk, height - first);
        absl::Status s = executor_.RunChunk(
            ChunkRef{Round::kMerkleLeaves, k, chunks}, [&](StarkBackend& backend) {
              return backend.HashLeaves(shape_.merkle, extended, shape_.n_cols, first, count,
                                        nodes);
            });
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    });
  }

  absl::Status Levels(std::span<uint64_t> nodes) {
    const std::vector<MerkleLevel> levels =
        MerkleLevels(shape_.extended_rows(), shape_.merkle.arity);
    size_t chunks = 0;
    for (const MerkleLevel& level : levels) {
      chunks += ChunkCount(level.hashes, MerkleChunk(level.hashes));
    }
    return executor_.RunRound(Round::kMerkleLevels, chunks, [&]() -> absl::Status {
      size_t k = 0;
      for (const MerkleLevel& level : levels) {
        const size_t per_chunk = MerkleChunk(level.hashes);
        for (size_t first = 0; first < level.hashes; first += per_chunk, ++k) {
          if (absl::Status s = Cancelled(); !s.ok()) return s;
          const size_t count = std::min(per_chunk, level.hashes - first);
          absl::Status s = executor_.RunChunk(
              ChunkRef{Round::kMerkleLevels, k, chunks}, [&](StarkBackend& backend) {
                return backend.HashLevel(shape_.merkle, level, first, count, nodes);
              });
          if (!s.ok()) return s;
        }
      }
      return absl::OkStatus();
    });
  }

  const TraceReader& read_trace_;
  std::span<const Goldilocks> trace_;
  const TraceShape& shape_;
  const CommitOptions& options_;
  const CommitContext& context_;
  plan::RoundExecutor<StarkBackend> executor_;
};

}  // namespace

absl::StatusOr<TraceCommitment> CommitTrace(const TraceReader& read_trace, const TraceShape& shape,
                                            const CommitOptions& options,
                                            const CommitContext& context) {
  return CommitRun(read_trace, shape, options, context).Run();
}

absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, const CommitOptions& options,
                                            const CommitContext& context) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (trace.size() != shape.elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a trace of ", trace.size(), " elements, but the shape says ", shape.elements()));
  }
  const TraceReader copy = [&](std::span<Goldilocks> out) {
    std::copy(trace.begin(), trace.end(), out.begin());
    return absl::OkStatus();
  };
  return CommitTrace(copy, shape, options, context);
}

absl::StatusOr<TraceCommitment> CommitTrace(std::span<const Goldilocks> trace,
                                            const TraceShape& shape, ThreadPool& pool) {
  CpuStarkBackend cpu(pool);
  StarkBackend* const backends[] = {&cpu};
  return CommitTrace(trace, shape, CommitOptions{}, CommitContext{backends, &pool});
}

RootWords RootIntegers(const TraceCommitment& commitment) {
  if (commitment.shape.merkle.hash == MerkleHash::kPoseidonBn128) {
    return Bn128RootInteger(commitment.root);
  }
  return commitment.root;
}

std::string RootJson(const TraceCommitment& commitment) {
  const RootWords root = RootIntegers(commitment);
  if (commitment.shape.merkle.hash == MerkleHash::kPoseidonBn128) {
    field::BigInt<4> v;
    std::copy(root.begin(), root.end(), v.limbs.begin());
    return absl::StrCat("{\n \"constRoot\": ", field::ToDecimal(v), "\n}");
  }
  std::string json = "{\n \"constRoot\": [\n";
  for (size_t i = 0; i < root.size(); ++i) {
    absl::StrAppend(&json, "  ", root[i], i + 1 < root.size() ? ",\n" : "\n");
  }
  absl::StrAppend(&json, " ]\n}");
  return json;
}

std::array<uint64_t, 2> TreeFileHeader(const TraceCommitment& commitment) {
  return {commitment.shape.n_cols, commitment.shape.extended_rows()};
}

}  // namespace provd::stark
