// Derives SparsePartialRounds from the MDS matrix and the round constants, so that no table of
// derived numbers has to be trusted: the unit tests compare the result with the plain rounds.
#include <cstdlib>

#include "prover_core/stark/poseidon_goldilocks_internal.hpp"

namespace provd::stark::poseidon_internal {
namespace {

template <size_t N>
using Vec = std::array<Goldilocks, N>;
template <size_t N>
using Mat = std::array<Vec<N>, N>;

template <size_t N>
Mat<N> Identity() {
  Mat<N> m{};
  for (size_t i = 0; i < N; ++i) m[i][i] = Goldilocks::One();
  return m;
}

template <size_t N>
Mat<N> Product(const Mat<N>& a, const Mat<N>& b) {
  Mat<N> c{};
  for (size_t i = 0; i < N; ++i) {
    for (size_t k = 0; k < N; ++k) {
      for (size_t j = 0; j < N; ++j) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}

template <size_t N>
Vec<N> Apply(const Mat<N>& a, const Vec<N>& x) {
  Vec<N> y{};
  for (size_t i = 0; i < N; ++i) {
    for (size_t j = 0; j < N; ++j) y[i] += a[i][j] * x[j];
  }
  return y;
}

// Gauss-Jordan. Every matrix inverted here is a product of submatrices of an MDS matrix, all of
// whose square submatrices are invertible; a singular one means corrupted constants.
template <size_t N>
Mat<N> Inverse(Mat<N> a) {
  Mat<N> inv = Identity<N>();
  for (size_t col = 0; col < N; ++col) {
    size_t pivot = col;
    while (pivot < N && a[pivot][col].IsZero()) ++pivot;
    if (pivot == N) std::abort();
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const Goldilocks scale = a[col][col].Inverse();
    for (size_t j = 0; j < N; ++j) {
      a[col][j] *= scale;
      inv[col][j] *= scale;
    }
    for (size_t i = 0; i < N; ++i) {
      if (i == col || a[i][col].IsZero()) continue;
      const Goldilocks f = a[i][col];
      for (size_t j = 0; j < N; ++j) {
        a[i][j] -= f * a[col][j];
        inv[i][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

template <size_t N>
std::array<uint64_t, N> Values(const Vec<N>& x) {
  std::array<uint64_t, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = x[i].value();
  return out;
}

Goldilocks RoundConstant(size_t round, size_t i) {
  return Goldilocks::FromUint64(kPoseidonRoundConstants[round * kPoseidonWidth + i]);
}

SparsePartialRounds Derive() {
  constexpr size_t kW = kPoseidonWidth;
  constexpr size_t kPartial = kPoseidonPartialRounds;
  Mat<kW> mds;
  for (size_t r = 0; r < kW; ++r) {
    for (size_t j = 0; j < kW; ++j) mds[r][j] = Goldilocks::FromUint64(kMds[r][j]);
  }
  SparsePartialRounds out{};

  // Adding c after the MDS product M equals adding M^-1 c before it; past the partial S-box,
  // element 0 of M^-1 c stays after the S-box and the rest joins the round's own constants.
  const Mat<kW> mds_inverse = Inverse(mds);
  Vec<kW> acc;
  for (size_t i = 0; i < kW; ++i) acc[i] = RoundConstant(kHalfFullRounds + kPartial - 1, i);
  out.post_sbox[kPartial - 1] = 0;
  for (size_t k = kPartial - 1; k > 0; --k) {
    const Vec<kW> moved = Apply(mds_inverse, acc);
    out.post_sbox[k - 1] = moved[0].value();
    for (size_t i = 0; i < kW; ++i) acc[i] = RoundConstant(kHalfFullRounds + k - 1, i);
    for (size_t i = 1; i < kW; ++i) acc[i] += moved[i];
  }
  out.first_constants = Values(acc);

  // Round k's matrix N_k = [[m00, row], [col_k, hat_k]] (N_21 = M) is A_k diag(1, hat_k) with
  // A_k = [[m00, row hat_k^-1], [col_k, I]]; diag(1, hat_k) moves into round k - 1, whose matrix
  // becomes diag(1, hat_k) M: the same first row, col_(k-1) = hat_k col, hat_(k-1) = hat_k hat.
  Mat<kRest> hat;
  Vec<kRest> col;
  Vec<kRest> row;
  for (size_t i = 0; i < kRest; ++i) {
    col[i] = mds[i + 1][0];
    row[i] = mds[0][i + 1];
    for (size_t j = 0; j < kRest; ++j) hat[i][j] = mds[i + 1][j + 1];
  }
  Mat<kRest> hat_k = hat;
  Vec<kRest> col_k = col;
  for (size_t k = kPartial; k-- > 0;) {
    const Mat<kRest> hat_k_inverse = Inverse(hat_k);
    Vec<kRest> w_hat{};
    for (size_t j = 0; j < kRest; ++j) {
      for (size_t i = 0; i < kRest; ++i) w_hat[j] += row[i] * hat_k_inverse[i][j];
    }
    out.w_hat[k] = Values(w_hat);
    out.v[k] = Values(col_k);
    if (k == 0) {
      for (size_t i = 0; i < kRest; ++i) out.init[i] = Values(hat_k[i]);
    }
    col_k = Apply(hat_k, col);
    hat_k = Product(hat_k, hat);
  }
  return out;
}

}  // namespace

const SparsePartialRounds& GetSparsePartialRounds() {
  static const SparsePartialRounds rounds = Derive();
  return rounds;
}

}  // namespace provd::stark::poseidon_internal
