// Fixed-width unsigned integers of N 64-bit limbs (little-endian limb order), the carrier of
// field elements and scalars. Everything is constexpr so that moduli and derived constants are
// computed by the compiler from their hex spelling, never pasted in by hand.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

// Host x86-64 code gets add/sub with carry from the compiler's intrinsics (plain x86-64, no
// extension needed); device code and other CPUs use 128-bit arithmetic.
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define PROVD_HAVE_X86_64_CARRY_INTRINSICS 1
#include <immintrin.h>
#else
#define PROVD_HAVE_X86_64_CARRY_INTRINSICS 0
#endif

namespace provd::field {

// __extension__: 128-bit integers are a GCC/Clang extension that -Wpedantic would flag.
__extension__ typedef unsigned __int128 u128;

// a + b + carry -> sum; carry out in `carry` (0 or 1).
constexpr uint64_t AddWithCarry(uint64_t a, uint64_t b, uint64_t& carry) {
#if PROVD_HAVE_X86_64_CARRY_INTRINSICS
  // GCC turns a chain of these into add/adc; from `unsigned __int128` it spills every limb's
  // carry to the stack (measured: field subtraction several times slower).
  if (!std::is_constant_evaluated()) {
    unsigned long long sum;
    carry = _addcarry_u64(static_cast<unsigned char>(carry), a, b, &sum);
    return sum;
  }
#endif
  u128 sum = static_cast<u128>(a) + b + carry;
  carry = static_cast<uint64_t>(sum >> 64);
  return static_cast<uint64_t>(sum);
}

// a - b - borrow -> difference; borrow out in `borrow` (0 or 1).
constexpr uint64_t SubWithBorrow(uint64_t a, uint64_t b, uint64_t& borrow) {
#if PROVD_HAVE_X86_64_CARRY_INTRINSICS
  if (!std::is_constant_evaluated()) {
    unsigned long long diff;
    borrow = _subborrow_u64(static_cast<unsigned char>(borrow), a, b, &diff);
    return diff;
  }
#endif
  u128 diff = static_cast<u128>(a) - b - borrow;
  borrow = static_cast<uint64_t>(diff >> 64) & 1;
  return static_cast<uint64_t>(diff);
}

// a * b + c + d -> low word; high word in `hi`. Never overflows 128 bits.
constexpr uint64_t MulAddAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t& hi) {
  u128 t = static_cast<u128>(a) * b + c + d;
  hi = static_cast<uint64_t>(t >> 64);
  return static_cast<uint64_t>(t);
}

template <size_t N>
struct BigInt {
  static constexpr size_t kLimbs = N;
  static constexpr size_t kBits = 64 * N;
  static constexpr size_t kBytes = 8 * N;

  std::array<uint64_t, N> limbs{};

  static constexpr BigInt FromUint64(uint64_t v) {
    BigInt r;
    r.limbs[0] = v;
    return r;
  }

  // Parses "0x..." (or bare) big-endian hex; digits beyond N limbs are a compile-time error
  // when used in a constant expression.
  static constexpr BigInt FromHex(const char* hex) {
    BigInt r;
    size_t len = 0;
    while (hex[len] != '\0') ++len;
    size_t start = (len >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) ? 2 : 0;
    size_t bit = 0;
    for (size_t i = len; i > start; --i) {
      char c = hex[i - 1];
      uint64_t digit = c >= '0' && c <= '9'   ? static_cast<uint64_t>(c - '0')
                       : c >= 'a' && c <= 'f' ? static_cast<uint64_t>(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? static_cast<uint64_t>(c - 'A' + 10)
                                              : throw "bad hex digit";
      if (bit / 64 >= N) {
        if (digit != 0) throw "hex constant too wide";
      } else {
        r.limbs[bit / 64] |= digit << (bit % 64);
      }
      bit += 4;
    }
    return r;
  }

  // Little-endian bytes; `bytes` must hold at most kBytes (missing high bytes are zero).
  static constexpr BigInt FromBytesLE(std::span<const uint8_t> bytes) {
    BigInt r;
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
    // Little-endian limbs are the bytes themselves: one copy instead of a shift per byte (the
    // prover decodes millions of key points per proof; bench/msm_bench.cpp, BM_DecodePoints).
    if (!std::is_constant_evaluated()) {
      // An empty span may carry a null pointer, which memcpy must not be given even for 0 bytes.
      if (!bytes.empty()) {
        __builtin_memcpy(r.limbs.data(), bytes.data(),
                         bytes.size() < kBytes ? bytes.size() : kBytes);
      }
      return r;
    }
#endif
    for (size_t i = 0; i < bytes.size() && i < kBytes; ++i) {
      r.limbs[i / 8] |= static_cast<uint64_t>(bytes[i]) << (8 * (i % 8));
    }
    return r;
  }

  // Writes the low out.size() bytes, little-endian.
  constexpr void ToBytesLE(std::span<uint8_t> out) const {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = i < kBytes ? static_cast<uint8_t>(limbs[i / 8] >> (8 * (i % 8))) : 0;
    }
  }

