// Short Weierstrass curves y^2 = x^3 + b (a = 0) over a field F (Fq for G1, Fq2 for G2): affine
// points and XYZZ points (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2), the representation sppark and the
// fastest CPU MSMs use because mixed addition costs 8M + 2S and needs no inversion.
// Formulas: add-2008-s, madd-2008-s and dbl-2008-s-1 from the Explicit-Formulas
// Database (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html), with the exceptional cases
// (equal points, opposite points, infinity) handled explicitly.
//
// Curve parameter structs (bn254.hpp, bls12_381.hpp) provide:
//   using Field; using ScalarInt (BigInt<4>);
//   static Field B(); static AffinePoint<Self> Generator();
//   static constexpr ScalarInt kOrder;  the prime order r of the subgroup
//   static constexpr bool kCofactorIsOne;
//   static constexpr char kName[];
//
// Not constant-time (branches on the point values and on scalar bits).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace provd::curve {

template <typename C>
struct AffinePoint {
  using Field = typename C::Field;
  Field x{};
  Field y{};
  bool infinity = true;

  static constexpr AffinePoint Infinity() { return AffinePoint(); }
  static constexpr AffinePoint FromXY(const Field& x, const Field& y) {
    return AffinePoint{x, y, false};
  }

  bool IsOnCurve() const { return infinity || y.Square() == x.Square() * x + C::B(); }
  constexpr AffinePoint operator-() const { return infinity ? *this : FromXY(x, -y); }
  friend bool operator==(const AffinePoint& a, const AffinePoint& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
};

template <typename C>
class XyzzPoint {
 public:
  using Field = typename C::Field;
  using Affine = AffinePoint<C>;

  constexpr XyzzPoint() = default;  // the point at infinity
  static constexpr XyzzPoint Infinity() { return XyzzPoint(); }
  constexpr explicit XyzzPoint(const Affine& p) {
    if (!p.infinity) {
      x_ = p.x;
      y_ = p.y;
      zz_ = Field::One();
      zzz_ = Field::One();
    }
  }

  // (X, Y, ZZ, ZZZ) as they are, for code that computes the coordinates elsewhere (the MSM's
  // AVX-512 lanes); ZZ = 0 is the point at infinity.
  static constexpr XyzzPoint FromCoordinates(const Field& x, const Field& y, const Field& zz,
                                             const Field& zzz) {
    XyzzPoint r;
    r.x_ = x;
    r.y_ = y;
    r.zz_ = zz;
    r.zzz_ = zzz;
    return r;
  }

  constexpr bool IsInfinity() const { return zz_.IsZero(); }
  constexpr const Field& x() const { return x_; }
  constexpr const Field& y() const { return y_; }
  constexpr const Field& zz() const { return zz_; }
  constexpr const Field& zzz() const { return zzz_; }

  // Affine form; one field inversion. For many points use BatchToAffine.
  Affine ToAffine() const {
    if (IsInfinity()) return Affine::Infinity();
    Field inv = (zz_ * zzz_).Inverse();  // 1/(ZZ*ZZZ): gives both 1/ZZ and 1/ZZZ
    return Affine::FromXY(x_ * (inv * zzz_), y_ * (inv * zz_));
  }

  constexpr XyzzPoint operator-() const {
    XyzzPoint r = *this;
    r.y_ = -r.y_;
    return r;
  }

  // dbl-2008-s-1: 2M + 5S (+ the a*ZZ^2 term, zero here).
  constexpr XyzzPoint Double() const {
    if (IsInfinity()) return *this;
    Field u = y_.Double();
    Field v = u.Square();
    Field w = u * v;
    Field s = x_ * v;
    Field x2 = x_.Square();
    Field m = x2.Double() + x2;
    XyzzPoint r;
    r.x_ = m.Square() - s.Double();
    r.y_ = m * (s - r.x_) - w * y_;
    r.zz_ = v * zz_;
    r.zzz_ = w * zzz_;
    return r;
  }

