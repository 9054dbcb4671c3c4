// The carry-flag instructions of PTX (add.cc, madc.hi.cc, ...), one asm statement each, for
// the 32-bit-word Montgomery product of mont_mul_words32.hpp on the device. Same interface as
// words32::HostCarryChain, which the host tests run in their place.
//
// The carry flag (CC.CF) lives between asm statements, not inside one: a chain of n words is
// n statements. That relies on the statements staying in program order (asm volatile) with
// nothing between them that writes the flag. The code between them here is 32-bit products and
// moves, which do not; but after inlining, the compiler's own add.cc/addc pairs (from unsigned
// __int128 arithmetic elsewhere in a kernel) could in principle be scheduled between two of
// ours, and no language rule forbids it. kernels/ptx_check.sh therefore reads the PTX of every
// kernel and fails CI if any carry reader finds the flag written by the other side or across a
// branch (nvcc 13.0: none in about 70 000 chained instructions). ptxas tracks the flag as a
// dependency from there on.
//
// Compiled into the product's field arithmetic only with the CMake option
// PROVD_CUDA_PTX_MONT_MUL (see kernels/CMakeLists.txt); the device parity test and gpu_bench
// use it directly either way.
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(PROVD_CUDA_PTX_MONT_MUL)
#define PROVD_HAVE_PTX_MONT_MUL 1
#else
#define PROVD_HAVE_PTX_MONT_MUL 0
#endif

namespace provd::field::words32 {

#if defined(__CUDACC__)

struct PtxCarryChain {
  static __device__ __forceinline__ uint32_t MulLo(uint32_t a, uint32_t b) { return a * b; }
  static __device__ __forceinline__ uint32_t MulHi(uint32_t a, uint32_t b) {
    return __umulhi(a, b);
  }
  __device__ __forceinline__ uint32_t MadLoCc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t d;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
  }
  __device__ __forceinline__ uint32_t MadcLoCc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t d;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
  }
  __device__ __forceinline__ uint32_t MadcHiCc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t d;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
  }
  __device__ __forceinline__ uint32_t MadcHi(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t d;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
  }
  __device__ __forceinline__ uint32_t AddCc(uint32_t a, uint32_t b) {
    uint32_t d;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
  }
  __device__ __forceinline__ uint32_t AddcCc(uint32_t a, uint32_t b) {
    uint32_t d;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
  }
  __device__ __forceinline__ uint32_t Addc(uint32_t a, uint32_t b) {
    uint32_t d;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
  }
};

#endif  // __CUDACC__

}  // namespace provd::field::words32
