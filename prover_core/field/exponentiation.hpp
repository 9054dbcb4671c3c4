// Exponentiation and square roots written once for every field type (Fp<P>, Goldilocks, Fp2):
// each field supplies One(), Square(), operator*, IsOne(), IsZero().
#pragma once

#include <cstddef>
#include <optional>

#include "prover_core/field/bigint.hpp"

namespace provd::field {

// base^e by square-and-multiply from the top bit (not constant-time: branches on e's bits).
template <typename F, size_t M>
constexpr F PowBig(const F& base, const BigInt<M>& e) {
  F r = F::One();
  for (size_t i = e.BitLength(); i-- > 0;) {
    r = r.Square();
    if (e.Bit(i)) r *= base;
  }
  return r;
}

// Tonelli-Shanks for a square `a` != 0 in a field with p - 1 = t * 2^s: `c` is a primitive
// 2^s-th root of unity (nqr^t) and `a_half_t` is a^((t-1)/2).
template <typename F>
constexpr F TonelliShanks(const F& a, F c, const F& a_half_t, size_t s) {
  F x = a_half_t;
  F b = x.Square() * a;  // a^t
  x *= a;                // a^((t+1)/2)
  size_t m = s;
  while (!b.IsOne()) {
    size_t i = 0;
    for (F b2 = b; !b2.IsOne(); b2 = b2.Square()) ++i;
    F g = c;
    for (size_t k = 0; k + i + 1 < m; ++k) g = g.Square();
    x *= g;
    c = g.Square();
    b *= c;
    m = i;
  }
  return x;
}

}  // namespace provd::field