  // this += q (affine), madd-2008-s: 8M + 2S.
  constexpr void AddAffine(const Affine& q) {
    if (q.infinity) return;
    if (IsInfinity()) {
      *this = XyzzPoint(q);
      return;
    }
    Field u2 = q.x * zz_;
    Field s2 = q.y * zzz_;
    Field p = u2 - x_;
    Field r = s2 - y_;
    if (p.IsZero()) {
      if (r.IsZero()) {
        *this = XyzzPoint(q).Double();  // rare: equal points
      } else {
        *this = Infinity();  // q = -this
      }
      return;
    }
    auto [pp, ppp] = FinishAddition(x_, y_, p, r);
    zz_ *= pp;
    zzz_ *= ppp;
  }

  // this -= q (affine).
  constexpr void SubAffine(const Affine& q) { AddAffine(-q); }

  // this += q, add-2008-s: 12M + 2S.
  constexpr void Add(const XyzzPoint& q) {
    if (q.IsInfinity()) return;
    if (IsInfinity()) {
      *this = q;
      return;
    }
    Field u1 = x_ * q.zz_;
    Field u2 = q.x_ * zz_;
    Field s1 = y_ * q.zzz_;
    Field s2 = q.y_ * zzz_;
    Field p = u2 - u1;
    Field r = s2 - s1;
    if (p.IsZero()) {
      if (r.IsZero()) {
        *this = Double();
      } else {
        *this = Infinity();
      }
      return;
    }
    auto [pp, ppp] = FinishAddition(u1, s1, p, r);
    zz_ = zz_ * q.zz_ * pp;
    zzz_ = zzz_ * q.zzz_ * ppp;
  }

  friend constexpr XyzzPoint operator+(XyzzPoint a, const XyzzPoint& b) {
    a.Add(b);
    return a;
  }

  // Group equality (independent of the representation).
  friend constexpr bool operator==(const XyzzPoint& a, const XyzzPoint& b) {
    if (a.IsInfinity() || b.IsInfinity()) return a.IsInfinity() == b.IsInfinity();
    return a.x_ * b.zz_ == b.x_ * a.zz_ && a.y_ * b.zzz_ == b.y_ * a.zzz_;
  }

 private:
  // The common end of add-2008-s and madd-2008-s (madd is add with Z2 = 1, so U1 = X1 and
  // S1 = Y1): from U1, S1 and the nonzero differences P = U2 - U1, R = S2 - S1, sets X3 and Y3
  // and returns PP = P^2 and PPP = P^3 for the ZZ / ZZZ updates the two formulas do differently.
  constexpr std::pair<Field, Field> FinishAddition(Field u1, Field s1, const Field& p,
                                                   const Field& r) {
    Field pp = p.Square();
    Field ppp = p * pp;
    Field qq = u1 * pp;
    x_ = r.Square() - ppp - qq.Double();
    y_ = r * (qq - x_) - s1 * ppp;
    return {pp, ppp};
  }

