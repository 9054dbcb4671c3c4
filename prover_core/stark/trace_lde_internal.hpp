// The pieces of ExtendColumns (trace_lde.hpp) that its tests and its AVX-512 file see: one block
// of up to eight columns at a time, through kernels chosen at run time.
#pragma once

#include <cstddef>
#include <span>

#include "absl/status/status.h"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/stark/trace.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::stark::lde_internal {

using field::Goldilocks;

inline constexpr size_t kLanes = 8;

// One block of up to 8 columns of one ExtendColumns call (trace_lde_kernels.hpp says what the
// tables hold).
struct BlockArgs {
  const Goldilocks* trace = nullptr;  // may alias `extended`
  Goldilocks* extended = nullptr;
  size_t stride = 0;  // the trace's column count
  size_t col = 0;     // first column of the block
  size_t width = 0;   // 1..8 columns
  size_t log_n = 0;
  size_t blowup_bits = 0;
  const Goldilocks* inverse_table = nullptr;  // ntt::Twiddles<>::inverse of the size-2^n domain
  const Goldilocks* forward_table = nullptr;  // and its forward table
  const Goldilocks* twist = nullptr;          // 2^b tables of 2^n entries
};

struct Kernels {
  const char* name;
  // A block of fewer columns goes column by column through ntt::CosetLde instead.
  size_t min_width;
  // Reads the block's columns of the trace into `coeffs` (2^n x 8) and transforms them.
  void (*inverse)(const BlockArgs& args, Goldilocks* coeffs);
  // Writes extension rows k, k + 2^b, ... of the block's columns; `work` is 2^n x 8.
  void (*forward)(const BlockArgs& args, const Goldilocks* coeffs, size_t k, Goldilocks* work);
};

// Plain loops over the eight lanes: every build, every CPU.
const Kernels& PortableKernels();
// One AVX-512 register per row; nullptr unless this build has them (optimizing x86-64 GCC or
// Clang) and the CPU and OS support AVX-512F, and PROVD_DISABLE_AVX512_LDE is not 1.
const Kernels* Avx512Kernels();

// ExtendColumns through `kernels`.
absl::Status ExtendColumnsWith(const Kernels& kernels, std::span<const Goldilocks> trace,
                               const TraceShape& shape, size_t first_col, size_t col_count,
                               std::span<Goldilocks> extended, ThreadPool& pool);

}  // namespace provd::stark::lde_internal
