// What a device offers a STARK trace commitment: the kernel of each round, one chunk at a time
// (a batch of columns to extend, a range of rows to hash into leaves, a range of one level's
// hashes). The CPU backend below and device backends give bit-identical results, so the round
// executor may move any chunk between them. The contract is backend.hpp's: on error nothing the
// caller owns has changed, and INVALID_ARGUMENT is not retried elsewhere.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "prover_core/stark/merkle_tree.hpp"
#include "prover_core/stark/trace.hpp"
#include "prover_core/stark/trace_lde.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

class StarkBackend {
 public:
  virtual ~StarkBackend() = default;
  virtual std::string_view name() const = 0;
  virtual bool is_cpu() const = 0;

  // ExtendColumns (trace_lde.hpp): columns [first_col, first_col + col_count) of `extended`.
  virtual absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                                     size_t first_col, size_t col_count,
                                     std::span<Goldilocks> extended) = 0;
  // HashLeaves and HashLevel (merkle_tree.hpp).
  virtual absl::Status HashLeaves(const MerkleScheme& scheme, std::span<const Goldilocks> rows,
                                  size_t width, size_t first_row, size_t row_count,
                                  std::span<uint64_t> nodes) = 0;
  virtual absl::Status HashLevel(const MerkleScheme& scheme, const MerkleLevel& level, size_t first,
                                 size_t count, std::span<uint64_t> nodes) = 0;
  // Frees every device buffer the backend holds (before its lease yields the device).
  virtual void ReleaseDeviceMemory() {}
};

class CpuStarkBackend final : public StarkBackend {
 public:
  explicit CpuStarkBackend(ThreadPool& pool) : pool_(pool) {}
  std::string_view name() const override { return "cpu"; }
  bool is_cpu() const override { return true; }

  absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                             size_t first_col, size_t col_count,
                             std::span<Goldilocks> extended) override {
    return stark::ExtendColumns(trace, shape, first_col, col_count, extended, pool_);
  }
  absl::Status HashLeaves(const MerkleScheme& scheme, std::span<const Goldilocks> rows,
                          size_t width, size_t first_row, size_t row_count,
                          std::span<uint64_t> nodes) override {
    return stark::HashLeaves(scheme, rows, width, first_row, row_count, nodes, pool_);
  }
  absl::Status HashLevel(const MerkleScheme& scheme, const MerkleLevel& level, size_t first,
                         size_t count, std::span<uint64_t> nodes) override {
    return stark::HashLevel(scheme, level, first, count, nodes, pool_);
  }

 private:
  ThreadPool& pool_;
};

}  // namespace provd::stark
