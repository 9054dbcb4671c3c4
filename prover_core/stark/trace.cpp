#include "prover_core/stark/trace.hpp"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "prover_core/io/mapped_file.hpp"

namespace provd::stark {

absl::Status ValidateShape(const TraceShape& shape) {
  if (shape.n_bits < kMinTraceBits || shape.n_bits > kMaxTraceBits) {
    return absl::InvalidArgumentError(absl::StrCat("n_bits ", shape.n_bits, " is out of range [",
                                                   kMinTraceBits, ", ", kMaxTraceBits, "]"));
  }
  if (shape.n_cols == 0 || shape.n_cols > kMaxTraceColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat("n_cols ", shape.n_cols, " is out of range [1, ", kMaxTraceColumns, "]"));
  }
  if (shape.blowup_bits < kMinBlowupBits || shape.blowup_bits > kMaxBlowupBits) {
    return absl::InvalidArgumentError(absl::StrCat("blowup_bits ", shape.blowup_bits,
                                                   " is out of range [", kMinBlowupBits, ", ",
                                                   kMaxBlowupBits, "]"));
  }
  if (shape.n_bits + shape.blowup_bits > Goldilocks::kTwoAdicity) {
    return absl::InvalidArgumentError(
        absl::StrCat("n_bits + blowup_bits = ", shape.n_bits + shape.blowup_bits,
                     " is past Goldilocks's 2-adicity (", Goldilocks::kTwoAdicity, ")"));
  }
  return ValidateScheme(shape.merkle);
}

absl::StatusOr<size_t> RowBitsForSize(size_t bytes, size_t n_cols, absl::string_view label) {
  if (n_cols == 0) return absl::InvalidArgumentError("n_cols must be at least 1");
  const size_t row_bytes = n_cols * sizeof(uint64_t);
  const size_t rows = bytes / row_bytes;
  if (bytes % row_bytes != 0 || rows == 0 || (rows & (rows - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": ", bytes, " bytes is not a power-of-two number of rows of ", n_cols,
                     " u64 columns (", row_bytes, " bytes a row)"));
  }
  return static_cast<size_t>(__builtin_ctzll(rows));
}

namespace {

// 8 MiB: big enough that a block's madvise is noise, small enough that it is all a reader
// holds of a mapping at once.
constexpr size_t kCopyBlockElements = size_t{1} << 20;

absl::Status CheckSize(std::span<const uint8_t> bytes, const TraceShape& shape,
                       absl::string_view label) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  const size_t expected = shape.elements() * sizeof(uint64_t);
  if (bytes.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": ", bytes.size(), " bytes, but 2^",
                                                   shape.n_bits, " rows of ", shape.n_cols,
                                                   " u64 columns are ", expected, " bytes"));
  }
  return absl::OkStatus();
}

// Elements [first, end) of the trace, checked, and copied into `out` when it is not empty.
absl::Status CheckRange(std::span<const uint8_t> bytes, const TraceShape& shape,
                        absl::string_view label, size_t first, size_t end,
                        std::span<Goldilocks> out) {
  for (size_t i = first; i < end; ++i) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + i * sizeof(uint64_t), sizeof v);  // little-endian host
    if (v >= Goldilocks::kP) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": the element at row ", i / shape.n_cols, ", column ",
                       i % shape.n_cols, " is ", v, ", not below the Goldilocks prime"));
    }
    if (!out.empty()) out[i] = Goldilocks::FromUint64(v);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTrace(std::span<const uint8_t> bytes, const TraceShape& shape,
                        absl::string_view label) {
  if (absl::Status s = CheckSize(bytes, shape, label); !s.ok()) return s;
  return CheckRange(bytes, shape, label, 0, shape.elements(), {});
}

absl::Status CopyTrace(std::span<const uint8_t> bytes, const TraceShape& shape,
                       absl::string_view label, std::span<Goldilocks> out,
                       const std::function<void(size_t offset, size_t size)>& after_block) {
  if (absl::Status s = CheckSize(bytes, shape, label); !s.ok()) return s;
  if (out.size() != shape.elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a trace of ", shape.elements(), " elements into ", out.size()));
  }
  for (size_t first = 0; first < shape.elements(); first += kCopyBlockElements) {
    const size_t end = std::min(shape.elements(), first + kCopyBlockElements);
    if (absl::Status s = CheckRange(bytes, shape, label, first, end, out); !s.ok()) return s;
    if (after_block) after_block(first * sizeof(uint64_t), (end - first) * sizeof(uint64_t));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Goldilocks>> ParseTrace(std::span<const uint8_t> bytes,
                                                   const TraceShape& shape,
                                                   absl::string_view label) {
  if (absl::Status s = CheckSize(bytes, shape, label); !s.ok()) return s;
  std::vector<Goldilocks> trace(shape.elements());
  if (absl::Status s = CopyTrace(bytes, shape, label, trace); !s.ok()) return s;
  return trace;
}

absl::StatusOr<std::vector<Goldilocks>> ReadTraceFile(const std::string& path,
                                                      const TraceShape& shape) {
  absl::StatusOr<io::MappedFile> file = io::MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return ParseTrace(file->bytes(), shape, path);
}

}  // namespace provd::stark
