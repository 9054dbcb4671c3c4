// The Goldilocks field, p = 2^64 - 2^32 + 1, for STARK-style LDE jobs. Elements are kept
// canonical in one 64-bit word (no Montgomery form): 2^64 = 2^32 - 1 (mod p) turns a 128-bit
// product into a handful of adds (the reduction plonky2 and others use). The interface matches
// Fp<P> so that NTT code is written once for both.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/field/bigint.hpp"
#include "prover_core/field/exponentiation.hpp"

namespace provd::field {

class Goldilocks {
 public:
  static constexpr uint64_t kP = 0xffffffff00000001ull;
  static constexpr uint64_t kEpsilon = 0xffffffffull;  // 2^64 mod p
  static constexpr size_t kLimbs = 1;
  static constexpr size_t kBytes = 8;
  static constexpr size_t kTwoAdicity = 32;
  static constexpr char kName[] = "goldilocks";
  using Int = BigInt<1>;

  constexpr Goldilocks() = default;

  static constexpr Goldilocks Zero() { return Goldilocks(); }
  static constexpr Goldilocks One() { return FromUint64(1); }
  static constexpr Goldilocks FromUint64(uint64_t v) {
    Goldilocks r;
    r.v_ = v >= kP ? v - kP : v;
    return r;
  }
  // Any 128-bit integer, reduced: lets sums of products be reduced once (Poseidon's MDS).
  static constexpr Goldilocks FromUint128(u128 v) { return Raw(Reduce128(v)); }
  static constexpr Goldilocks FromCanonical(const Int& v) { return FromUint64(v.limbs[0]); }
  static constexpr Goldilocks FromIntReduced(const Int& v) { return FromUint64(v.limbs[0]); }
  static constexpr Int Modulus() { return Int::FromUint64(kP); }
  // 7 generates the whole multiplicative group; it is also the smallest non-residue.
  static constexpr uint64_t NonResidue() { return 7; }
  static constexpr Int OddPartOfPMinus1() { return Int::FromUint64(kEpsilon); }
  // The primitive 2^32-th root of unity that every NTT domain over Goldilocks is built on. Not
  // ffjavascript's 7^(2^32 - 1) (1753635133440165772): the STARK tools that provd's commitments
  // must match bit for bit (pil-stark, Polygon's goldilocks library, Plonky2) all use this one,
  // and another primitive root would permute every extended column.
  static constexpr Goldilocks TwoAdicRoot() { return FromUint64(7277203076849721926ull); }

  static absl::StatusOr<Goldilocks> FromBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/false);
  }
  // "Montgomery" bytes with R = 2^64, for symmetry with Fp<P>: a*R mod p.
  static absl::StatusOr<Goldilocks> FromMontBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/true);
  }
  void ToBytesLE(std::span<uint8_t> out) const { Int::FromUint64(v_).ToBytesLE(out); }
  void ToMontBytesLE(std::span<uint8_t> out) const {
    Int::FromUint64((*this * FromUint64(kEpsilon)).v_).ToBytesLE(out);
  }

  constexpr Int ToCanonical() const { return Int::FromUint64(v_); }
  constexpr uint64_t value() const { return v_; }
  constexpr bool IsZero() const { return v_ == 0; }
  constexpr bool IsOne() const { return v_ == 1; }
  friend constexpr bool operator==(const Goldilocks&, const Goldilocks&) = default;

  friend constexpr Goldilocks operator+(Goldilocks a, Goldilocks b) {
    uint64_t sum = a.v_ + b.v_;
    // Overflow past 2^64 is worth epsilon; otherwise subtract p once if needed.
    if (sum < a.v_) {
      sum += kEpsilon;  // cannot overflow again: a, b < p
    } else if (sum >= kP) {
      sum -= kP;
    }
    return Raw(sum);
  }
  friend constexpr Goldilocks operator-(Goldilocks a, Goldilocks b) {
    uint64_t diff = a.v_ - b.v_;
    if (a.v_ < b.v_) diff -= kEpsilon;  // borrowed 2^64 = epsilon (mod p)
    return Raw(diff);
  }
  friend constexpr Goldilocks operator*(Goldilocks a, Goldilocks b) {
    return Raw(Reduce128(static_cast<u128>(a.v_) * b.v_));
  }
  constexpr Goldilocks operator-() const { return v_ == 0 ? *this : Raw(kP - v_); }
  constexpr Goldilocks& operator+=(Goldilocks b) { return *this = *this + b; }
  constexpr Goldilocks& operator-=(Goldilocks b) { return *this = *this - b; }
  constexpr Goldilocks& operator*=(Goldilocks b) { return *this = *this * b; }

  constexpr Goldilocks Double() const { return *this + *this; }
  constexpr Goldilocks Square() const { return *this * *this; }

  template <size_t M>
  constexpr Goldilocks Pow(const BigInt<M>& e) const {
    return PowBig(*this, e);
  }
  constexpr Goldilocks Pow(uint64_t e) const { return Pow(BigInt<1>::FromUint64(e)); }
  constexpr Goldilocks Inverse() const { return Pow(kP - 2); }
  constexpr bool IsSquare() const { return IsZero() || Pow((kP - 1) / 2).IsOne(); }

  // Tonelli-Shanks (p - 1 = (2^32 - 1) * 2^32).
  constexpr std::optional<Goldilocks> Sqrt() const {
    if (IsZero()) return Zero();
    if (!IsSquare()) return std::nullopt;
    return TonelliShanks(*this, FromUint64(NonResidue()).Pow(kEpsilon), Pow((kEpsilon - 1) / 2),
                         kTwoAdicity);
  }

 private:
  static constexpr Goldilocks Raw(uint64_t v) {
    Goldilocks r;
    r.v_ = v;
    return r;
  }

  // x = hi * 2^64 + lo, hi = hh * 2^32 + hl: x = lo - hh + hl * (2^32 - 1)  (mod p), using
  // 2^64 = 2^32 - 1 and 2^96 = -1.
  static constexpr uint64_t Reduce128(u128 x) {
    const uint64_t lo = static_cast<uint64_t>(x);
    const uint64_t hi = static_cast<uint64_t>(x >> 64);
    const uint64_t hh = hi >> 32;
    const uint64_t hl = hi & kEpsilon;
    uint64_t t0 = lo - hh;
    if (lo < hh) t0 -= kEpsilon;
    const uint64_t t1 = hl * kEpsilon;
    uint64_t t2 = t0 + t1;
    if (t2 < t1) t2 += kEpsilon;
    return t2 >= kP ? t2 - kP : t2;
  }

  static absl::StatusOr<Goldilocks> Decode(std::span<const uint8_t> bytes, bool montgomery) {
    if (bytes.size() != kBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": expected 8 bytes, got ", bytes.size()));
    }
    uint64_t v = Int::FromBytesLE(bytes).limbs[0];
    if (v >= kP) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": non-canonical encoding (value >= modulus)"));
    }
    // R^-1 = (2^32 - 1)^-1 mod p; computed rather than written down.
    return montgomery ? Raw(v) * FromUint64(kEpsilon).Inverse() : Raw(v);
  }

  uint64_t v_ = 0;
};

}  // namespace provd::field
