// The quadratic extension Fq12 = Fq6[w] / (w^2 - v), where pairings take their values; elements
// are c0 + c1 w, the layout of ffjavascript's Gt. Besides the field operations: the sparse
// products by a Miller-loop line, conjugation (the inverse in the cyclotomic subgroup, where
// every final-exponentiated value lies) and Granger-Scott cyclotomic squaring.
#pragma once

#include "prover_core/pairing/fp6.hpp"

namespace provd::pairing {

template <typename P>
class Fp12 {
 public:
  using Fq2 = typename P::Fq2;
  using Fq6 = Fp6<P>;

  constexpr Fp12() = default;
  constexpr Fp12(const Fq6& c0, const Fq6& c1) : c0_(c0), c1_(c1) {}
  static constexpr Fp12 One() { return Fp12(Fq6::One(), Fq6::Zero()); }

  constexpr const Fq6& c0() const { return c0_; }
  constexpr const Fq6& c1() const { return c1_; }
  constexpr bool IsOne() const { return c0_ == Fq6::One() && c1_.IsZero(); }
  friend constexpr bool operator==(const Fp12&, const Fp12&) = default;

  // Karatsuba: 3 Fq6 products.
  friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    const Fq6 aa = a.c0_ * b.c0_;
    const Fq6 bb = a.c1_ * b.c1_;
    return Fp12(aa + bb.MulByV(), (a.c0_ + a.c1_) * (b.c0_ + b.c1_) - aa - bb);
  }
  constexpr Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Complex squaring: 2 Fq6 products.
  constexpr Fp12 Square() const {
    const Fq6 ab = c0_ * c1_;
    const Fq6 c0 = (c0_ + c1_) * (c0_ + c1_.MulByV()) - ab - ab.MulByV();
    return Fp12(c0, ab.Double());
  }

  // this^(p^6): the inverse of an element of the cyclotomic subgroup.
  constexpr Fp12 Conjugate() const { return Fp12(c0_, -c1_); }

  constexpr Fp12 Inverse() const {
    const Fq6 inv = (c0_.Square() - c1_.Square().MulByV()).Inverse();
    return Fp12(c0_ * inv, -(c1_ * inv));
  }

  // this^(p^k).
  Fp12 Frobenius(size_t k) const {
    const Fq2& gamma = FrobeniusCoefficients<P>::Get().fp12_c1[k % 12];
    return Fp12(c0_.Frobenius(k), c1_.Frobenius(k) * gamma);
  }

  // this * (a0 + a1 v + a4 v w): a line of an M-type twist (BLS12-381) evaluated at a G1 point.
  constexpr Fp12 MulBy014(const Fq2& a0, const Fq2& a1, const Fq2& a4) const {
    const Fq6 aa = c0_.MulBy01(a0, a1);
    const Fq6 bb = c1_.MulBy1(a4);
    const Fq6 c1 = (c0_ + c1_).MulBy01(a0, a1 + a4) - aa - bb;
    return Fp12(bb.MulByV() + aa, c1);
  }

  // this * (a0 + a3 w + a4 v w): a line of a D-type twist (BN254) evaluated at a G1 point.
  constexpr Fp12 MulBy034(const Fq2& a0, const Fq2& a3, const Fq2& a4) const {
    const Fq6 aa(c0_.c0() * a0, c0_.c1() * a0, c0_.c2() * a0);
    const Fq6 bb = c1_.MulBy01(a3, a4);
    const Fq6 c1 = (c0_ + c1_).MulBy01(a0 + a3, a4) - aa - bb;
    return Fp12(bb.MulByV() + aa, c1);
  }

  // this^2 for this in the cyclotomic subgroup (after the easy part of the final
  // exponentiation): R. Granger and M. Scott, "Faster Squaring in the Cyclotomic Subgroup of
  // Sixth Degree Extensions" (PKC 2010), 6 Fq2 products where Square() needs 12.
  constexpr Fp12 CyclotomicSquare() const {
    // Fq12 seen as Fq4^3 over Fq2 (Fq4 = Fq2[y] / (y^2 - xi)): pairs (z0, z1), (z2, z3), (z4, z5).
    const Fq2& z0 = c0_.c0();
    const Fq2& z4 = c0_.c1();
    const Fq2& z3 = c0_.c2();
    const Fq2& z2 = c1_.c0();
    const Fq2& z1 = c1_.c1();
    const Fq2& z5 = c1_.c2();
    auto fq4_square = [](const Fq2& a, const Fq2& b, Fq2& lo, Fq2& hi) {
      const Fq2 ab = a * b;
      lo = (a + b) * (P::MulByNonResidue(b) + a) - ab - P::MulByNonResidue(ab);
      hi = ab.Double();
    };
    Fq2 t0, t1, t2, t3, t4, t5;
    fq4_square(z0, z1, t0, t1);
    fq4_square(z2, z3, t2, t3);
    fq4_square(z4, z5, t4, t5);
    // 3 t - 2 z or 3 t + 2 z, coefficient by coefficient.
    auto minus = [](const Fq2& t, const Fq2& z) { return (t - z).Double() + t; };
    auto plus = [](const Fq2& t, const Fq2& z) { return (t + z).Double() + t; };
    const Fq2 t5_xi = P::MulByNonResidue(t5);
    return Fp12(Fq6(minus(t0, z0), minus(t2, z4), minus(t4, z3)),
                Fq6(plus(t5_xi, z2), plus(t1, z1), plus(t3, z5)));
  }

 private:
  Fq6 c0_{};
  Fq6 c1_{};
};

}  // namespace provd::pairing
