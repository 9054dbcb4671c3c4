// Radix-2 NTTs over any 2-adic domain of a field F (BN254 Fr, BLS12-381 Fr, Goldilocks), on the
// process pool: forward and inverse, coset forms, and the coset low-degree extension.
//
// Conventions (ffjavascript's, which snarkjs's proving keys assume): natural order in and out;
// Forward computes out[i] = sum_j in[j] * w^(i j) with w = RootOfUnity<F>(log n); Inverse is
// its exact inverse (scaled by 1/n).
//
// The transform is decimation in frequency: log n butterfly stages take natural order to
// bit-reversed order, then one bit-reversal pass restores natural order (the permutation is
// done once per transform, not per stage). Stages whose butterflies stay inside a block of
// kLocalBlock elements run block by block, so the block stays in cache across those stages.
//
// Chunking by stage: RunStages applies any sub-range of the stages, so a round can stop after
// any stage and resume on another device; applying [0, a), [a, b), ... [z, log n) in turn and
// then Finish gives exactly Forward / Inverse. Columns (independent
// transforms) are the other chunk unit; callers run them one by one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "prover_core/ntt/twiddles.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::ntt {

// 2^12 elements: 128 KiB for 32-byte fields, within L2 on current cores.
inline constexpr size_t kLocalBlock = size_t{1} << 12;

enum class Direction { kForward, kInverse };

// log2 of `n` if it is a power of two no larger than 2^F::kTwoAdicity; INVALID_ARGUMENT
// otherwise.
template <typename F>
absl::StatusOr<size_t> DomainLog(size_t n) {
  if (n == 0 || (n & (n - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTT size ", n, " over ", F::kName, " is not a power of two"));
  }
  size_t log_n = static_cast<size_t>(__builtin_ctzll(n));
  if (log_n > F::kTwoAdicity) {
    return absl::InvalidArgumentError(absl::StrCat("NTT of size 2^", log_n, " over ", F::kName,
                                                   ": the field's 2-adicity is ", F::kTwoAdicity));
  }
  return log_n;
}

// The DIF butterfly on values: (lo, hi) becomes (lo + hi, (lo - hi) * w). Every NTT of provd,
// CPU or GPU, goes through this function, which is why their results agree bit for bit.
template <typename F>
constexpr void DifButterflyValues(F& lo, F& hi, const F& w) {
  const F d = lo - hi;
  lo = lo + hi;
  hi = d * w;
}

// Butterfly b (< n/2) of the DIF stage with half-size h over x: the pair (lo, lo + h) becomes
// (lo + hi, (lo - hi) * w_{2h}^j). `table` is a Twiddles stage table (its entry h + j is
// w_{2h}^j). constexpr so that the CUDA NTT (kernels/) runs this very code on the device.
template <typename F>
constexpr void DifButterfly(F* x, const F* table, size_t h, size_t b) {
  const size_t j = b & (h - 1);
  F* lo = x + (b - j) * 2 + j;  // group (b / h) starts at 2h * (b / h)
  DifButterflyValues(*lo, lo[h], table[h + j]);
}

// Applies DIF stages [first, end) (stage s has butterflies of half-size n >> (s + 1)).
// INVALID_ARGUMENT unless data has 2^tw.log_n elements and first <= end <= log n.
template <typename F>
absl::Status RunStages(std::span<F> data, const Twiddles<F>& tw, Direction direction, size_t first,
                       size_t end, ThreadPool& pool) {
  const size_t n = data.size();
  if (tw.log_n >= 64 || n != (size_t{1} << tw.log_n) || first > end || end > tw.log_n) {
    return absl::InvalidArgumentError(absl::StrCat("NTT stages [", first, ", ", end, ") of ", n,
                                                   " elements with twiddles for 2^", tw.log_n));
  }
  const std::vector<F>& table = direction == Direction::kForward ? tw.forward : tw.inverse;
  auto butterflies = [&](F* x, size_t h, size_t begin, size_t finish) {
    for (size_t b = begin; b < finish; ++b) DifButterfly(x, table.data(), h, b);
  };
  size_t s = first;
  // Global stages: butterflies span more than a block; parallel over butterflies.
  for (; s < end && (n >> (s + 1)) * 2 > kLocalBlock; ++s) {
    const size_t h = n >> (s + 1);
    pool.ParallelForRange(n / 2, 2048, [&](size_t begin, size_t finish) {
      butterflies(data.data(), h, begin, finish);
    });
  }
  if (s >= end) return absl::OkStatus();
  // Local stages: every remaining butterfly lies inside an aligned block; parallel over blocks.
  const size_t block = std::min(n, kLocalBlock);
  pool.ParallelFor(n / block, [&](size_t blk) {
    F* x = data.data() + blk * block;
    for (size_t t = s; t < end; ++t) butterflies(x, n >> (t + 1), 0, block / 2);
  });
  return absl::OkStatus();
}

// The low `bits` bits of i in reverse order (bits <= 64; higher bits of i are ignored).
// constexpr, and free of builtins, so that the CUDA NTT's finish step runs it on the device.
constexpr uint64_t ReverseBits(uint64_t i, uint32_t bits) {
  if (bits == 0) return 0;
  uint64_t r = i;
  r = ((r >> 1) & 0x5555555555555555ull) | ((r & 0x5555555555555555ull) << 1);
  r = ((r >> 2) & 0x3333333333333333ull) | ((r & 0x3333333333333333ull) << 2);
  r = ((r >> 4) & 0x0f0f0f0f0f0f0f0full) | ((r & 0x0f0f0f0f0f0f0f0full) << 4);
  r = ((r >> 8) & 0x00ff00ff00ff00ffull) | ((r & 0x00ff00ff00ff00ffull) << 8);
  r = ((r >> 16) & 0x0000ffff0000ffffull) | ((r & 0x0000ffff0000ffffull) << 16);
  r = (r >> 32) | (r << 32);
  return r >> (64 - bits);
}

template <typename F>
void BitReverse(std::span<F> data, ThreadPool& pool) {
  const size_t n = data.size();
  if (n <= 2) return;
  const auto bits = static_cast<uint32_t>(__builtin_ctzll(n));
  pool.ParallelForRange(n, 4096, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t r = ReverseBits(i, bits);
      if (i < r) std::swap(data[i], data[r]);
    }
  });
}

