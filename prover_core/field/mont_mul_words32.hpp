// The Montgomery product in 32-bit words with two interleaved carry chains, the form the
// device's integer units want: a GPU multiplies 32 x 32 bits natively (IMAD.WIDE, and PTX's
// mad.lo/madc.hi with a carry flag), while the 64-bit limbs of montgomery_field.hpp cost it
// four 32-bit products each plus compare-and-carry chains (552 SASS instructions per BN254
// product at sm_90, see docs/gpu.md). R is 2^(64N) = 2^(32n) either way, so the result is the
// same integer as every other path: a * b / R mod p, fully reduced.
//
// The algorithm is CIOS over n = 2N words. A row adds a * b_i, then m * p with
// m = t[0] * (-p^-1) mod 2^32, then drops the zeroed low word. The trick is in how a row's 2n
// half-products are added: those of even-indexed words of `a` (low half at word j, high half at
// j + 1, for even j) never overlap each other, nor do those of odd-indexed words, so each set
// is one carry chain of n additions into its own accumulator:
//   aligned   holds words at positions 0 .. n-1 (takes the even-indexed products),
//   offset    holds words at positions 1 .. n   (takes the odd-indexed products),
// and t = aligned + 2^32 * offset. The carry out of the aligned chain (position n) is added to
// offset's top word. After the reduction, aligned[0] is zero and t / 2^32 = offset +
// aligned / 2^32: the offset accumulator is now the aligned one and the old aligned one sits
// one word *below* position 0. The next row moves it up two words while adding the
// odd-indexed products into it (its word 1, at position 0, first goes into the new aligned
// word 0, whose carry starts that chain), which makes it an offset accumulator again. So the
// two arrays swap roles every row and no word is moved on its own.
//
// Bounds (why carries can be dropped where the code drops them): with a, b < p, t < 2p after
// every row (t' = (t + a b_i + m p) / 2^32 < (2p + 2 (2^32 - 1) p) / 2^32 < 2p), and inside a
// row t < 2^33 p. With p < 2^(32n - 1), that is below 2^(32(n+1)), so the offset accumulator,
// worth at most t / 2^32, fits its n words: its chains never carry out of the top word, and
// neither does the addition of the aligned chain's last carry. One conditional subtraction at
// the end brings t below p.
//
// The carry flag is the `Chain` policy's: HostCarryChain below models PTX's add.cc/madc
// instructions on the host, so the tests run this algorithm in CI; PtxCarryChain
// (ptx_carry_chain.hpp) is those instructions, one asm statement each, for the device.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDA_ARCH__)
#define PROVD_UNROLL _Pragma("unroll")
#else
#define PROVD_UNROLL
#endif

namespace provd::field::words32 {

// PTX's carry-flag arithmetic, evaluated on the host with the flag in a member. Each function
// names the PTX instruction it stands for; `.cc` ones write the flag, `c` ones read it.
struct HostCarryChain {
  uint32_t carry = 0;

  static constexpr uint32_t MulLo(uint32_t a, uint32_t b) {  // mul.lo.u32
    return static_cast<uint32_t>(uint64_t{a} * b);
  }
  static constexpr uint32_t MulHi(uint32_t a, uint32_t b) {  // mul.hi.u32
    return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
  }
  constexpr uint32_t MadLoCc(uint32_t a, uint32_t b, uint32_t c) {  // mad.lo.cc.u32
    return Keep(uint64_t{MulLo(a, b)} + c);
  }
  constexpr uint32_t MadcLoCc(uint32_t a, uint32_t b, uint32_t c) {  // madc.lo.cc.u32
    return Keep(uint64_t{MulLo(a, b)} + c + carry);
  }
  constexpr uint32_t MadcHiCc(uint32_t a, uint32_t b, uint32_t c) {  // madc.hi.cc.u32
    return Keep(uint64_t{MulHi(a, b)} + c + carry);
  }
  constexpr uint32_t MadcHi(uint32_t a, uint32_t b, uint32_t c) const {  // madc.hi.u32
    return static_cast<uint32_t>(uint64_t{MulHi(a, b)} + c + carry);
  }
  constexpr uint32_t AddCc(uint32_t a, uint32_t b) { return Keep(uint64_t{a} + b); }  // add.cc
  constexpr uint32_t AddcCc(uint32_t a, uint32_t b) {                                 // addc.cc.u32
    return Keep(uint64_t{a} + b + carry);
  }
  constexpr uint32_t Addc(uint32_t a, uint32_t b) const {  // addc.u32
    return static_cast<uint32_t>(uint64_t{a} + b + carry);
  }

