#include "prover_core/stark/trace_lde.hpp"

#include <vector>

#include "absl/strings/str_cat.h"
#include "prover_core/ntt/ntt.hpp"

namespace provd::stark {

absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                           size_t first_col, size_t col_count, std::span<Goldilocks> extended,
                           ThreadPool& pool) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (trace.size() != shape.elements() || extended.size() != shape.extended_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LDE of a ", trace.size(), "-element trace into ", extended.size(),
        " elements: the shape says ", shape.elements(), " and ", shape.extended_elements()));
  }
  if (first_col > shape.n_cols || col_count > shape.n_cols - first_col) {
    return absl::InvalidArgumentError(absl::StrCat("LDE of columns [", first_col, ", ",
                                                   first_col + col_count, ") of ", shape.n_cols));
  }
  const size_t n = shape.rows();
  const size_t big = shape.extended_rows();
  const size_t stride = shape.n_cols;
  const Goldilocks shift = Goldilocks::FromUint64(kCosetShift);
  std::vector<absl::Status> statuses(col_count);
  pool.ParallelFor(col_count, [&](size_t k) {
    const size_t col = first_col + k;
    std::vector<Goldilocks> values(n);
    std::vector<Goldilocks> column(big);
    for (size_t i = 0; i < n; ++i) values[i] = trace[i * stride + col];
    statuses[k] = ntt::CosetLde<Goldilocks>(values, column, shift, pool);
    if (!statuses[k].ok()) return;
    for (size_t i = 0; i < big; ++i) extended[i * stride + col] = column[i];
  });
  for (absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace provd::stark
