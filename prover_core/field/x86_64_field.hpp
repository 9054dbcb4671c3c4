// The hot field operations of the CPU MSM and NTT in x86-64 assembly: Montgomery products for 4
// and 6 limbs with mulx/adox/adcx (BMI2 and ADX), and 4-limb modular addition and subtraction.
//
// Products. The portable C++ in montgomery_field.hpp
// computes the same integer; compilers cannot keep the two carry chains of a row (the low
// halves through OF, the high halves through CF) apart from `unsigned __int128` code, and this
// form measured 25-30 % faster per product on the development VM (bench/field_bench). Selected at
// run time, so one binary serves CPUs without ADX.
//
// The algorithm is CIOS, row by row: t += a * b[i] (one mulx per limb, low halves added through
// the OF chain, high halves through CF), m = t[0] * (-p^-1) mod 2^64, t += m * p (t[0] becomes
// zero), shift one limb. t keeps N + 1 limbs, so no bound on p is needed beyond p < 2^(64N - 1)
// (true for every modulus here): t < 2p after every row. The zeroed t[0] register becomes the
// top limb of the next row, so the shift costs nothing. Last, t - p replaces t unless it
// borrows (cmov, no branch on the data): inside the 4-limb form, by the caller for 6 limbs.
//
// Addition and subtraction (plain x86-64, no extension): GCC compiles the portable forms into a
// data-dependent branch or a vectorized select through memory (a store-forwarding stall), either
// way several times the few cycles of an adc chain and a cmov; measured on G2 MSMs, where
// additions are a third of the field work.
//
// Only compiled where it can run: x86-64 host code, optimizing builds (at -O0 the compiler
// cannot find the 12 registers the 6-limb form asks for).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__CUDA_ARCH__)
#define PROVD_HAVE_X86_64_MONT_MUL 1
#include <cpuid.h>
#else
#define PROVD_HAVE_X86_64_MONT_MUL 0
#endif

// Forces the field product (and the assembly under it) inline on x86-64 hosts. GCC judged the
// assembly too large and kept it and both wrappers as calls: 5 % of a Groth16 proof's samples
// were call overhead, and out of line the modulus could not be a direct memory operand.
#if PROVD_HAVE_X86_64_MONT_MUL
#define PROVD_FIELD_INLINE [[gnu::always_inline]]
#else
#define PROVD_FIELD_INLINE
#endif

namespace provd::field::x86_64 {

#if PROVD_HAVE_X86_64_MONT_MUL

// CPUID leaf 7: EBX bit 8 is BMI2 (mulx), bit 19 is ADX (adcx/adox).
inline bool CpuHasMulxAdx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ebx & (1u << 8)) != 0 && (ebx & (1u << 19)) != 0;
}

// Read on every product: a load and a predictable branch. A static initializer that multiplies
// before this one ran sees false and takes the portable path, which gives the same result.
inline const bool kMulxAdxAvailable = CpuHasMulxAdx();

// The zero added with the last carry of a row: a memory operand, as registers are scarce (the
// 6-limb form holds 12; builds that keep the frame pointer, like the sanitizers', leave 14).
inline constexpr uint64_t kZero = 0;

// clang-format off
// One limb step of a row: lo:hi = rdx * SRC; T_LO += lo through OF, T_HI += hi through CF.
#define PROVD_MULX_STEP(SRC, T_LO, T_HI)  \
  "mulxq " SRC ", %[lo], %[hi]\n\t"       \
  "adoxq %[lo], %[" T_LO "]\n\t"          \
  "adcxq %[hi], %[" T_HI "]\n\t"
// The end of a row: both carries into the top limb (never overflows, see above).
#define PROVD_MULX_ROW_END(T_TOP) "adoxq %[zero], %[" T_TOP "]\n\t"
// rdx = b[I], and both carry flags cleared.
#define PROVD_MULX_LOAD_B(I)            \
  "movq " #I "*8(%[b]), %%rdx\n\t"      \
  "xorl %k[lo], %k[lo]\n\t"
// rdx = m = t[0] * (-p^-1), and both carry flags cleared.
#define PROVD_MULX_LOAD_M(T0)           \
  "movq %[" T0 "], %%rdx\n\t"           \
  "imulq %[inv], %%rdx\n\t"             \
  "xorl %k[lo], %k[lo]\n\t"
// The final subtraction, one limb: SPARE = LIMB - p[I] - borrow (I = 0 starts the chain).
#define PROVD_SUB_P(LIMB, SPARE, INSN, I) \
  "movq " LIMB ", " SPARE "\n\t"          \
  INSN " %[p" #I "], " SPARE "\n\t"
