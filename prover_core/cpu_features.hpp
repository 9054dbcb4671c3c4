// The x86-64 vector features that the CPU kernels select at run time (one binary serves every
// x86-64 CPU), and the environment switches that turn a kernel's lanes off so that one machine
// can compare both paths. A feature counts only when the OS also saves its registers.
#pragma once

#include <cstdlib>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <cpuid.h>

#include <cstdint>
#endif

namespace provd {

// True when the environment variable `name` is "1...".
inline bool SwitchedOff(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] == '1';
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)

// AVX-512 Foundation, and an OS that saves the 512-bit state (XCR0: SSE, AVX, opmask,
// ZMM_Hi256, Hi16_ZMM).
inline bool CpuHasAvx512F() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & (1u << 27)) == 0) return false;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((ebx & (1u << 16)) == 0) return false;
  uint32_t xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  (void)xcr0_hi;  // the bits asked about are all in the low word
  return (xcr0_lo & 0xe6) == 0xe6;
}

// AVX-512F and IFMA (vpmadd52luq / vpmadd52huq).
inline bool CpuHasAvx512Ifma() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return CpuHasAvx512F() && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 &&
         (ebx & (1u << 21)) != 0;
}

#else

inline bool CpuHasAvx512F() { return false; }
inline bool CpuHasAvx512Ifma() { return false; }

#endif

}  // namespace provd
