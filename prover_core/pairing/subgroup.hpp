// Prime-order subgroup checks by endomorphisms, a few dozen group operations instead of the
// 255-bit multiplication by r of curve::IsInSubgroup:
//  - BLS12-381 G1: phi(P) == -x^2 P, phi(x, y) = (beta x, y) (Scott, ePrint 2021/1130 sec. 6;
//    proof in ePrint 2022/352);
//  - BLS12-381 G2: psi(Q) == x Q (ePrint 2021/1130 sec. 4);
//  - BN254 G2: (x+1) Q + psi(x Q) + psi^2(x Q) == psi^3(2x Q) (Dai, Lin, Zhao and Zhou,
//    ePrint 2022/348, sec. 3 and 5.1);
//  - BN254 G1 has cofactor 1: every point on the curve is in it.
// The point must be on the curve (the decoders check that first).
#pragma once

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/pairing/endomorphism.hpp"

namespace provd::pairing {

namespace internal {

template <typename C>
curve::XyzzPoint<C> TimesX(const curve::XyzzPoint<C>& p, uint64_t x) {
  return curve::ScalarMul(p, field::BigInt<1>::FromUint64(x));
}

// beta, the cube root of unity in Fq for which phi acts on G1 as -x^2 (the other root gives
// the other eigenvalue): chosen on the generator rather than pasted in.
template <typename P>
const typename P::Fq& Beta() {
  using Fq = typename P::Fq;
  static const Fq beta = [] {
    using G1 = typename P::G1;
    const auto g = G1::Generator();
    // Cube roots of unity: z^((p-1)/3) for a z that is not a cube.
    for (uint64_t z = 2;; ++z) {
      typename Fq::Int e = Fq::Modulus();
      e.SubInPlace(Fq::Int::FromUint64(1));
      const Fq root = Fq::FromUint64(z).Pow(DivideBySmall(e, 3));
      if (root.IsOne()) continue;
      const auto x2 = TimesX(TimesX(curve::XyzzPoint<G1>(g), P::kX), P::kX);
      for (const Fq& b : {root, root.Square()}) {
        if (curve::XyzzPoint<G1>(curve::AffinePoint<G1>::FromXY(g.x * b, g.y)) == -x2) return b;
      }
      return Fq::Zero();  // unreachable for a BLS12 curve; every G1 check would then fail
    }
  }();
  return beta;
}

}  // namespace internal

template <typename P>
bool IsInG1(const curve::AffinePoint<typename P::G1>& p) {
  using G1 = typename P::G1;
  if constexpr (G1::kCofactorIsOne) {
    return true;
  } else {
    static_assert(P::kFamily == Family::kBls12, "a G1 check is written for BLS12 only");
    if (p.infinity) return true;
    const curve::XyzzPoint<G1> x2 =
        internal::TimesX(internal::TimesX(curve::XyzzPoint<G1>(p), P::kX), P::kX);
    const curve::XyzzPoint<G1> phi(curve::AffinePoint<G1>::FromXY(p.x * internal::Beta<P>(), p.y));
    return phi == -x2;
  }
}

template <typename P>
bool IsInG2(const curve::AffinePoint<typename P::G2>& q) {
  using G2 = typename P::G2;
  using Xyzz = curve::XyzzPoint<G2>;
  if (q.infinity) return true;
  const Xyzz point(q);
  Xyzz xq = internal::TimesX(point, P::kX);
  if constexpr (P::kXIsNegative) xq = -xq;
  if constexpr (P::kFamily == Family::kBls12) {
    return Psi<P>(point) == xq;
  } else {
    Xyzz lhs = xq + point;
    const Xyzz psi_xq = Psi<P>(xq);
    lhs.Add(psi_xq);
    lhs.Add(Psi<P>(psi_xq));
    return lhs == Psi<P>(Psi<P>(Psi<P>(xq.Double())));
  }
}

}  // namespace provd::pairing
