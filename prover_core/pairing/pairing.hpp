// Pairings on BN254 and BLS12-381: e(P, Q) and products of pairings with one final
// exponentiation, over the tower of fp12.hpp. Not constant-time (verification handles public
// data only).
#pragma once

#include <span>

#include "prover_core/pairing/final_exponentiation.hpp"
#include "prover_core/pairing/miller_loop.hpp"
#include "prover_core/pairing/subgroup.hpp"

namespace provd::pairing {

template <typename P>
using Gt = Fp12<P>;

template <typename P>
Gt<P> Pairing(const curve::AffinePoint<typename P::G1>& p,
              const curve::AffinePoint<typename P::G2>& q) {
  const G2Prepared<P> prepared(q);
  const PairingTerm<P> term{p, &prepared};
  return FinalExponentiation<P>(MultiMillerLoop<P>(std::span(&term, 1)));
}

// The product of e(p_i, q_i) over the terms.
template <typename P>
Gt<P> PairingProduct(std::span<const PairingTerm<P>> terms) {
  return FinalExponentiation<P>(MultiMillerLoop<P>(terms));
}

}  // namespace provd::pairing
