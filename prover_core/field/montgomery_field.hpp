// Prime fields in Montgomery form over N 64-bit limbs: one implementation, instantiated per
// modulus from a small parameter struct (see bn254.hpp, bls12_381.hpp). Every derived constant
// (R, R^2, -p^-1, the 2-adic decomposition of p-1, exponents) is computed at compile time
// from the modulus.
//
// Multiplication is CIOS with the "no-carry" shortcut of gnark-crypto (valid when the top limb
// of p is below 2^63 - 1, checked by static_assert), which saves the extra carry word. On
// x86-64 CPUs with BMI2 and ADX, 4- and 6-limb products run the assembly form of the same
// algorithm instead (x86_64_field.hpp); device code built with PROVD_CUDA_PTX_MONT_MUL runs
// the 32-bit-word form of mont_mul_words32.hpp; all give the same integer.
//
// Device code (kernels/) runs these functions too (nvcc --expt-relaxed-constexpr), and device
// code may not refer to a host's static constexpr object, only use its value: nvcc silently
// compiles such a reference into a trap. Functions that run on the device therefore copy the
// constants they need into local constexpr values (`constexpr Int p = C::kModulus;`) instead
// of binding references to them. kernels/ptx_check.sh guards this.
//
// Not constant-time: Inverse, Pow, Sqrt and the reductions branch on values. That is accepted
// for a prover (the witness is the prover's own secret and timing is not observable by a
// remote verifier); do not reuse these for secret keys on shared machines.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/field/bigint.hpp"
#include "prover_core/field/exponentiation.hpp"
#include "prover_core/field/mont_mul_words32.hpp"
#include "prover_core/field/ptx_carry_chain.hpp"
#include "prover_core/field/x86_64_field.hpp"

namespace provd::field {

// Compile-time facts derived from a parameter struct P with
//   static constexpr size_t kLimbs;           number of 64-bit limbs
//   static constexpr BigInt<kLimbs> kModulus; the prime p
//   static constexpr uint64_t kNonResidue;    the smallest quadratic non-residue (as snarkjs /
//                                             ffjavascript pick it: it fixes the roots of unity)
//   static constexpr char kName[];            e.g. "bn254_fr"
template <typename P>
struct MontgomeryConstants {
  static constexpr size_t N = P::kLimbs;
  using Int = BigInt<N>;

  static constexpr Int kModulus = P::kModulus;

  static constexpr uint64_t ComputeInv() {
    uint64_t x = 1;  // Newton iteration for p0^-1 mod 2^64: each step doubles the valid bits
    for (int i = 0; i < 7; ++i) x *= 2 - kModulus.limbs[0] * x;
    return ~x + 1;  // -p^-1
  }
  // 2 * v mod p for v < p.
  static constexpr Int DoubleMod(Int v) {
    uint64_t carry = v.ShiftLeft1();
    if (carry != 0 || v >= kModulus) v.SubInPlace(kModulus);
    return v;
  }
  static constexpr Int PowerOfTwoMod(size_t exponent) {
    Int v = Int::FromUint64(1);
    for (size_t i = 0; i < exponent; ++i) v = DoubleMod(v);
    return v;
  }
  static constexpr Int MinusSmall(uint64_t k) {
    Int v = kModulus;
    v.SubInPlace(Int::FromUint64(k));
    return v;
  }
  static constexpr size_t ComputeTwoAdicity() {
    Int v = MinusSmall(1);
    size_t s = 0;
    while (!v.IsOdd()) {
      v.ShiftRight1();
      ++s;
    }
    return s;
  }
  static constexpr Int ShiftedRight(Int v, size_t k) {
    for (size_t i = 0; i < k; ++i) v.ShiftRight1();
    return v;
  }

  static constexpr uint64_t kInv = ComputeInv();
  static constexpr Int kR = PowerOfTwoMod(64 * N);    // Montgomery form of 1
  static constexpr Int kR2 = PowerOfTwoMod(128 * N);  // converts into Montgomery form
  static constexpr Int kPMinus2 = MinusSmall(2);      // Fermat inversion exponent
  static constexpr Int kHalfPMinus1 = ShiftedRight(MinusSmall(1), 1);  // Euler's criterion
  static constexpr size_t kTwoAdicity = ComputeTwoAdicity();
  static constexpr Int kOddPart = ShiftedRight(MinusSmall(1), kTwoAdicity);  // t: p-1 = t*2^s
  static constexpr bool kIsThreeModFour = (kModulus.limbs[0] & 3) == 3;
  static constexpr Int ComputeSqrtExponent() {
    if constexpr (kIsThreeModFour) {
      Int e = kModulus;  // (p + 1) / 4
      e.AddInPlace(Int::FromUint64(1));
      return ShiftedRight(e, 2);
    } else {
      return ShiftedRight(kOddPart, 1);  // (t - 1) / 2; t is odd
    }
  }
  static constexpr Int kSqrtExponent = ComputeSqrtExponent();