// Keep the difference unless it borrowed (t < p).
#define PROVD_KEEP_IF_NO_BORROW(SPARE, LIMB) "cmovncq " SPARE ", " LIMB "\n\t"

// Row I of the 4-limb product, with the accumulator limbs T0..T4 named by the rotation.
#define PROVD_MONT_ROW4(T0, T1, T2, T3, T4, I)                                       \
  PROVD_MULX_LOAD_B(I)                                                               \
  PROVD_MULX_STEP("0(%[a])", T0, T1)  PROVD_MULX_STEP("8(%[a])", T1, T2)             \
  PROVD_MULX_STEP("16(%[a])", T2, T3) PROVD_MULX_STEP("24(%[a])", T3, T4)            \
  PROVD_MULX_ROW_END(T4)                                                             \
  PROVD_MULX_LOAD_M(T0)                                                              \
  PROVD_MULX_STEP("%[p0]", T0, T1) PROVD_MULX_STEP("%[p1]", T1, T2)                  \
  PROVD_MULX_STEP("%[p2]", T2, T3) PROVD_MULX_STEP("%[p3]", T3, T4)                  \
  PROVD_MULX_ROW_END(T4)

#define PROVD_MONT_ROW6(T0, T1, T2, T3, T4, T5, T6, I)                               \
  PROVD_MULX_LOAD_B(I)                                                               \
  PROVD_MULX_STEP("0(%[a])", T0, T1)  PROVD_MULX_STEP("8(%[a])", T1, T2)             \
  PROVD_MULX_STEP("16(%[a])", T2, T3) PROVD_MULX_STEP("24(%[a])", T3, T4)            \
  PROVD_MULX_STEP("32(%[a])", T4, T5) PROVD_MULX_STEP("40(%[a])", T5, T6)            \
  PROVD_MULX_ROW_END(T6)                                                             \
  PROVD_MULX_LOAD_M(T0)                                                              \
  PROVD_MULX_STEP("%[p0]", T0, T1) PROVD_MULX_STEP("%[p1]", T1, T2)                  \
  PROVD_MULX_STEP("%[p2]", T2, T3) PROVD_MULX_STEP("%[p3]", T3, T4)                  \
  PROVD_MULX_STEP("%[p4]", T4, T5) PROVD_MULX_STEP("%[p5]", T5, T6)                  \
  PROVD_MULX_ROW_END(T6)

// out = a * b / 2^256 mod p, fully reduced (< p). `p` (4 limbs) and `inv` (-p^-1 mod 2^64) are
// best static constants: they are memory operands of the multiplications, addressed directly.
PROVD_FIELD_INLINE inline void MontMul4(uint64_t out[4], const uint64_t a[4], const uint64_t b[4],
                                        const uint64_t* p, const uint64_t& inv) {
  uint64_t r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, lo, hi;
  __asm__(
      PROVD_MONT_ROW4("r0", "r1", "r2", "r3", "r4", 0)
      PROVD_MONT_ROW4("r1", "r2", "r3", "r4", "r0", 1)
      PROVD_MONT_ROW4("r2", "r3", "r4", "r0", "r1", 2)
      PROVD_MONT_ROW4("r3", "r4", "r0", "r1", "r2", 3)
      // t < 2p is in r4, r0, r1, r2; r3 (zero), lo, hi and rdx are free for t - p.
      PROVD_SUB_P("%[r4]", "%[lo]", "subq", 0) PROVD_SUB_P("%[r0]", "%[hi]", "sbbq", 1)
      PROVD_SUB_P("%[r1]", "%%rdx", "sbbq", 2) PROVD_SUB_P("%[r2]", "%[r3]", "sbbq", 3)
      PROVD_KEEP_IF_NO_BORROW("%[lo]", "%[r4]") PROVD_KEEP_IF_NO_BORROW("%[hi]", "%[r0]")
      PROVD_KEEP_IF_NO_BORROW("%%rdx", "%[r1]") PROVD_KEEP_IF_NO_BORROW("%[r3]", "%[r2]")
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [r4] "+&r"(r4),
        [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a), [b] "r"(b), [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]),
        [inv] "m"(inv), [zero] "m"(kZero), "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[4]>(b))
      : "rdx", "cc");
  out[0] = r4;
  out[1] = r0;
  out[2] = r1;
  out[3] = r2;
}

