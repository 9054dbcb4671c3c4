// Poseidon's parameters as the reference script of its authors derives them
// (generate_parameters_grain.sage, the Grain LFSR seeded with the field, S-box and round numbers):
// the round constants, then a Cauchy MDS matrix M[i][j] = 1 / (x_i + y_j) from the same bit
// stream. circomlib's Poseidon over BN254 (and so pil-stark's BN128 Merkle tree) was made by this
// script with "1 0 254 t 8 R_P p"; deriving the numbers here keeps thousands of copied constants
// out of the tree, and the tests compare the permutation with circomlibjs's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prover_core/field/bigint.hpp"

namespace provd::stark {

// The bit stream: 80 bits of state, 160 discarded warm-up bits, then pairs of bits, the second
// of a pair kept when the first is 1.
class GrainBits {
 public:
  // field: 1 for a prime field; sbox: 0 for x^alpha; field_bits: n; width: t.
  GrainBits(unsigned field, unsigned sbox, unsigned field_bits, unsigned width,
            unsigned full_rounds, unsigned partial_rounds);
  bool Next();

 private:
  bool Step();
  uint8_t state_[80];
  size_t head_ = 0;  // state_[head_] is the oldest bit
};

// The next `bits`-bit integer of the stream, most significant bit first.
template <size_t N>
field::BigInt<N> NextInteger(GrainBits& grain, unsigned bits) {
  field::BigInt<N> v{};
  for (unsigned i = 0; i < bits; ++i) {
    v.ShiftLeft1();
    v.limbs[0] |= grain.Next() ? 1 : 0;
  }
  return v;
}

// The script's numbers for a prime field F (an Fp<P>) with the x^alpha S-box: `width` *
// (full + partial) round constants, row by row, and the width x width MDS matrix.
template <typename F>
struct GrainPoseidonParameters {
  std::vector<F> round_constants;
  std::vector<std::vector<F>> mds;
};

template <typename F>
GrainPoseidonParameters<F> DeriveGrainPoseidon(unsigned width, unsigned full_rounds,
                                               unsigned partial_rounds) {
  const auto modulus = F::Modulus();
  const unsigned bits = static_cast<unsigned>(modulus.BitLength());
  GrainBits grain(/*field=*/1, /*sbox=*/0, bits, width, full_rounds, partial_rounds);
  GrainPoseidonParameters<F> p;
  // Round constants by rejection: integers >= p are drawn again.
  for (size_t i = 0; i < size_t{width} * (full_rounds + partial_rounds); ++i) {
    auto v = NextInteger<F::kLimbs>(grain, bits);
    while (!(v < modulus)) v = NextInteger<F::kLimbs>(grain, bits);
    p.round_constants.push_back(F::FromCanonical(v));
  }
  // The matrix's 2 * width elements are reduced, not rejected; a repeated one draws them all
  // again (the script's check, so that no x_i + y_j is zero for the matrices it accepts).
  std::vector<F> xy;
  for (bool distinct = false; !distinct;) {
    xy.clear();
    for (unsigned i = 0; i < 2 * width; ++i) {
      xy.push_back(F::FromIntReduced(NextInteger<F::kLimbs>(grain, bits)));
    }
    distinct = true;
    for (size_t i = 0; i < xy.size() && distinct; ++i) {
      for (size_t j = i + 1; j < xy.size(); ++j) distinct = distinct && !(xy[i] == xy[j]);
    }
  }
  p.mds.assign(width, std::vector<F>(width));
  for (unsigned i = 0; i < width; ++i) {
    for (unsigned j = 0; j < width; ++j) p.mds[i][j] = (xy[i] + xy[width + j]).Inverse();
  }
  return p;
}

}  // namespace provd::stark