  Field x_{};
  Field y_{};
  Field zz_{};
  Field zzz_{};
};

// k * p by double-and-add over the bits of k (any width, e.g. a scalar >= r).
template <typename C, typename Int>
constexpr XyzzPoint<C> ScalarMul(const AffinePoint<C>& p, const Int& k) {
  XyzzPoint<C> acc;
  for (size_t i = k.BitLength(); i-- > 0;) {
    acc = acc.Double();
    if (k.Bit(i)) acc.AddAffine(p);
  }
  return acc;
}

template <typename C, typename Int>
constexpr XyzzPoint<C> ScalarMul(const XyzzPoint<C>& p, const Int& k) {
  XyzzPoint<C> acc;
  for (size_t i = k.BitLength(); i-- > 0;) {
    acc = acc.Double();
    if (k.Bit(i)) acc.Add(p);
  }
  return acc;
}

// In the prime-order subgroup: r * p = O. Curves with cofactor 1 only need the curve check.
template <typename C>
bool IsInSubgroup(const AffinePoint<C>& p) {
  if (p.infinity || C::kCofactorIsOne) return true;
  return ScalarMul(p, C::kOrder).IsInfinity();
}

// Converts many points with one inversion (Montgomery's trick).
template <typename C>
void BatchToAffine(std::span<const XyzzPoint<C>> in, std::span<AffinePoint<C>> out);

// How coordinates are encoded: snarkjs stores zkey points in Montgomery form, JSON and test
// vectors use the normal form. The point at infinity is all-zero coordinates either way.
enum class CoordinateEncoding { kNormal, kMontgomery };

// 2 * Field::kBytes bytes (x then y) with canonical coordinates (each below p; INVALID_ARGUMENT
// otherwise), not checked to be on the curve: for points already checked once (a proving key's,
// see groth16/point_checks.hpp), whose curve check would cost more than the decoding.
template <typename C>
absl::StatusOr<AffinePoint<C>> DecodeAffineCoordinates(std::span<const uint8_t> bytes,
                                                       CoordinateEncoding encoding) {
  using Field = typename C::Field;
  constexpr size_t kCoord = Field::kBytes;
  if (bytes.size() != 2 * kCoord) {
    return absl::InvalidArgumentError(
        absl::StrCat(C::kName, " point: expected ", 2 * kCoord, " bytes, got ", bytes.size()));
  }
  auto decode = [&](size_t i) {
    auto part = bytes.subspan(i * kCoord, kCoord);
    return encoding == CoordinateEncoding::kMontgomery ? Field::FromMontBytesLE(part)
                                                       : Field::FromBytesLE(part);
  };
  absl::StatusOr<Field> x = decode(0);
  if (!x.ok())
    return absl::InvalidArgumentError(absl::StrCat(C::kName, " point x: ", x.status().message()));
  absl::StatusOr<Field> y = decode(1);
  if (!y.ok())
    return absl::InvalidArgumentError(absl::StrCat(C::kName, " point y: ", y.status().message()));
  // All-zero bytes, the point at infinity, are the only ones that decode to (0, 0) in either
  // encoding.
  if (x->IsZero() && y->IsZero()) return AffinePoint<C>::Infinity();
  return AffinePoint<C>::FromXY(*x, *y);
}

// Untrusted input: DecodeAffineCoordinates, then the curve equation and (when
// `check_subgroup`) the subgroup; INVALID_ARGUMENT naming what failed.
template <typename C>
absl::StatusOr<AffinePoint<C>> DecodeAffine(std::span<const uint8_t> bytes,
                                            CoordinateEncoding encoding, bool check_subgroup) {
  absl::StatusOr<AffinePoint<C>> p = DecodeAffineCoordinates<C>(bytes, encoding);
  if (!p.ok()) return p.status();
  if (!p->IsOnCurve()) {
    return absl::InvalidArgumentError(absl::StrCat(C::kName, " point is not on the curve"));
  }
  if (check_subgroup && !IsInSubgroup(*p)) {
    return absl::InvalidArgumentError(
        absl::StrCat(C::kName, " point is not in the prime-order subgroup"));
  }
  return p;
}

template <typename C>
void EncodeAffine(const AffinePoint<C>& p, CoordinateEncoding encoding, std::span<uint8_t> out) {
  constexpr size_t kCoord = C::Field::kBytes;
  if (p.infinity) {
    for (uint8_t& b : out.first(2 * kCoord)) b = 0;
    return;
  }
  if (encoding == CoordinateEncoding::kMontgomery) {
    p.x.ToMontBytesLE(out.subspan(0, kCoord));
    p.y.ToMontBytesLE(out.subspan(kCoord, kCoord));
  } else {
    p.x.ToBytesLE(out.subspan(0, kCoord));
    p.y.ToBytesLE(out.subspan(kCoord, kCoord));
  }
}

template <typename C>
void BatchToAffine(std::span<const XyzzPoint<C>> in, std::span<AffinePoint<C>> out) {
  using Field = typename C::Field;
  // prefix[i] = product of ZZ*ZZZ over the finite points before i; one inversion of the total,
  // then walk back peeling one factor per point.
  std::vector<Field> prefix(in.size());
  Field acc = Field::One();
  for (size_t i = 0; i < in.size(); ++i) {
    prefix[i] = acc;
    if (!in[i].IsInfinity()) acc *= in[i].zz() * in[i].zzz();
  }
  Field inv = acc.Inverse();
  for (size_t i = in.size(); i-- > 0;) {
    if (in[i].IsInfinity()) {
      out[i] = AffinePoint<C>::Infinity();
      continue;
    }
    Field d = in[i].zz() * in[i].zzz();
    Field inv_d = inv * prefix[i];  // 1 / (ZZ_i * ZZZ_i)
    inv *= d;
    out[i] =
        AffinePoint<C>::FromXY(in[i].x() * (inv_d * in[i].zzz()), in[i].y() * (inv_d * in[i].zz()));
  }
}

}  // namespace provd::curve
