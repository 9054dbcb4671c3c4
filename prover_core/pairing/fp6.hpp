// The cubic extension Fq6 = Fq2[v] / (v^3 - xi) of the pairing tower, xi the curve's sextic
// non-residue in Fq2 (9 + u for BN254, 1 + u for BLS12-381). Elements are c0 + c1 v + c2 v^2,
// the layout of ffjavascript's F6 (and of arkworks, blst, gnark).
//
// The tower parameter struct P (params.hpp) supplies Fq, Fq2, MulByNonResidue (a * xi, a few
// additions) and the Frobenius coefficients (frobenius.hpp).
#pragma once

#include "prover_core/pairing/frobenius.hpp"

namespace provd::pairing {

template <typename P>
class Fp6 {
 public:
  using Fq2 = typename P::Fq2;

  constexpr Fp6() = default;
  constexpr Fp6(const Fq2& c0, const Fq2& c1, const Fq2& c2) : c0_(c0), c1_(c1), c2_(c2) {}
  static constexpr Fp6 Zero() { return Fp6(); }
  static constexpr Fp6 One() { return Fp6(Fq2::One(), Fq2::Zero(), Fq2::Zero()); }

  constexpr const Fq2& c0() const { return c0_; }
  constexpr const Fq2& c1() const { return c1_; }
  constexpr const Fq2& c2() const { return c2_; }
  constexpr bool IsZero() const { return c0_.IsZero() && c1_.IsZero() && c2_.IsZero(); }
  friend constexpr bool operator==(const Fp6&, const Fp6&) = default;

  friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) {
    return Fp6(a.c0_ + b.c0_, a.c1_ + b.c1_, a.c2_ + b.c2_);
  }
  friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) {
    return Fp6(a.c0_ - b.c0_, a.c1_ - b.c1_, a.c2_ - b.c2_);
  }
  constexpr Fp6 operator-() const { return Fp6(-c0_, -c1_, -c2_); }
  constexpr Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  constexpr Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  constexpr Fp6 Double() const { return Fp6(c0_.Double(), c1_.Double(), c2_.Double()); }

  // Karatsuba over three coefficients: 6 Fq2 products (Devegili, O hEigeartaigh, Scott and
  // Dahab, "Multiplication and Squaring on Pairing-Friendly Fields", 2006).
  friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    const Fq2 aa = a.c0_ * b.c0_;
    const Fq2 bb = a.c1_ * b.c1_;
    const Fq2 cc = a.c2_ * b.c2_;
    const Fq2 t1 = P::MulByNonResidue((a.c1_ + a.c2_) * (b.c1_ + b.c2_) - bb - cc) + aa;
    const Fq2 t2 = (a.c0_ + a.c1_) * (b.c0_ + b.c1_) - aa - bb + P::MulByNonResidue(cc);
    const Fq2 t3 = (a.c0_ + a.c2_) * (b.c0_ + b.c2_) - aa + bb - cc;
    return Fp6(t1, t2, t3);
  }
  constexpr Fp6& operator*=(const Fp6& b) { return *this = *this * b; }
  friend constexpr Fp6 operator*(const Fp6& a, const Fq2& k) {
    return Fp6(a.c0_ * k, a.c1_ * k, a.c2_ * k);
  }

  // CH-SQR2 of the same paper: 3 products and 2 squarings in Fq2.
  constexpr Fp6 Square() const {
    const Fq2 s0 = c0_.Square();
    const Fq2 s1 = (c0_ * c1_).Double();
    const Fq2 s2 = (c0_ - c1_ + c2_).Square();
    const Fq2 s3 = (c1_ * c2_).Double();
    const Fq2 s4 = c2_.Square();
    return Fp6(s0 + P::MulByNonResidue(s3), s1 + P::MulByNonResidue(s4), s1 + s2 + s3 - s0 - s4);
  }

  // this * v: the non-residue of Fq12 over Fq6.
  constexpr Fp6 MulByV() const { return Fp6(P::MulByNonResidue(c2_), c0_, c1_); }

  // this * (b0 + b1 v): the shape of a line's coefficients in the Miller loop.
  constexpr Fp6 MulBy01(const Fq2& b0, const Fq2& b1) const {
    const Fq2 aa = c0_ * b0;
    const Fq2 bb = c1_ * b1;
    const Fq2 t1 = P::MulByNonResidue((c1_ + c2_) * b1 - bb) + aa;
    const Fq2 t2 = (c0_ + c1_) * (b0 + b1) - aa - bb;
    const Fq2 t3 = (c0_ + c2_) * b0 - aa + bb;
    return Fp6(t1, t2, t3);
  }
  // this * (b1 v).
  constexpr Fp6 MulBy1(const Fq2& b1) const {
    return Fp6(P::MulByNonResidue(c2_ * b1), c0_ * b1, c1_ * b1);
  }

  // Zero() for zero.
  constexpr Fp6 Inverse() const {
    const Fq2 t0 = c0_.Square() - P::MulByNonResidue(c1_ * c2_);
    const Fq2 t1 = P::MulByNonResidue(c2_.Square()) - c0_ * c1_;
    const Fq2 t2 = c1_.Square() - c0_ * c2_;
    const Fq2 norm = c0_ * t0 + P::MulByNonResidue(c2_ * t1 + c1_ * t2);
    const Fq2 inv = norm.Inverse();
    return Fp6(t0 * inv, t1 * inv, t2 * inv);
  }

  // this^(p^k): v^(p^k) = v * xi^((p^k - 1) / 3).
  Fp6 Frobenius(size_t k) const {
    const FrobeniusCoefficients<P>& f = FrobeniusCoefficients<P>::Get();
    return Fp6(f.Fq2Power(c0_, k), f.Fq2Power(c1_, k) * f.fp6_c1[k % 12],
               f.Fq2Power(c2_, k) * f.fp6_c2[k % 12]);
  }

 private:
  Fq2 c0_{};
  Fq2 c1_{};
  Fq2 c2_{};
};

}  // namespace provd::pairing
