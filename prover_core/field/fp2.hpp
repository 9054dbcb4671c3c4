// The quadratic extension Fq2 = Fq[u] / (u^2 + 1), over which both BN254's and BLS12-381's G2
// are defined (both use the non-residue -1, which needs p = 3 mod 4; checked below).
// Elements are c0 + c1*u; serialized as c0 then c1, as snarkjs does.
#pragma once

#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "prover_core/field/montgomery_field.hpp"

namespace provd::field {

template <typename Fq>
class Fp2 {
  using QC = typename Fq::Constants;
  static_assert(QC::kIsThreeModFour, "u^2 = -1 is an irreducible extension only for p = 3 mod 4");

 public:
  using Base = Fq;
  static constexpr size_t kBytes = 2 * Fq::kBytes;

  constexpr Fp2() = default;
  constexpr Fp2(const Fq& c0, const Fq& c1) : c0_(c0), c1_(c1) {}

  static constexpr Fp2 Zero() { return Fp2(); }
  static constexpr Fp2 One() { return Fp2(Fq::One(), Fq::Zero()); }
  static constexpr Fp2 FromUint64(uint64_t v) { return Fp2(Fq::FromUint64(v), Fq::Zero()); }

  static absl::StatusOr<Fp2> FromBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/false);
  }
  static absl::StatusOr<Fp2> FromMontBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/true);
  }
  void ToBytesLE(std::span<uint8_t> out) const {
    c0_.ToBytesLE(out.subspan(0, Fq::kBytes));
    c1_.ToBytesLE(out.subspan(Fq::kBytes, Fq::kBytes));
  }
  void ToMontBytesLE(std::span<uint8_t> out) const {
    c0_.ToMontBytesLE(out.subspan(0, Fq::kBytes));
    c1_.ToMontBytesLE(out.subspan(Fq::kBytes, Fq::kBytes));
  }

  constexpr const Fq& c0() const { return c0_; }
  constexpr const Fq& c1() const { return c1_; }
  constexpr bool IsZero() const { return c0_.IsZero() && c1_.IsZero(); }
  constexpr bool IsOne() const { return c0_.IsOne() && c1_.IsZero(); }
  friend constexpr bool operator==(const Fp2&, const Fp2&) = default;

  friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) {
    return Fp2(a.c0_ + b.c0_, a.c1_ + b.c1_);
  }
  friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) {
    return Fp2(a.c0_ - b.c0_, a.c1_ - b.c1_);
  }
  // Karatsuba: 3 base multiplications.
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fq v0 = a.c0_ * b.c0_;
    Fq v1 = a.c1_ * b.c1_;
    Fq cross = (a.c0_ + a.c1_) * (b.c0_ + b.c1_);
    return Fp2(v0 - v1, cross - v0 - v1);
  }
  friend constexpr Fp2 operator*(const Fp2& a, const Fq& k) { return Fp2(a.c0_ * k, a.c1_ * k); }
  constexpr Fp2 operator-() const { return Fp2(-c0_, -c1_); }
  constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  constexpr Fp2 Double() const { return Fp2(c0_.Double(), c1_.Double()); }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 base multiplications.
  constexpr Fp2 Square() const {
    Fq t = c0_ * c1_;
    return Fp2((c0_ + c1_) * (c0_ - c1_), t.Double());
  }
  constexpr Fp2 Conjugate() const { return Fp2(c0_, -c1_); }
  // c0^2 + c1^2, the norm down to Fq.
  constexpr Fq Norm() const { return c0_.Square() + c1_.Square(); }
  // Zero() for zero.
  constexpr Fp2 Inverse() const {
    Fq inv_norm = Norm().Inverse();
    return Fp2(c0_ * inv_norm, -(c1_ * inv_norm));
  }

  template <size_t M>
  constexpr Fp2 Pow(const BigInt<M>& e) const {
    return PowBig(*this, e);
  }
  constexpr Fp2 Pow(uint64_t e) const { return Pow(BigInt<1>::FromUint64(e)); }

  // a is a square in Fq2 iff its norm is a square in Fq.
  constexpr bool IsSquare() const { return Norm().IsSquare(); }

  // A square root, or nullopt. Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root
  // computation over even extension fields" (2012), for q = 3 mod 4.
  constexpr std::optional<Fp2> Sqrt() const {
    if (IsZero()) return Zero();
    constexpr typename Fq::Int kQ14 = QC::kSqrtExponent;  // (q + 1) / 4
    typename Fq::Int exp_q34 = kQ14;
    exp_q34.SubInPlace(Fq::Int::FromUint64(1));  // (q - 3) / 4
    Fp2 a1 = Pow(exp_q34);
    Fp2 alpha = a1.Square() * *this;     // a^((q-1)/2)
    Fp2 a0 = alpha.Conjugate() * alpha;  // alpha^(q+1): Frobenius is conjugation
    const Fp2 minus_one = -One();
    if (a0 == minus_one) return std::nullopt;
    Fp2 x0 = a1 * *this;
    Fp2 root;
    if (alpha == minus_one) {
      root = Fp2(-x0.c1_, x0.c0_);  // u * x0
    } else {
      constexpr typename Fq::Int kHalf = QC::kHalfPMinus1;
      root = (alpha + One()).Pow(kHalf) * x0;
    }
    return root;
  }

 private:
  static absl::StatusOr<Fp2> Decode(std::span<const uint8_t> bytes, bool montgomery) {
    if (bytes.size() != kBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(Fq::Params::kName, "^2: expected ", kBytes, " bytes, got ", bytes.size()));
    }
    auto half = [&](size_t i) {
      auto part = bytes.subspan(i * Fq::kBytes, Fq::kBytes);
      return montgomery ? Fq::FromMontBytesLE(part) : Fq::FromBytesLE(part);
    };
    absl::StatusOr<Fq> c0 = half(0);
    if (!c0.ok()) return c0.status();
    absl::StatusOr<Fq> c1 = half(1);
    if (!c1.ok()) return c1.status();
    return Fp2(*c0, *c1);
  }

  Fq c0_{};
  Fq c1_{};
};

}  // namespace provd::field
