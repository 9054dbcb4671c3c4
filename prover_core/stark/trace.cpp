#include "prover_core/stark/trace.hpp"

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
  return absl::OkStatus();
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

absl::Status CheckTrace(std::span<const uint8_t> bytes, const TraceShape& shape,
                        absl::string_view label) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  const size_t expected = shape.elements() * sizeof(uint64_t);
  if (bytes.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": ", bytes.size(), " bytes, but 2^",
                                                   shape.n_bits, " rows of ", shape.n_cols,
                                                   " u64 columns are ", expected, " bytes"));
  }
  for (size_t i = 0; i < shape.elements(); ++i) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + i * sizeof(uint64_t), sizeof v);  // little-endian host
    if (v >= Goldilocks::kP) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": the element at row ", i / shape.n_cols, ", column ",
                       i % shape.n_cols, " is ", v, ", not below the Goldilocks prime"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::span<const Goldilocks>> TraceView(std::span<const uint8_t> bytes,
                                                      const TraceShape& shape,
                                                      absl::string_view label) {
  if (absl::Status s = CheckTrace(bytes, shape, label); !s.ok()) return s;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(Goldilocks) != 0) {
    return absl::InternalError(absl::StrCat(label, ": the trace's buffer is not aligned"));
  }
  // Canonical u64s are Goldilocks elements as they are (static_asserts in trace.hpp).
  return std::span<const Goldilocks>(reinterpret_cast<const Goldilocks*>(bytes.data()),
                                     shape.elements());
}

absl::StatusOr<std::vector<Goldilocks>> ParseTrace(std::span<const uint8_t> bytes,
                                                   const TraceShape& shape,
                                                   absl::string_view label) {
  absl::StatusOr<std::span<const Goldilocks>> view = TraceView(bytes, shape, label);
  if (view.ok()) return std::vector<Goldilocks>(view->begin(), view->end());
  if (!absl::IsInternal(view.status())) return view.status();
  std::vector<Goldilocks> trace(shape.elements());
  std::memcpy(trace.data(), bytes.data(), bytes.size());
  return trace;
}

absl::StatusOr<std::vector<Goldilocks>> ReadTraceFile(const std::string& path,
                                                      const TraceShape& shape) {
  absl::StatusOr<io::MappedFile> file = io::MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return ParseTrace(file->bytes(), shape, path);
}

}  // namespace provd::stark
