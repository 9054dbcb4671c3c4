// The Lagrange basis of an NTT domain evaluated at one point x: L_j(x) for the polynomials of
// degree < N that are 1 at w^j and 0 at the other N-th roots of unity. A Groth16 setup needs
// them at tau (the key points are sums of L_j(tau) weighted by the constraint matrices), and
// the closed form L_j(x) = (x^N - 1) / N * w^j / (x - w^j) costs one product each plus a share
// of one batched inversion.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/ntt/twiddles.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::ntt {

// L_{first + step*k}(x) over the domain of size 2^log_n, for k in [0, count). FAILED_PRECONDITION
// when x is itself a root of that domain (the basis is then a unit vector, which a setup must
// never use: it would mean tau is public).
template <typename F>
absl::StatusOr<std::vector<F>> LagrangeBasisAt(size_t log_n, const F& x, size_t first, size_t step,
                                               size_t count, ThreadPool& pool) {
  if (log_n > F::kTwoAdicity) {
    return absl::InvalidArgumentError(absl::StrCat("Lagrange basis of size 2^", log_n, " over ",
                                                   F::kName, ": the field's 2-adicity is ",
                                                   F::kTwoAdicity));
  }
  const uint64_t n = uint64_t{1} << log_n;
  const F omega = RootOfUnity<F>(log_n);
  const F omega_step = omega.Pow(step);
  F vanishing = x;  // x^N - 1
  for (size_t i = 0; i < log_n; ++i) vanishing = vanishing.Square();
  vanishing -= F::One();
  if (vanishing.IsZero()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the evaluation point is a root of unity of the domain 2^", log_n));
  }
  const F scale = vanishing * F::FromUint64(n).Inverse();

  std::vector<F> basis(count);
  pool.ParallelForRange(count, 4096, [&](size_t begin, size_t end) {
    // Montgomery's trick per range: prefix products of (x - w^j), one inversion, walk back.
    std::vector<F> roots(end - begin);
    std::vector<F> prefix(end - begin);
    F root = omega.Pow(first + step * begin);
    F acc = F::One();
    for (size_t k = begin; k < end; ++k) {
      roots[k - begin] = root;
      prefix[k - begin] = acc;
      acc *= x - root;
      root *= omega_step;
    }
    F inv = acc.Inverse();
    for (size_t k = end; k-- > begin;) {
      const F& w = roots[k - begin];
      basis[k] = scale * w * (inv * prefix[k - begin]);  // * 1 / (x - w^j)
      inv *= x - w;
    }
  });
  return basis;
}

}  // namespace provd::ntt