 private:
  constexpr uint32_t Keep(uint64_t sum) {
    carry = static_cast<uint32_t>(sum >> 32);
    return static_cast<uint32_t>(sum);
  }
};

// acc[0..n) += the half-products of a[first], a[first + 2], ... by b, low half of a[j] at
// acc[j - first], high half at acc[j - first + 1]: one chain, started afresh. The carry out
// of acc[n-1] is left in the flag.
template <size_t n, typename Chain>
constexpr void MadChain(Chain& chain, uint32_t* acc, const uint32_t* a, size_t first, uint32_t b) {
  acc[0] = chain.MadLoCc(a[first], b, acc[0]);
  acc[1] = chain.MadcHiCc(a[first], b, acc[1]);
  PROVD_UNROLL
  for (size_t k = 2; k < n; k += 2) {
    acc[k] = chain.MadcLoCc(a[first + k], b, acc[k]);
    acc[k + 1] = chain.MadcHiCc(a[first + k], b, acc[k + 1]);
  }
}

// The first row, t = a * b_0, before reduction: no accumulation, so no carries.
template <size_t n, typename Chain>
constexpr void FirstRow(uint32_t* aligned, uint32_t* offset, const uint32_t* a, uint32_t b0) {
  PROVD_UNROLL
  for (size_t j = 0; j < n; j += 2) {
    aligned[j] = Chain::MulLo(a[j], b0);
    aligned[j + 1] = Chain::MulHi(a[j], b0);
    offset[j] = Chain::MulLo(a[j + 1], b0);
    offset[j + 1] = Chain::MulHi(a[j + 1], b0);
  }
}

// A later row, t = t + a * b_i, entered with the previous row's result: `aligned` (positions
// 0..n-1) and `below` (positions -1..n-2, below[0] == 0). Leaves `below` moved up into an
// offset accumulator (positions 1..n) holding the odd-indexed products.
template <size_t n, typename Chain>
constexpr void AccumulateRow(Chain& chain, uint32_t* aligned, uint32_t* below, const uint32_t* a,
                             uint32_t b) {
  aligned[0] = chain.AddCc(aligned[0], below[1]);  // its carry belongs at position 1: below[0]
  PROVD_UNROLL
  for (size_t k = 0; k + 2 < n; k += 2) {
    below[k] = chain.MadcLoCc(a[k + 1], b, below[k + 2]);
    below[k + 1] = chain.MadcHiCc(a[k + 1], b, below[k + 3]);
  }
  below[n - 2] = chain.MadcLoCc(a[n - 1], b, 0);
  below[n - 1] = chain.MadcHi(a[n - 1], b, 0);  // no carry out: the offset bound
  MadChain<n>(chain, aligned, a, 0, b);
  below[n - 1] = chain.Addc(below[n - 1], 0);
}

// t += m * p with m = t[0] * (-p^-1): aligned[0] becomes zero.
template <size_t n, typename Chain>
constexpr void ReduceRow(Chain& chain, uint32_t* aligned, uint32_t* offset, const uint32_t* p,
                         uint32_t inv) {
  const uint32_t m = Chain::MulLo(aligned[0], inv);
  MadChain<n>(chain, offset, p, 1, m);  // its last carry is zero: the offset bound
  MadChain<n>(chain, aligned, p, 0, m);
  offset[n - 1] = chain.Addc(offset[n - 1], 0);
}

// out = a * b / 2^(32n) mod p, in [0, 2p): the caller subtracts p once if needed. All of a, b
// below p; p odd and below 2^(32n - 1); inv = -p^-1 mod 2^32.
template <size_t n, typename Chain>
constexpr void MontMul(Chain& chain, uint32_t* out, const uint32_t* a, const uint32_t* b,
                       const uint32_t* p, uint32_t inv) {
  static_assert(n >= 2 && n % 2 == 0, "whole 64-bit limbs");
  uint32_t x[n];
  uint32_t y[n];
  FirstRow<n, Chain>(x, y, a, b[0]);
  ReduceRow<n>(chain, x, y, p, inv);  // now y is aligned, x is below
  PROVD_UNROLL
  for (size_t i = 1; i < n; i += 2) {
    AccumulateRow<n>(chain, y, x, a, b[i]);
    ReduceRow<n>(chain, y, x, p, inv);  // x aligned, y below
    if (i + 1 < n) {
      AccumulateRow<n>(chain, x, y, a, b[i + 1]);
      ReduceRow<n>(chain, x, y, p, inv);  // y aligned, x below
    }
  }
  // n even: the last row was odd-numbered, so x is aligned and y is below. t = x + y / 2^32.
  out[0] = chain.AddCc(x[0], y[1]);
  PROVD_UNROLL
  for (size_t k = 1; k + 1 < n; ++k) out[k] = chain.AddcCc(x[k], y[k + 1]);
  out[n - 1] = chain.Addc(x[n - 1], 0);
}

}  // namespace provd::field::words32
