// Poseidon over Goldilocks on eight states at once, one AVX-512 register per state element
// (lane l of every register belongs to state l), for PoseidonPermuteBatch.
//
// Why: the scalar permutation is bound by 64 x 64-bit products and their reductions. Measured
// on Zen 4 (2.1 GHz, one thread): about 510 ns a permutation in lanes (IFMA MDS product; 600 ns
// with AVX-512F alone), against 1.7 us for the fast scalar form and 6 us for the plain one.
// Selected at run time like field/ifma_field.hpp's lanes, and only compiled for optimizing
// x86-64 GCC-compatible builds; elsewhere Avx512Available() is false.
#pragma once

#include <cstddef>
#include <span>

#include "prover_core/stark/poseidon_goldilocks.hpp"

namespace provd::stark::poseidon_internal {

inline constexpr size_t kAvx512Lanes = 8;
// Tails of at least this many states go through padded lanes, shorter ones through the scalar
// permutation.
inline constexpr size_t kAvx512MinTail = 3;

// AVX-512F in the CPU and enabled by the OS, this build has the lanes, and
// PROVD_DISABLE_AVX512_POSEIDON is not 1 (for comparisons on one machine). Checked once.
bool Avx512Available();

// PoseidonPermute on each of the eight states; only call when Avx512Available().
void PermuteLanesAvx512(std::span<PoseidonState, kAvx512Lanes> states);

}  // namespace provd::stark::poseidon_internal