  constexpr bool IsZero() const {
    uint64_t acc = 0;
    for (uint64_t l : limbs) acc |= l;
    return acc == 0;
  }
  constexpr bool IsOdd() const { return (limbs[0] & 1) != 0; }
  constexpr bool Bit(size_t i) const { return i < kBits && ((limbs[i / 64] >> (i % 64)) & 1) != 0; }
  // Bits [offset, offset + width) as an integer; width <= 32.
  constexpr uint32_t Bits(size_t offset, size_t width) const {
    uint32_t r = 0;
    for (size_t k = 0; k < width; ++k) r |= static_cast<uint32_t>(Bit(offset + k)) << k;
    return r;
  }
  constexpr size_t BitLength() const {
    for (size_t i = N; i-- > 0;) {
      if (limbs[i] != 0) return 64 * i + 64 - static_cast<size_t>(__builtin_clzll(limbs[i]));
    }
    return 0;
  }

  // In-place arithmetic modulo 2^kBits; the return value is the carry / borrow out.
  constexpr uint64_t AddInPlace(const BigInt& b) {
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) limbs[i] = AddWithCarry(limbs[i], b.limbs[i], carry);
    return carry;
  }
  constexpr uint64_t SubInPlace(const BigInt& b) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) limbs[i] = SubWithBorrow(limbs[i], b.limbs[i], borrow);
    return borrow;
  }
  constexpr void ShiftRight1() {
    for (size_t i = 0; i < N; ++i) {
      limbs[i] = (limbs[i] >> 1) | (i + 1 < N ? limbs[i + 1] << 63 : 0);
    }
  }
  constexpr uint64_t ShiftLeft1() {
    uint64_t out = limbs[N - 1] >> 63;
    for (size_t i = N; i-- > 0;) limbs[i] = (limbs[i] << 1) | (i > 0 ? limbs[i - 1] >> 63 : 0);
    return out;
  }

  friend constexpr bool operator==(const BigInt&, const BigInt&) = default;
  friend constexpr std::strong_ordering operator<=>(const BigInt& a, const BigInt& b) {
    for (size_t i = N; i-- > 0;) {
      if (a.limbs[i] != b.limbs[i]) return a.limbs[i] <=> b.limbs[i];
    }
    return std::strong_ordering::equal;
  }
};

// The decimal digits of `v` (snarkjs's JSON writes field elements and coordinates this way).
template <size_t N>
std::string ToDecimal(BigInt<N> v) {
  constexpr uint64_t kChunk = 10000000000000000000ull;  // 10^19, the largest power in a limb
  std::string digits;
  while (!v.IsZero()) {
    uint64_t remainder = 0;
    for (size_t i = N; i-- > 0;) {
      const u128 cur = (static_cast<u128>(remainder) << 64) | v.limbs[i];
      v.limbs[i] = static_cast<uint64_t>(cur / kChunk);
      remainder = static_cast<uint64_t>(cur % kChunk);
    }
    for (int k = 0; k < 19; ++k) {
      digits.push_back(static_cast<char>('0' + remainder % 10));
      remainder /= 10;
    }
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  if (digits.empty()) return std::string(1, '0');
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace provd::field