// out = a * b / 2^384 mod p as a value < 2p: the caller subtracts p once. (Six limbs leave no
// spare registers for the subtraction, the compiler needs the rest for the operands.)
PROVD_FIELD_INLINE inline void MontMul6(uint64_t out[6], const uint64_t a[6], const uint64_t b[6],
                                        const uint64_t* p, const uint64_t& inv) {
  uint64_t r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0, lo, hi;
  __asm__(
      PROVD_MONT_ROW6("r0", "r1", "r2", "r3", "r4", "r5", "r6", 0)
      PROVD_MONT_ROW6("r1", "r2", "r3", "r4", "r5", "r6", "r0", 1)
      PROVD_MONT_ROW6("r2", "r3", "r4", "r5", "r6", "r0", "r1", 2)
      PROVD_MONT_ROW6("r3", "r4", "r5", "r6", "r0", "r1", "r2", 3)
      PROVD_MONT_ROW6("r4", "r5", "r6", "r0", "r1", "r2", "r3", 4)
      PROVD_MONT_ROW6("r5", "r6", "r0", "r1", "r2", "r3", "r4", 5)
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [r4] "+&r"(r4),
        [r5] "+&r"(r5), [r6] "+&r"(r6), [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a), [b] "r"(b), [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]),
        [p4] "m"(p[4]), [p5] "m"(p[5]), [inv] "m"(inv), [zero] "m"(kZero),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
      : "rdx", "cc");
  // After six rotations the result's limbs are r6, r0, ..., r4 (r5 is the zeroed top).
  out[0] = r6;
  out[1] = r0;
  out[2] = r1;
  out[3] = r2;
  out[4] = r3;
  out[5] = r4;
}

// a = a + b mod p for a, b < p < 2^255 (the sum cannot carry out of 4 limbs).
[[gnu::always_inline]] inline void AddMod4(uint64_t a[4], const uint64_t b[4], const uint64_t* p) {
  uint64_t r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3], s0, s1, s2, s3;
  __asm__(
      "addq %[b0], %[r0]\n\t"
      "adcq %[b1], %[r1]\n\t"
      "adcq %[b2], %[r2]\n\t"
      "adcq %[b3], %[r3]\n\t"
      PROVD_SUB_P("%[r0]", "%[s0]", "subq", 0) PROVD_SUB_P("%[r1]", "%[s1]", "sbbq", 1)
      PROVD_SUB_P("%[r2]", "%[s2]", "sbbq", 2) PROVD_SUB_P("%[r3]", "%[s3]", "sbbq", 3)
      PROVD_KEEP_IF_NO_BORROW("%[s0]", "%[r0]") PROVD_KEEP_IF_NO_BORROW("%[s1]", "%[r1]")
      PROVD_KEEP_IF_NO_BORROW("%[s2]", "%[r2]") PROVD_KEEP_IF_NO_BORROW("%[s3]", "%[r3]")
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [b0] "m"(b[0]), [b1] "m"(b[1]), [b2] "m"(b[2]), [b3] "m"(b[3]), [p0] "m"(p[0]),
        [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  a[0] = r0;
  a[1] = r1;
  a[2] = r2;
  a[3] = r3;
}

// a = a - b mod p for a, b < p: a - b, plus p when that borrowed.
[[gnu::always_inline]] inline void SubMod4(uint64_t a[4], const uint64_t b[4], const uint64_t* p) {
  uint64_t r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3], s0, s1, s2, s3, borrowed;
  __asm__(
      "subq %[b0], %[r0]\n\t"
      "sbbq %[b1], %[r1]\n\t"
      "sbbq %[b2], %[r2]\n\t"
      "sbbq %[b3], %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"  // all ones when a < b
      "movq %[r0], %[s0]\n\t"
      "addq %[p0], %[s0]\n\t"
      "movq %[r1], %[s1]\n\t"
      "adcq %[p1], %[s1]\n\t"
      "movq %[r2], %[s2]\n\t"
      "adcq %[p2], %[s2]\n\t"
      "movq %[r3], %[s3]\n\t"
      "adcq %[p3], %[s3]\n\t"
      "testq %[m], %[m]\n\t"
      "cmovnzq %[s0], %[r0]\n\t"
      "cmovnzq %[s1], %[r1]\n\t"
      "cmovnzq %[s2], %[r2]\n\t"
      "cmovnzq %[s3], %[r3]\n\t"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [m] "=&r"(borrowed)
      : [b0] "m"(b[0]), [b1] "m"(b[1]), [b2] "m"(b[2]), [b3] "m"(b[3]), [p0] "m"(p[0]),
        [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  a[0] = r0;
  a[1] = r1;
  a[2] = r2;
  a[3] = r3;
}
// clang-format on

#undef PROVD_MONT_ROW6
#undef PROVD_MONT_ROW4
#undef PROVD_KEEP_IF_NO_BORROW
#undef PROVD_SUB_P
#undef PROVD_MULX_LOAD_M
#undef PROVD_MULX_LOAD_B
#undef PROVD_MULX_ROW_END
#undef PROVD_MULX_STEP

#endif  // PROVD_HAVE_X86_64_MONT_MUL

}  // namespace provd::field::x86_64
