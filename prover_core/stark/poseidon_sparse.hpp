// The partial rounds of a Poseidon permutation in the sparse form of the Poseidon paper's
// appendix B (filecoin's neptune, Plonky2, circomlib's poseidon_opt), derived from the MDS
// matrix and the round constants of any prime field and width, so that no table of derived
// numbers has to be trusted (the tests compare each permutation with its plain rounds).
//
// The R_P partial rounds become
//   x += first_constants; x[1..] = init x[1..];
//   per round k: x0 = sbox(x0) + post_sbox[k]; then x = A_k x, sparse:
//     out0 = mds[0][0] x0 + sum_j w_hat[k][j] x[j + 1],  out[i + 1] = x[i + 1] + v[k][i] x0.
// The constants are moved backwards through the MDS matrix (each round's constants become t - 1
// added one round earlier before its S-box and 1 after it); the matrices come from factoring
// each MDS product as A_k diag(1, N_k) and moving diag(1, N_k), which commutes with the partial
// S-box, into the previous round.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <span>
#include <utility>
#include <vector>

namespace provd::stark {

template <typename F>
using PoseidonMatrix = std::vector<std::vector<F>>;

template <typename F>
struct SparsePartialRoundsOf {
  std::vector<F> first_constants;  // width
  PoseidonMatrix<F> init;          // (width - 1) x (width - 1)
  std::vector<F> post_sbox;        // one per partial round; the last is 0
  PoseidonMatrix<F> w_hat;         // partial rounds x (width - 1)
  PoseidonMatrix<F> v;             // partial rounds x (width - 1)
};

namespace sparse_internal {

template <typename F>
PoseidonMatrix<F> Product(const PoseidonMatrix<F>& a, const PoseidonMatrix<F>& b) {
  const size_t n = a.size();
  PoseidonMatrix<F> c(n, std::vector<F>(n, F::Zero()));
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n; ++k) {
      for (size_t j = 0; j < n; ++j) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}

template <typename F>
std::vector<F> Apply(const PoseidonMatrix<F>& a, const std::vector<F>& x) {
  std::vector<F> y(a.size(), F::Zero());
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < x.size(); ++j) y[i] += a[i][j] * x[j];
  }
  return y;
}

// Gauss-Jordan. Every matrix inverted here is a product of submatrices of an MDS matrix, all of
// whose square submatrices are invertible; a singular one means corrupted constants.
template <typename F>
PoseidonMatrix<F> Inverse(PoseidonMatrix<F> a) {
  const size_t n = a.size();
  PoseidonMatrix<F> inv(n, std::vector<F>(n, F::Zero()));
  for (size_t i = 0; i < n; ++i) inv[i][i] = F::One();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    while (pivot < n && a[pivot][col].IsZero()) ++pivot;
    if (pivot == n) std::abort();
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const F scale = a[col][col].Inverse();
    for (size_t j = 0; j < n; ++j) {
      a[col][j] *= scale;
      inv[col][j] *= scale;
    }
    for (size_t i = 0; i < n; ++i) {
      if (i == col || a[i][col].IsZero()) continue;
      const F f = a[i][col];
      for (size_t j = 0; j < n; ++j) {
        a[i][j] -= f * a[col][j];
        inv[i][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

}  // namespace sparse_internal

// `round_constants`: width constants per round, row by row, for every round; the partial rounds
// are rounds [first_partial, first_partial + partial_rounds).
template <typename F>
SparsePartialRoundsOf<F> DeriveSparsePartialRounds(const PoseidonMatrix<F>& mds,
                                                   std::span<const F> round_constants,
                                                   size_t first_partial, size_t partial_rounds) {
  using namespace sparse_internal;
  const size_t w = mds.size();
  const size_t rest = w - 1;
  auto constants = [&](size_t round) {
    return std::vector<F>(round_constants.begin() + static_cast<std::ptrdiff_t>(round * w),
                          round_constants.begin() + static_cast<std::ptrdiff_t>((round + 1) * w));
  };
  SparsePartialRoundsOf<F> out;
  out.post_sbox.assign(partial_rounds, F::Zero());
  out.w_hat.assign(partial_rounds, std::vector<F>(rest, F::Zero()));
  out.v.assign(partial_rounds, std::vector<F>(rest, F::Zero()));

  // Adding c after the MDS product M equals adding M^-1 c before it; past the partial S-box,
  // element 0 of M^-1 c stays after the S-box and the rest joins the round's own constants.
  const PoseidonMatrix<F> mds_inverse = Inverse(mds);
  std::vector<F> acc = constants(first_partial + partial_rounds - 1);
  for (size_t k = partial_rounds - 1; k > 0; --k) {
    const std::vector<F> moved = Apply(mds_inverse, acc);
    out.post_sbox[k - 1] = moved[0];
    acc = constants(first_partial + k - 1);
    for (size_t i = 1; i < w; ++i) acc[i] += moved[i];
  }
  out.first_constants = acc;

  // Round k's matrix N_k = [[m00, row], [col_k, hat_k]] (N_last = M) is A_k diag(1, hat_k) with
  // A_k = [[m00, row hat_k^-1], [col_k, I]]; diag(1, hat_k) moves into round k - 1, whose matrix
  // becomes diag(1, hat_k) M: the same first row, col_(k-1) = hat_k col, hat_(k-1) = hat_k hat.
  PoseidonMatrix<F> hat(rest, std::vector<F>(rest));
  std::vector<F> col(rest);
  std::vector<F> row(rest);
  for (size_t i = 0; i < rest; ++i) {
    col[i] = mds[i + 1][0];
    row[i] = mds[0][i + 1];
    for (size_t j = 0; j < rest; ++j) hat[i][j] = mds[i + 1][j + 1];
  }
  PoseidonMatrix<F> hat_k = hat;
  std::vector<F> col_k = col;
  for (size_t k = partial_rounds; k-- > 0;) {
    const PoseidonMatrix<F> hat_k_inverse = Inverse(hat_k);
    for (size_t j = 0; j < rest; ++j) {
      for (size_t i = 0; i < rest; ++i) out.w_hat[k][j] += row[i] * hat_k_inverse[i][j];
    }
    out.v[k] = col_k;
    if (k == 0) out.init = hat_k;
    col_k = Apply(hat_k, col);
    hat_k = Product(hat_k, hat);
  }
  return out;
}

}  // namespace provd::stark