  static_assert(kModulus.limbs[N - 1] < 0x7fffffffffffffffull,
                "no-carry Montgomery multiplication needs the top limb of p below 2^63 - 1");
  static_assert(kModulus.IsOdd(), "Montgomery form needs an odd modulus");
};

template <typename P>
class Fp {
  using C = MontgomeryConstants<P>;

 public:
  using Params = P;
  using Constants = C;
  static constexpr size_t kLimbs = P::kLimbs;
  static constexpr size_t kBytes = 8 * kLimbs;
  static constexpr size_t kTwoAdicity = C::kTwoAdicity;
  static constexpr const char* kName = P::kName;
  using Int = BigInt<kLimbs>;

  constexpr Fp() = default;

  static constexpr Fp Zero() { return Fp(); }
  static constexpr Fp One() {
    constexpr Int r = C::kR;
    return FromMontgomery(r);
  }
  static constexpr Fp FromUint64(uint64_t v) { return FromCanonical(Int::FromUint64(v)); }
  // `v` must be < p (callers with untrusted input use FromBytesLE / FromMontBytesLE).
  static constexpr Fp FromCanonical(const Int& v) {
    Fp r;
    constexpr Int r2 = C::kR2;
    MontMul(r.mont_, v, r2);
    return r;
  }
  // The raw Montgomery representation v = a*R mod p; `v` must be < p.
  static constexpr Fp FromMontgomery(const Int& v) {
    Fp r;
    r.mont_ = v;
    return r;
  }
  // Reduces any integer of kLimbs limbs (e.g. a scalar >= p) modulo p.
  static constexpr Fp FromIntReduced(Int v) {
    constexpr Int p = C::kModulus;
    while (v >= p) v.SubInPlace(p);
    return FromCanonical(v);
  }

  // By value, not by reference to the constants: see the note on device code above.
  static constexpr Int Modulus() {
    constexpr Int p = C::kModulus;
    return p;
  }
  static constexpr uint64_t NonResidue() { return P::kNonResidue; }
  static constexpr Int OddPartOfPMinus1() {
    constexpr Int t = C::kOddPart;
    return t;
  }
  // The primitive 2^kTwoAdicity-th root of unity of every NTT domain: ffjavascript's nqr^t,
  // which snarkjs's proving keys are built over.
  static Fp TwoAdicRoot() { return FromUint64(NonResidue()).Pow(OddPartOfPMinus1()); }

