// f^((p^12 - 1) / r) for a Miller loop's output, in the two parts of the exponent
// (p^6 - 1)(p^2 + 1) * (p^4 - p^2 + 1) / r. The easy part costs an inversion and Frobenius maps
// and puts f in the cyclotomic subgroup, where inverses are conjugates and squares are the cheap
// CyclotomicSquare. The hard part is an addition chain in x per family, the same chains
// ffjavascript (so snarkjs) uses, so the values, not only the verdicts, equal snarkjs's
// (vk_alphabeta_12 of a verification key among them):
//  - BN: L. Fuentes-Castaneda, E. Knapp and F. Rodriguez-Henriquez, "Faster Hashing to G2"
//    (SAC 2011), a multiple 2x(6x^2 + 3x + 1) of the hard exponent, coprime to r;
//  - BLS12: the chain of zkcrypto's bls12_381 (after Hayashida, Hayasaka and Teruya,
//    ePrint 2020/875), 3 times the hard exponent.
#pragma once

#include "prover_core/pairing/fp12.hpp"
#include "prover_core/pairing/params.hpp"

namespace provd::pairing {

// f^x for f in the cyclotomic subgroup (x with its sign).
template <typename P>
Fp12<P> CyclotomicPowX(const Fp12<P>& f) {
  Fp12<P> r = f;
  for (int i = 62 - __builtin_clzll(P::kX); i >= 0; --i) {
    r = r.CyclotomicSquare();
    if ((P::kX >> i) & 1) r *= f;
  }
  return P::kXIsNegative ? r.Conjugate() : r;
}

template <typename P>
Fp12<P> FinalExponentiation(const Fp12<P>& f) {
  using F = Fp12<P>;
  F e = f.Conjugate() * f.Inverse();  // f^(p^6 - 1)
  e = e.Frobenius(2) * e;             // ^(p^2 + 1)
  if constexpr (P::kFamily == Family::kBn) {
    auto pow_minus_x = [](const F& v) { return CyclotomicPowX<P>(v).Conjugate(); };
    const F a = pow_minus_x(e);                      // e^-x
    const F b = a.CyclotomicSquare();                // e^-2x
    const F c = b.CyclotomicSquare();                // e^-4x
    const F d = c * b;                               // e^-6x
    const F e6 = pow_minus_x(d);                     // e^6x^2
    const F g = pow_minus_x(e6.CyclotomicSquare());  // e^-12x^3
    const F k = g.Conjugate() * e6 * d.Conjugate();  // e^(12x^3 + 6x^2 + 6x)
    const F l = k * b;                               // e^(12x^3 + 6x^2 + 4x)
    const F n = k * e6 * e;                          // e^(12x^3 + 12x^2 + 6x + 1)
    const F r = k.Frobenius(2) * (l.Frobenius(1) * n);
    return (e.Conjugate() * l).Frobenius(3) * r;
  } else {
    F t1 = e.CyclotomicSquare().Conjugate();
    F t3 = CyclotomicPowX<P>(e);
    F t4 = t3.CyclotomicSquare();
    F t5 = t1 * t3;
    t1 = CyclotomicPowX<P>(t5);
    F t0 = CyclotomicPowX<P>(t1);
    F t6 = CyclotomicPowX<P>(t0) * t4;
    t4 = CyclotomicPowX<P>(t6) * t5.Conjugate() * e;
    t1 = (t1 * e).Frobenius(3);
    t6 = (t6 * e.Conjugate()).Frobenius(1);
    t3 = (t3 * t0).Frobenius(2) * t1 * t6;
    return t3 * t4;
  }
}

}  // namespace provd::pairing
