// The low-degree extension of a trace, exactly pil-stark's `interpolate`: each column's 2^n
// values on <w_n> are interpolated (inverse NTT), the coefficient of x^i multiplied by 7^i, the
// result zero-extended to 2^(n+b) and evaluated on <w_{n+b}> (forward NTT). So row i of the
// extension holds the columns' polynomials at 7 * w_{n+b}^i, in natural order and row-major
// like the trace. The transforms are ntt::CosetLde's, the same on every device.
#pragma once

#include <span>

#include "absl/status/status.h"
#include "prover_core/stark/trace.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark {

// pil-stark's `F.shift`: the coset of every extension.
inline constexpr uint64_t kCosetShift = 7;

// Extends columns [first_col, first_col + col_count) of the row-major `trace` into the same
// columns of the row-major `extended` (shape.extended_elements() long); other columns are not
// touched, so batches of columns may run one after another or on different devices. Columns
// run in parallel, each with a buffer of one extended column.
// INVALID_ARGUMENT unless ExtendColumns could run on these spans and columns (what every
// backend checks before it touches anything).
absl::Status CheckLdeRange(std::span<const Goldilocks> trace, const TraceShape& shape,
                           size_t first_col, size_t col_count,
                           std::span<const Goldilocks> extended);

absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                           size_t first_col, size_t col_count, std::span<Goldilocks> extended,
                           ThreadPool& pool);

}  // namespace provd::stark
