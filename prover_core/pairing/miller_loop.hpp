// The optimal ate Miller loop, written once for both families, and G2 points prepared for it.
//
// A G2 point's line coefficients depend only on the point, so G2Prepared computes them once
// (homogeneous projective doubling and addition steps with the line through them, after
// Costello, Lange and Naehrig, "Faster Pairing Computations on Curves with High-Degree
// Twists", PKC 2010, in the form arkworks uses): a verification key prepares its fixed G2
// points once for every proof it checks. The loop then only squares f and multiplies it by
// sparse lines evaluated at the G1 points. Vertical lines are left out: they lie in a proper
// subfield, which the final exponentiation sends to 1.
//
// Loop: BN: the signed digits (NAF) of 6x + 2, then the lines to psi(Q) and -psi^2(Q);
// BLS12: the bits of |x|, and f conjugated at the end because x < 0.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/pairing/endomorphism.hpp"
#include "prover_core/pairing/fp12.hpp"

namespace provd::pairing {

// Signed digits, most significant first; the first is always 1.
struct LoopDigits {
  std::array<int8_t, 80> digit{};
  size_t count = 0;
};

template <typename P>
constexpr LoopDigits MillerLoopDigits() {
  LoopDigits lsb_first;
  if constexpr (P::kFamily == Family::kBn) {
    static_assert(!P::kXIsNegative, "BN curves with x < 0 are not needed here");
    field::u128 n = static_cast<field::u128>(P::kX) * 6 + 2;
    while (n != 0) {  // non-adjacent form: fewer additions than the binary digits
      int8_t d = 0;
      if (n & 1) {
        d = (n & 3) == 1 ? 1 : -1;
        n = d == 1 ? n - 1 : n + 1;
      }
      lsb_first.digit[lsb_first.count++] = d;
      n >>= 1;
    }
  } else {
    for (uint64_t n = P::kX; n != 0; n >>= 1) {
      lsb_first.digit[lsb_first.count++] = static_cast<int8_t>(n & 1);
    }
  }
  LoopDigits out;
  out.count = lsb_first.count;
  for (size_t i = 0; i < out.count; ++i) out.digit[i] = lsb_first.digit[out.count - 1 - i];
  return out;
}

template <typename P>
class G2Prepared {
 public:
  using Fq = typename P::Fq;
  using Fq2 = typename P::Fq2;
  using G2Affine = curve::AffinePoint<typename P::G2>;
  using Line = std::array<Fq2, 3>;

  G2Prepared() = default;
  explicit G2Prepared(const G2Affine& q) {
    if (q.infinity) return;
    infinity_ = false;
    static constexpr LoopDigits kDigits = MillerLoopDigits<P>();
    lines_.reserve(2 * kDigits.count + 2);
    Projective r{q.x, q.y, Fq2::One()};
    const G2Affine minus_q = -q;
    for (size_t k = 1; k < kDigits.count; ++k) {
      lines_.push_back(Doubling(r));
      if (kDigits.digit[k] == 1) lines_.push_back(Addition(r, q));
      if (kDigits.digit[k] == -1) lines_.push_back(Addition(r, minus_q));
    }
    if constexpr (P::kFamily == Family::kBn) {
      const G2Affine q1 = Psi<P>(q);
      const G2Affine q2 = -Psi<P>(q1);
      lines_.push_back(Addition(r, q1));
      lines_.push_back(Addition(r, q2));
    }
  }

  bool infinity() const { return infinity_; }
  const std::vector<Line>& lines() const { return lines_; }

 private:
  struct Projective {
    Fq2 x, y, z;
  };

  static Line Doubling(Projective& r) {
    static const Fq kHalf = Fq::FromUint64(2).Inverse();
    const Fq2 a = (r.x * r.y) * kHalf;
    const Fq2 b = r.y.Square();
    const Fq2 c = r.z.Square();
    const Fq2 e = P::G2::B() * (c.Double() + c);
    const Fq2 f = e.Double() + e;
    const Fq2 g = (b + f) * kHalf;
    const Fq2 h = (r.y + r.z).Square() - (b + c);
    const Fq2 i = e - b;
    const Fq2 j = r.x.Square();
    const Fq2 e2 = e.Square();
    r.x = a * (b - f);
    r.y = g.Square() - (e2.Double() + e2);
    r.z = b * h;
    if constexpr (P::kTwist == Twist::kM) {
      return {i, j.Double() + j, -h};
    } else {
      return {-h, j.Double() + j, i};
    }
  }

  static Line Addition(Projective& r, const G2Affine& q) {
    const Fq2 theta = r.y - q.y * r.z;
    const Fq2 lambda = r.x - q.x * r.z;
    const Fq2 c = theta.Square();
    const Fq2 d = lambda.Square();
    const Fq2 e = lambda * d;
    const Fq2 f = r.z * c;
    const Fq2 g = r.x * d;
    const Fq2 h = e + f - g.Double();
    r.x = lambda * h;
    r.y = theta * (g - h) - e * r.y;
    r.z *= e;
    const Fq2 j = theta * q.x - lambda * q.y;
    if constexpr (P::kTwist == Twist::kM) {
      return {j, -theta, lambda};
    } else {
      return {lambda, -theta, j};
    }
  }

  std::vector<Line> lines_;
  bool infinity_ = true;
};

// One term of a product of pairings: a G1 point and a prepared G2 point.
template <typename P>
struct PairingTerm {
  curve::AffinePoint<typename P::G1> p;
  const G2Prepared<P>* q = nullptr;
};

// f *= the line `line` evaluated at p.
template <typename P>
Fp12<P> MulByLine(const Fp12<P>& f, const typename G2Prepared<P>::Line& line,
                  const curve::AffinePoint<typename P::G1>& p) {
  if constexpr (P::kTwist == Twist::kM) {
    return f.MulBy014(line[0], line[1] * p.x, line[2] * p.y);
  } else {
    return f.MulBy034(line[0] * p.y, line[1] * p.x, line[2]);
  }
}

// The product of the Miller loops of every term, sharing one squaring of f per step; terms
// with a point at infinity contribute 1.
template <typename P>
Fp12<P> MultiMillerLoop(std::span<const PairingTerm<P>> all_terms) {
  std::vector<PairingTerm<P>> terms;
  terms.reserve(all_terms.size());
  for (const PairingTerm<P>& t : all_terms) {
    if (!t.p.infinity && !t.q->infinity()) terms.push_back(t);
  }
  static constexpr LoopDigits kDigits = MillerLoopDigits<P>();
  Fp12<P> f = Fp12<P>::One();
  size_t line = 0;
  auto multiply_lines = [&] {
    for (const PairingTerm<P>& t : terms) f = MulByLine<P>(f, t.q->lines()[line], t.p);
    ++line;
  };
  for (size_t k = 1; k < kDigits.count; ++k) {
    if (k != 1) f = f.Square();
    multiply_lines();
    if (kDigits.digit[k] != 0) multiply_lines();
  }
  if constexpr (P::kXIsNegative) f = f.Conjugate();
  if constexpr (P::kFamily == Family::kBn) {
    multiply_lines();
    multiply_lines();
  }
  return f;
}

}  // namespace provd::pairing