  // Untrusted input: exactly kBytes little-endian bytes of a value < p, normal form.
  static absl::StatusOr<Fp> FromBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/false);
  }
  // Untrusted input: exactly kBytes little-endian bytes of a*R mod p (snarkjs's zkey layout).
  static absl::StatusOr<Fp> FromMontBytesLE(std::span<const uint8_t> bytes) {
    return Decode(bytes, /*montgomery=*/true);
  }
  void ToBytesLE(std::span<uint8_t> out) const { ToCanonical().ToBytesLE(out); }
  void ToMontBytesLE(std::span<uint8_t> out) const { mont_.ToBytesLE(out); }

  constexpr Int ToCanonical() const {
    Int r;
    MontMul(r, mont_, Int::FromUint64(1));
    return r;
  }
  constexpr const Int& Montgomery() const { return mont_; }

  constexpr bool IsZero() const { return mont_.IsZero(); }
  constexpr bool IsOne() const {
    constexpr Int r = C::kR;
    return mont_ == r;
  }
  friend constexpr bool operator==(const Fp&, const Fp&) = default;

  friend constexpr Fp operator+(const Fp& a, const Fp& b) {
    Fp r = a;
    r += b;
    return r;
  }
  friend constexpr Fp operator-(const Fp& a, const Fp& b) {
    Fp r = a;
    r -= b;
    return r;
  }
  PROVD_FIELD_INLINE friend constexpr Fp operator*(const Fp& a, const Fp& b) {
    Fp r;
    MontMul(r.mont_, a.mont_, b.mont_);
    return r;
  }
  constexpr Fp operator-() const {
    if (IsZero()) return *this;
    Fp r;
    constexpr Int p = C::kModulus;
    r.mont_ = p;
    r.mont_.SubInPlace(mont_);
    return r;
  }
  constexpr Fp& operator+=(const Fp& b) {
#if PROVD_HAVE_X86_64_MONT_MUL
    if constexpr (kLimbs == 4) {
      if (!std::is_constant_evaluated()) {
        x86_64::AddMod4(mont_.limbs.data(), b.mont_.limbs.data(), C::kModulus.limbs.data());
        return *this;
      }
    }
#endif
    mont_.AddInPlace(b.mont_);  // no carry out: p < 2^(64N - 1)
    ReduceOnce(mont_);
    return *this;
  }
  constexpr Fp& operator-=(const Fp& b) {
#if PROVD_HAVE_X86_64_MONT_MUL
    if constexpr (kLimbs == 4) {
      if (!std::is_constant_evaluated()) {
        x86_64::SubMod4(mont_.limbs.data(), b.mont_.limbs.data(), C::kModulus.limbs.data());
        return *this;
      }
    }
#endif
    // Add p back under a mask rather than a branch: on random data the branch would be
    // mispredicted half the time, and curve formulas are full of subtractions.
    constexpr Int p = C::kModulus;
    const uint64_t mask = 0 - mont_.SubInPlace(b.mont_);
    uint64_t carry = 0;
    for (size_t i = 0; i < kLimbs; ++i) {
      mont_.limbs[i] = AddWithCarry(mont_.limbs[i], p.limbs[i] & mask, carry);
    }
    return *this;
  }
  constexpr Fp& operator*=(const Fp& b) {
    MontMul(mont_, mont_, b.mont_);
    return *this;
  }

  // The product by the portable C++ path, whatever the CPU: tests hold the assembly path of
  // operator* (x86_64_field.hpp) against it.
  static constexpr Fp MulPortable(const Fp& a, const Fp& b) {
    Fp r;
    MontMulPortable(r.mont_, a.mont_, b.mont_);
    return r;
  }

  // The product by the 32-bit-word algorithm (mont_mul_words32.hpp) under the carry-flag
  // arithmetic of `Chain`: the host's model of PTX in tests, PTX itself on the device.
  template <typename Chain>
  static constexpr Fp MulWords32(const Fp& a, const Fp& b) {
    Fp r;
    r.mont_ = MontMulWords32<Chain>(a.mont_, b.mont_);
    return r;
  }

  constexpr Fp Double() const { return *this + *this; }
  constexpr Fp Square() const { return *this * *this; }

  template <size_t M>
  constexpr Fp Pow(const BigInt<M>& e) const {
    return PowBig(*this, e);
  }
  constexpr Fp Pow(uint64_t e) const { return Pow(BigInt<1>::FromUint64(e)); }

  // a^-1 by Fermat; Zero() for zero (callers that can see zero check first).
  constexpr Fp Inverse() const {
    constexpr Int e = C::kPMinus2;
    return Pow(e);
  }

  // Euler's criterion; zero counts as a square.
  constexpr bool IsSquare() const {
    if (IsZero()) return true;
    constexpr Int e = C::kHalfPMinus1;
    return Pow(e).IsOne();
  }

  // A square root (either one), or nullopt for non-squares. p = 3 mod 4: a^((p+1)/4);
  // otherwise Tonelli-Shanks with the non-residue's 2^s-th root of unity.
  constexpr std::optional<Fp> Sqrt() const {
    if (IsZero()) return Zero();
    if (!IsSquare()) return std::nullopt;
    constexpr Int e = C::kSqrtExponent;
    if constexpr (C::kIsThreeModFour) {
      return Pow(e);
    } else {
      constexpr Int t = C::kOddPart;
      return TonelliShanks(*this, FromUint64(P::kNonResidue).Pow(t), Pow(e), C::kTwoAdicity);
    }
  }

 private:
  // v -= p if v >= p, for v < 2p. Selected by a mask, not `below ? v : t`: GCC compiles that
  // select into a branch, mispredicted half the time on random data (see operator-=).
  static constexpr void ReduceOnce(Int& v) {
    constexpr Int p = C::kModulus;
    uint64_t t[kLimbs];
    uint64_t borrow = 0;
    for (size_t i = 0; i < kLimbs; ++i) t[i] = SubWithBorrow(v.limbs[i], p.limbs[i], borrow);
    const uint64_t keep = 0 - borrow;  // all ones when v < p
    for (size_t i = 0; i < kLimbs; ++i) v.limbs[i] = (v.limbs[i] & keep) | (t[i] & ~keep);
  }

  PROVD_FIELD_INLINE static constexpr void MontMul(Int& out, const Int& a, const Int& b) {
#if PROVD_HAVE_X86_64_MONT_MUL
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated() && x86_64::kMulxAdxAvailable) {
        if constexpr (kLimbs == 4) {
          x86_64::MontMul4(out.limbs.data(), a.limbs.data(), b.limbs.data(),
                           C::kModulus.limbs.data(), C::kInv);
        } else {
          x86_64::MontMul6(out.limbs.data(), a.limbs.data(), b.limbs.data(),
                           C::kModulus.limbs.data(), C::kInv);
          ReduceOnce(out);
        }
        return;
      }
    }
