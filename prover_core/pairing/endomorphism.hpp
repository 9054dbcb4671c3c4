// psi, the untwist-Frobenius-twist endomorphism of G2, which acts on G2 as multiplication by p;
// the Miller loop of BN curves adds psi(Q) and -psi^2(Q), and the fast subgroup checks
// (subgroup.hpp) compare psi(Q) with small multiples of Q. psi(x, y) = (conj(x) cx, conj(y) cy)
// with cx = xi^((p-1)/3), cy = xi^((p-1)/2) for a D-type twist and their inverses for M-type.
#pragma once

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/pairing/frobenius.hpp"
#include "prover_core/pairing/params.hpp"

namespace provd::pairing {

template <typename P>
struct PsiCoefficients {
  typename P::Fq2 cx, cy;
  static const PsiCoefficients& Get() {
    static const PsiCoefficients c = [] {
      PsiCoefficients r{FrobeniusCoefficients<P>::NonResiduePower(3),
                        FrobeniusCoefficients<P>::NonResiduePower(2)};
      if constexpr (P::kTwist == Twist::kM) {
        r.cx = r.cx.Inverse();
        r.cy = r.cy.Inverse();
      }
      return r;
    }();
    return c;
  }
};

template <typename P>
curve::AffinePoint<typename P::G2> Psi(const curve::AffinePoint<typename P::G2>& q) {
  if (q.infinity) return q;
  const PsiCoefficients<P>& c = PsiCoefficients<P>::Get();
  return curve::AffinePoint<typename P::G2>::FromXY(q.x.Conjugate() * c.cx, q.y.Conjugate() * c.cy);
}

// The same on XYZZ coordinates: conjugation commutes with the division x = X / ZZ.
template <typename P>
curve::XyzzPoint<typename P::G2> Psi(const curve::XyzzPoint<typename P::G2>& q) {
  const PsiCoefficients<P>& c = PsiCoefficients<P>::Get();
  return curve::XyzzPoint<typename P::G2>::FromCoordinates(
      q.x().Conjugate() * c.cx, q.y().Conjugate() * c.cy, q.zz().Conjugate(), q.zzz().Conjugate());
}

}  // namespace provd::pairing
