// The LDE of eight adjacent trace columns at once, written once over a "lanes" type V (eight
// Goldilocks elements side by side: portable loops or one AVX-512 register) and instantiated
// per V in trace_lde.cpp and trace_lde_avx512.cpp. Internal to those two files.
//
// A block of columns lives in a row-major buffer of 2^n rows x 8 lanes, so every butterfly
// applies one twiddle to all eight lanes and no lane ever moves. Per block:
//   InverseBlock: gather the rows, inverse DIF NTT (natural order in, bit-reversed out), giving
//     n * (the coefficients) in bit-reversed order; 1/n is folded into the twist below.
//   ForwardBlock(k), for each k < 2^b: lane-multiply by twist_k[j] = (1/n) (7 w_{n+b}^k)^rev(j),
//     forward DIT NTT of size 2^n (bit-reversed in, natural out), store row q to extension row
//     q 2^b + k. Row q 2^b + k of the extension is P(7 w_{n+b}^k w_n^q), so these 2^b size-2^n
//     transforms are the size-2^(n+b) one without its b stages of butterflies on zeros, and
//     neither transform needs a bit-reversal pass.
// Every value stays canonical (< p), and the results are the polynomial's values, so they equal
// ntt::CosetLde's bit for bit whatever the order of operations.
//
// Stages whose butterflies span more than kLocalRows rows run over the whole buffer; the rest
// run block by block, so a block stays in L2 across them.
//
// V provides (all static): Reg; Tw (a prepared twiddle); Tw Prepare(Goldilocks); Reg
// Load(const Goldilocks*) and Store(Goldilocks*, Reg) of 8 contiguous elements; LoadPartial /
// StorePartial of the first `width` (< 8; the other lanes read as zero); Add, Sub, Mul(Reg, Tw).
#pragma once

#include <algorithm>
#include <cstddef>

#include "prover_core/field/goldilocks.hpp"
#include "prover_core/stark/trace_lde_internal.hpp"

namespace provd::stark::lde_internal {

// 2^12 rows of 64 bytes: 256 KiB, a quarter of Zen 4's L2.
inline constexpr size_t kLocalRows = size_t{1} << 12;

template <typename V>
inline void DifStage(Goldilocks* x, size_t rows, size_t h, const Goldilocks* table) {
  for (size_t g = 0; g < rows; g += 2 * h) {
    Goldilocks* lo = x + g * kLanes;
    Goldilocks* hi = lo + h * kLanes;
    for (size_t j = 0; j < h; ++j) {
      const typename V::Reg a = V::Load(lo + j * kLanes);
      const typename V::Reg b = V::Load(hi + j * kLanes);
      V::Store(lo + j * kLanes, V::Add(a, b));
      V::Store(hi + j * kLanes, V::Mul(V::Sub(a, b), V::Prepare(table[h + j])));
    }
  }
}

template <typename V>
inline void DitStage(Goldilocks* x, size_t rows, size_t h, const Goldilocks* table) {
  for (size_t g = 0; g < rows; g += 2 * h) {
    Goldilocks* lo = x + g * kLanes;
    Goldilocks* hi = lo + h * kLanes;
    for (size_t j = 0; j < h; ++j) {
      const typename V::Reg a = V::Load(lo + j * kLanes);
      const typename V::Reg b = V::Mul(V::Load(hi + j * kLanes), V::Prepare(table[h + j]));
      V::Store(lo + j * kLanes, V::Add(a, b));
      V::Store(hi + j * kLanes, V::Sub(a, b));
    }
  }
}

// `coeffs` (2^n x 8) receives n times the block's coefficients, in bit-reversed row order.
template <typename V>
void InverseBlock(const BlockArgs& args, Goldilocks* coeffs) {
  const size_t n = size_t{1} << args.log_n;
  const Goldilocks* src = args.trace + args.col;
  if (args.width == kLanes) {
    for (size_t i = 0; i < n; ++i) V::Store(coeffs + i * kLanes, V::Load(src + i * args.stride));
  } else {
    for (size_t i = 0; i < n; ++i) {
      V::Store(coeffs + i * kLanes, V::LoadPartial(src + i * args.stride, args.width));
    }
  }
  const size_t local = std::min(n, kLocalRows);
  size_t h = n / 2;
  for (; 2 * h > local; h /= 2) DifStage<V>(coeffs, n, h, args.inverse_table);
  for (size_t base = 0; base < n; base += local) {
    for (size_t hl = h; hl >= 1; hl /= 2) {
      DifStage<V>(coeffs + base * kLanes, local, hl, args.inverse_table);
    }
  }
}

// Extension rows k, k + 2^b, k + 2 * 2^b, ... of the block's columns from InverseBlock's
// `coeffs`; `work` is a 2^n x 8 buffer.
template <typename V>
void ForwardBlock(const BlockArgs& args, const Goldilocks* coeffs, size_t k, Goldilocks* work) {
  const size_t n = size_t{1} << args.log_n;
  const Goldilocks* twist = args.twist + k * n;
  const size_t local = std::min(n, kLocalRows);
  for (size_t base = 0; base < n; base += local) {
    Goldilocks* x = work + base * kLanes;
    for (size_t i = 0; i < local; ++i) {
      V::Store(x + i * kLanes,
               V::Mul(V::Load(coeffs + (base + i) * kLanes), V::Prepare(twist[base + i])));
    }
    for (size_t h = 1; 2 * h <= local; h *= 2) DitStage<V>(x, local, h, args.forward_table);
  }
  for (size_t h = local; h < n; h *= 2) DitStage<V>(work, n, h, args.forward_table);
  const size_t step = args.stride << args.blowup_bits;
  Goldilocks* dst = args.extended + k * args.stride + args.col;
  if (args.width == kLanes) {
    for (size_t q = 0; q < n; ++q) V::Store(dst + q * step, V::Load(work + q * kLanes));
  } else {
    for (size_t q = 0; q < n; ++q) {
      V::StorePartial(dst + q * step, V::Load(work + q * kLanes), args.width);
    }
  }
}

}  // namespace provd::stark::lde_internal