#endif
#if PROVD_HAVE_PTX_MONT_MUL
    if (!std::is_constant_evaluated()) {
      out = MontMulWords32<words32::PtxCarryChain>(a, b);
      return;
    }
#endif
    MontMulPortable(out, a, b);
  }

  static constexpr void MontMulPortable(Int& out, const Int& a, const Int& b) {
    constexpr size_t N = kLimbs;
    constexpr Int p = C::kModulus;
    uint64_t t[N] = {};
    for (size_t i = 0; i < N; ++i) {
      uint64_t carry_a = 0;
      uint64_t carry_c = 0;
      t[0] = MulAddAdd(a.limbs[0], b.limbs[i], t[0], 0, carry_a);
      const uint64_t m = t[0] * C::kInv;
      (void)MulAddAdd(m, p.limbs[0], t[0], 0, carry_c);
      for (size_t j = 1; j < N; ++j) {
        t[j] = MulAddAdd(a.limbs[j], b.limbs[i], t[j], carry_a, carry_a);
        t[j - 1] = MulAddAdd(m, p.limbs[j], t[j], carry_c, carry_c);
      }
      t[N - 1] = carry_c + carry_a;
    }
    for (size_t i = 0; i < N; ++i) out.limbs[i] = t[i];
    ReduceOnce(out);
  }

  template <typename Chain>
  static constexpr Int MontMulWords32(const Int& a, const Int& b) {
    constexpr size_t n = 2 * kLimbs;
    constexpr Int p = C::kModulus;
    constexpr uint64_t inv = C::kInv;
    uint32_t a32[n];
    uint32_t b32[n];
    uint32_t p32[n];
    uint32_t t32[n];
    for (size_t i = 0; i < kLimbs; ++i) {
      a32[2 * i] = static_cast<uint32_t>(a.limbs[i]);
      a32[2 * i + 1] = static_cast<uint32_t>(a.limbs[i] >> 32);
      b32[2 * i] = static_cast<uint32_t>(b.limbs[i]);
      b32[2 * i + 1] = static_cast<uint32_t>(b.limbs[i] >> 32);
      p32[2 * i] = static_cast<uint32_t>(p.limbs[i]);
      p32[2 * i + 1] = static_cast<uint32_t>(p.limbs[i] >> 32);
    }
    Chain chain;
    words32::MontMul<n>(chain, t32, a32, b32, p32, static_cast<uint32_t>(inv));
    Int t;
    for (size_t i = 0; i < kLimbs; ++i) {
      t.limbs[i] = t32[2 * i] | (static_cast<uint64_t>(t32[2 * i + 1]) << 32);
    }
    ReduceOnce(t);
    return t;
  }

  static absl::StatusOr<Fp> Decode(std::span<const uint8_t> bytes, bool montgomery) {
    if (bytes.size() != kBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(P::kName, ": expected ", kBytes, " bytes, got ", bytes.size()));
    }
    Int v = Int::FromBytesLE(bytes);
    if (v >= C::kModulus) {
      return absl::InvalidArgumentError(
          absl::StrCat(P::kName, ": non-canonical encoding (value >= modulus)"));
    }
    return montgomery ? FromMontgomery(v) : FromCanonical(v);
  }

  Int mont_{};
};

}  // namespace provd::field
