// 64-bit lane helpers of the AVX-512F kernels over Goldilocks (stark/ Poseidon and LDE). Only
// for optimizing x86-64 GCC-compatible builds, where those kernels exist; each function carries
// its own AVX-512F target, so it may be included before a `#pragma GCC target` region too.
#pragma once

#if defined(__x86_64__) && defined(__OPTIMIZE__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>

#include <cstdint>

#define PROVD_AVX512_WORDS_INLINE __attribute__((target("avx512f"), always_inline)) inline

namespace provd::field::avx512 {

// Shifts through GCC's vector extensions: GCC 12's _mm512_srli_epi64 and _mm512_slli_epi64 pass
// an uninitialized placeholder that trips -Wmaybe-uninitialized.
using U64x8 = uint64_t __attribute__((vector_size(64)));
PROVD_AVX512_WORDS_INLINE __m512i High32(__m512i x) {
  return reinterpret_cast<__m512i>(reinterpret_cast<U64x8>(x) >> 32);
}
PROVD_AVX512_WORDS_INLINE __m512i Low32ToHigh(__m512i x) {
  return reinterpret_cast<__m512i>(reinterpret_cast<U64x8>(x) << 32);
}
// vpmuludq: the products of the lanes' low 32-bit halves, through the zero-masked form (the
// same instruction), because GCC 12's _mm512_mul_epu32 trips -Wuninitialized the same way.
PROVD_AVX512_WORDS_INLINE __m512i MulLow32(__m512i a, __m512i b) {
  return _mm512_maskz_mul_epu32(static_cast<__mmask8>(0xff), a, b);
}

}  // namespace provd::field::avx512

#undef PROVD_AVX512_WORDS_INLINE
#endif