// Completes a transform after all stages ran: the bit-reversal, and 1/n for the inverse.
template <typename F>
void Finish(std::span<F> data, const Twiddles<F>& tw, Direction direction, ThreadPool& pool) {
  BitReverse(data, pool);
  if (direction == Direction::kInverse) {
    pool.ParallelForRange(data.size(), 4096, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) data[i] *= tw.n_inv;
    });
  }
}

template <typename F>
absl::Status Transform(std::span<F> data, Direction direction, ThreadPool& pool) {
  absl::StatusOr<size_t> log_n = DomainLog<F>(data.size());
  if (!log_n.ok()) return log_n.status();
  absl::StatusOr<std::shared_ptr<const Twiddles<F>>> tw = GetTwiddles<F>(*log_n, pool);
  if (!tw.ok()) return tw.status();
  if (absl::Status s = RunStages(data, **tw, direction, 0, *log_n, pool); !s.ok()) return s;
  Finish(data, **tw, direction, pool);
  return absl::OkStatus();
}

template <typename F>
absl::Status Forward(std::span<F> data, ThreadPool& pool) {
  return Transform(data, Direction::kForward, pool);
}

template <typename F>
absl::Status Inverse(std::span<F> data, ThreadPool& pool) {
  return Transform(data, Direction::kInverse, pool);
}

// data[i] *= factor^i.
template <typename F>
void ScaleByPowers(std::span<F> data, const F& factor, ThreadPool& pool) {
  pool.ParallelForRange(data.size(), 4096, [&](size_t begin, size_t end) {
    F w = factor.Pow(static_cast<uint64_t>(begin));
    for (size_t i = begin; i < end; ++i) {
      data[i] *= w;
      w *= factor;
    }
  });
}

// Coefficients in, evaluations on the coset shift * <w> out: out[i] = P(shift * w^i).
template <typename F>
absl::Status CosetForward(std::span<F> data, const F& shift, ThreadPool& pool) {
  ScaleByPowers(data, shift, pool);
  return Forward(data, pool);
}

// The inverse of CosetForward.
template <typename F>
absl::Status CosetInverse(std::span<F> data, const F& shift, ThreadPool& pool) {
  if (absl::Status s = Inverse(data, pool); !s.ok()) return s;
  ScaleByPowers(data, shift.Inverse(), pool);
  return absl::OkStatus();
}

// Values of a polynomial of degree < n on the domain <w> in, its values on the coset
// shift * <w> out: the inverse transform, data[i] *= shift^i, the forward transform. What the
// Groth16 prover does to each of A, B and C; backends run it as one call (backend.hpp).
template <typename F>
absl::Status ShiftToCoset(std::span<F> data, const Twiddles<F>& tw, const F& shift,
                          ThreadPool& pool) {
  for (Direction direction : {Direction::kInverse, Direction::kForward}) {
    if (absl::Status s = RunStages(data, tw, direction, 0, tw.log_n, pool); !s.ok()) return s;
    Finish(data, tw, direction, pool);
    if (direction == Direction::kInverse) ScaleByPowers(data, shift, pool);
  }
  return absl::OkStatus();
}

// Low-degree extension: `evals` are the values of a polynomial of degree < n on the subgroup of
// size n; `out` (size n * 2^k) receives its values on the coset shift * <w_{n 2^k}>.
template <typename F>
absl::Status CosetLde(std::span<const F> evals, std::span<F> out, const F& shift,
                      ThreadPool& pool) {
  if (out.size() < evals.size() || (evals.size() != 0 && out.size() % evals.size() != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("LDE from ", evals.size(), " to ", out.size(),
                                                   " points: not a whole blow-up factor"));
  }
  if (absl::StatusOr<size_t> log_n = DomainLog<F>(evals.size()); !log_n.ok()) {
    return log_n.status();
  }
  if (absl::StatusOr<size_t> log_big = DomainLog<F>(out.size()); !log_big.ok()) {
    return log_big.status();
  }
  std::span<F> coeffs = out.first(evals.size());
  std::copy(evals.begin(), evals.end(), coeffs.begin());
  if (absl::Status s = Inverse(coeffs, pool); !s.ok()) return s;
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(evals.size()), out.end(), F::Zero());
  return CosetForward(out, shift, pool);
}

// CosetLde of `columns` polynomials stored one after another (each column's n values in
// `evals`, its n * 2^k results in `out`): the CPU's form of the batched device call
// (CudaSession::CosetLde), column by column.
template <typename F>
absl::Status CosetLdeColumns(std::span<const F> evals, std::span<F> out, size_t columns,
                             const F& shift, ThreadPool& pool) {
  if (columns == 0 || evals.size() % columns != 0 || out.size() % columns != 0) {
    return absl::InvalidArgumentError(absl::StrCat("LDE of ", columns, " columns from ",
                                                   evals.size(), " to ", out.size(),
                                                   " values: not whole columns"));
  }
  const size_t n = evals.size() / columns;
  const size_t big = out.size() / columns;
  for (size_t c = 0; c < columns; ++c) {
    if (absl::Status s =
            CosetLde<F>(evals.subspan(c * n, n), out.subspan(c * big, big), shift, pool);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace provd::ntt
