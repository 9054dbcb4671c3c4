// ExtendColumns' kernels (trace_lde_kernels.hpp) with one AVX-512F register per buffer row.
//
// Products: the 128-bit product of each lane from four vpmuludq partial products (the twiddle's
// halves are split once per butterfly, being the same in every lane), then reduced as the
// scalar Goldilocks::Reduce128 does (2^64 = 2^32 - 1, 2^96 = -1), every step a lane compare
// and a masked add or subtract; results are canonical like the scalar ones.
//
// Only compiled for optimizing x86-64 GCC-compatible builds (elsewhere Avx512Kernels() is
// nullptr), and selected at run time, like field/ifma_field.hpp's lanes.
#include <cstdint>
#include <cstdlib>

#include "prover_core/cpu_features.hpp"
#include "prover_core/field/avx512_words.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/stark/trace_lde_internal.hpp"

#if defined(__x86_64__) && defined(__OPTIMIZE__) && defined(__GNUC__) && !defined(__CUDACC__)
#define PROVD_HAVE_LDE_AVX512 1
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#else
#define PROVD_HAVE_LDE_AVX512 0
#endif

#if PROVD_HAVE_LDE_AVX512
namespace provd::stark::lde_internal {
namespace {

// PROVD_DISABLE_AVX512_LDE=1 takes the portable kernels, to compare on one machine.
bool CpuHasAvx512F() { return !SwitchedOff("PROVD_DISABLE_AVX512_LDE") && provd::CpuHasAvx512F(); }

}  // namespace
}  // namespace provd::stark::lde_internal

// Everything from here to pop_options, the kernel templates included, is compiled for
// AVX-512F; every header they use was included above, so no inline function shared with other
// files is compiled with AVX-512 (the linker could otherwise pick that copy for them).
#pragma GCC push_options
#pragma GCC target("avx512f")
#include "prover_core/stark/trace_lde_kernels.hpp"

namespace provd::stark::lde_internal {
namespace {

constexpr uint64_t kP = Goldilocks::kP;
constexpr uint64_t kEpsilon = Goldilocks::kEpsilon;

using field::avx512::High32;
using field::avx512::Low32ToHigh;
using field::avx512::MulLow32;

struct Avx512Lanes {
  using Reg = __m512i;
  struct Tw {
    __m512i lo;  // the twiddle in every lane (vpmuludq reads the low halves)
    __m512i hi;  // its high 32 bits
  };
  static Tw Prepare(Goldilocks w) {
    const auto v = static_cast<long long>(w.value());
    return Tw{_mm512_set1_epi64(v), _mm512_set1_epi64(v >> 32)};
  }
  static Reg Load(const Goldilocks* p) { return _mm512_loadu_si512(p); }
  static void Store(Goldilocks* p, Reg r) { _mm512_storeu_si512(p, r); }
  static __mmask8 Mask(size_t width) { return static_cast<__mmask8>((1u << width) - 1); }
  static Reg LoadPartial(const Goldilocks* p, size_t width) {
    return _mm512_maskz_loadu_epi64(Mask(width), p);
  }
  static void StorePartial(Goldilocks* p, Reg r, size_t width) {
    _mm512_mask_storeu_epi64(p, Mask(width), r);
  }
  // a + b - p when a >= p - b, else a + b: both below p, neither wraps.
  static Reg Add(Reg a, Reg b) {
    const __m512i p_minus_b = _mm512_sub_epi64(_mm512_set1_epi64(static_cast<long long>(kP)), b);
    const __mmask8 small = _mm512_cmplt_epu64_mask(a, p_minus_b);
    return _mm512_mask_add_epi64(_mm512_sub_epi64(a, p_minus_b), small, a, b);
  }
  static Reg Sub(Reg a, Reg b) {
    const __mmask8 borrow = _mm512_cmplt_epu64_mask(a, b);
    const __m512i d = _mm512_sub_epi64(a, b);
    return _mm512_mask_add_epi64(d, borrow, d, _mm512_set1_epi64(static_cast<long long>(kP)));
  }
  static Reg Mul(Reg a, const Tw& w) {
    const __m512i mask32 = _mm512_set1_epi64(static_cast<long long>(kEpsilon));
    const __m512i eps = mask32;
    const __m512i a_hi = High32(a);
    const __m512i ll = MulLow32(a, w.lo);
    const __m512i lh = MulLow32(a, w.hi);
    const __m512i hl = MulLow32(a_hi, w.lo);
    const __m512i hh = MulLow32(a_hi, w.hi);
    // The 128-bit product hi:lo; neither partial sum can wrap ((2^32 - 1)^2 + 2^32 - 1 < 2^64).
    const __m512i t = _mm512_add_epi64(hl, High32(ll));
    const __m512i u = _mm512_add_epi64(lh, _mm512_and_si512(t, mask32));
    // lo = (u << 32) | (ll & mask32): ternary-logic A | (B & C).
    const __m512i lo = _mm512_ternarylogic_epi64(Low32ToHigh(u), ll, mask32, 0xf8);
    const __m512i hi = _mm512_add_epi64(_mm512_add_epi64(hh, High32(t)), High32(u));
    // lo - hi_hi + hi_lo (2^32 - 1), as Goldilocks::Reduce128.
    const __m512i hi_hi = High32(hi);
    const __m512i hi_lo = _mm512_and_si512(hi, mask32);
    const __mmask8 borrow = _mm512_cmplt_epu64_mask(lo, hi_hi);
    __m512i t0 = _mm512_sub_epi64(lo, hi_hi);
    t0 = _mm512_mask_sub_epi64(t0, borrow, t0, eps);
    const __m512i t1 = _mm512_sub_epi64(Low32ToHigh(hi_lo), hi_lo);
    __m512i t2 = _mm512_add_epi64(t0, t1);
    const __mmask8 carry = _mm512_cmplt_epu64_mask(t2, t1);
    t2 = _mm512_mask_add_epi64(t2, carry, t2, eps);
    const __m512i p = _mm512_set1_epi64(static_cast<long long>(kP));
    return _mm512_mask_sub_epi64(t2, _mm512_cmpge_epu64_mask(t2, p), t2, p);
  }
};

void InverseAvx512(const BlockArgs& args, Goldilocks* coeffs) {
  InverseBlock<Avx512Lanes>(args, coeffs);
}
void ForwardAvx512(const BlockArgs& args, const Goldilocks* coeffs, size_t k, Goldilocks* work) {
  ForwardBlock<Avx512Lanes>(args, coeffs, k, work);
}

}  // namespace
}  // namespace provd::stark::lde_internal
#pragma GCC pop_options

namespace provd::stark::lde_internal {

const Kernels* Avx512Kernels() {
  // Even one column is about twice as fast in lanes as through ntt::CosetLde.
  static const Kernels kAvx512{"avx512f", 1, &InverseAvx512, &ForwardAvx512};
  static const bool available = CpuHasAvx512F();
  return available ? &kAvx512 : nullptr;
}

}  // namespace provd::stark::lde_internal

#else  // !PROVD_HAVE_LDE_AVX512

namespace provd::stark::lde_internal {
const Kernels* Avx512Kernels() { return nullptr; }
}  // namespace provd::stark::lde_internal

#endif
