// A STARK execution trace as pilcom exports it (`exportToFile`, the .const and .cm files):
// 2^n_bits rows of n_cols Goldilocks elements, row-major, each a little-endian u64 below p.
// The shape is stated by the job, not stored in the file, so a file is checked against it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/stark/merkle_tree.hpp"

namespace provd::stark {

using field::Goldilocks;
static_assert(sizeof(Goldilocks) == sizeof(uint64_t), "traces are read and written in place");
static_assert(std::endian::native == std::endian::little, "the files are little-endian u64");

inline constexpr size_t kMinTraceBits = 1;
inline constexpr size_t kMaxTraceBits = 28;
inline constexpr size_t kMinBlowupBits = 1;
inline constexpr size_t kMaxBlowupBits = 8;
inline constexpr size_t kMaxTraceColumns = size_t{1} << 16;

// The trace's shape and the tree that commits to its extension.
struct TraceShape {
  TraceShape() = default;
  // The Goldilocks tree unless `merkle` says otherwise.
  TraceShape(size_t n_bits_, size_t n_cols_, size_t blowup_bits_, MerkleScheme merkle_ = {})
      : n_bits(n_bits_), n_cols(n_cols_), blowup_bits(blowup_bits_), merkle(merkle_) {}

  size_t n_bits = 0;
  size_t n_cols = 0;
  size_t blowup_bits = 0;
  MerkleScheme merkle;

  size_t rows() const { return size_t{1} << n_bits; }
  size_t extended_rows() const { return size_t{1} << (n_bits + blowup_bits); }
  size_t elements() const { return rows() * n_cols; }
  size_t extended_elements() const { return extended_rows() * n_cols; }
};

// INVALID_ARGUMENT naming the field that is out of range (n_bits, n_cols, blowup_bits, the
// merkle arity), or n_bits + blowup_bits past Goldilocks's 2-adicity.
absl::Status ValidateShape(const TraceShape& shape);

// The shape's n_bits from a file of `bytes` bytes with n_cols columns: INVALID_ARGUMENT unless
// that is a whole power-of-two number of rows.
absl::StatusOr<size_t> RowBitsForSize(size_t bytes, size_t n_cols, absl::string_view label);

// INVALID_ARGUMENT (`label` names the trace) when the size of `bytes` is not the shape's or an
// element is >= p, naming its row and column.
absl::Status CheckTrace(std::span<const uint8_t> bytes, const TraceShape& shape,
                        absl::string_view label);

// Checks the trace of `bytes` and copies it into `out` (shape.elements() long) in one pass, a
// block at a time: CheckTrace's errors (`out` then holds a part). `after_block(offset, size)`,
// when set, is told of each block of `bytes` read, so that a caller reading from a mapping can
// drop its pages as it goes.
absl::Status CopyTrace(
    std::span<const uint8_t> bytes, const TraceShape& shape, absl::string_view label,
    std::span<Goldilocks> out,
    const std::function<void(size_t offset, size_t size)>& after_block = nullptr);

// A checked copy of the trace of `bytes`: CheckTrace's errors.
absl::StatusOr<std::vector<Goldilocks>> ParseTrace(std::span<const uint8_t> bytes,
                                                   const TraceShape& shape,
                                                   absl::string_view label);
// ParseTrace of a file; NOT_FOUND when it does not exist.
absl::StatusOr<std::vector<Goldilocks>> ReadTraceFile(const std::string& path,
                                                      const TraceShape& shape);

}  // namespace provd::stark
