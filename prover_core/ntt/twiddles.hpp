// Roots of unity and per-domain twiddle tables, cached for the life of the process.
//
// The roots are w_k = w_s^(2^(s-k)) for the field's TwoAdicRoot w_s: for the pairing fields the
// one snarkjs/ffjavascript use (nqr^t for p - 1 = t * 2^s, nqr the smallest quadratic
// non-residue), over which Groth16 proving keys are built; for Goldilocks the STARK tools' one.
//
// The cache is filled outside its lock (concurrent requests for one domain wait on a shared
// future) and table filling uses the process pool, whose callers help with their own loops, so
// a pool worker may ask for twiddles without deadlocking the pool.
#pragma once

#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/thread_pool.hpp"

namespace provd::ntt {

// The primitive 2^log_n-th root of unity of F's domains; log_n <= F::kTwoAdicity.
template <typename F>
F RootOfUnity(size_t log_n) {
  static const F w_max = F::TwoAdicRoot();
  F w = w_max;
  for (size_t k = F::kTwoAdicity; k > log_n; --k) w = w.Square();
  return w;
}

template <typename F>
struct Twiddles {
  size_t log_n = 0;
  F omega;  // primitive n-th root of unity
  F omega_inv;
  F n_inv;  // 1/n, for the inverse transform
  // Stage tables: for every half-size h = 2^k < n, forward[h + j] = omega_{2h}^j (j < h), and
  // inverse[h + j] = omega_{2h}^-j. Each stage reads its table contiguously; n entries in all.
  std::vector<F> forward;
  std::vector<F> inverse;
};

namespace internal {

template <typename F>
void FillStageTables(std::vector<F>& table, const F& root, size_t n, ThreadPool& pool) {
  table.assign(std::max<size_t>(n, 2), F::Zero());
  if (n < 2) return;
  const size_t half = n / 2;
  // The largest table (h = n/2) holds root^j; fill it in parallel from per-range starting powers.
  pool.ParallelForRange(half, 1024, [&](size_t begin, size_t end) {
    F w = root.Pow(static_cast<uint64_t>(begin));
    for (size_t j = begin; j < end; ++j) {
      table[half + j] = w;
      w *= root;
    }
  });
  // omega_{2h}^j = omega_{4h}^{2j}: each smaller table is every other entry of the next one.
  for (size_t h = half / 2; h >= 1; h /= 2) {
    for (size_t j = 0; j < h; ++j) table[h + j] = table[2 * h + 2 * j];
  }
}

template <typename F>
std::shared_ptr<const Twiddles<F>> ComputeTwiddles(size_t log_n, ThreadPool& pool) {
  auto t = std::make_shared<Twiddles<F>>();
  const size_t n = size_t{1} << log_n;
  t->log_n = log_n;
  t->omega = RootOfUnity<F>(log_n);
  t->omega_inv = t->omega.Inverse();
  t->n_inv = F::FromUint64(n).Inverse();
  FillStageTables(t->forward, t->omega, n, pool);
  FillStageTables(t->inverse, t->omega_inv, n, pool);
  return t;
}

}  // namespace internal

// The twiddles of the domain of size 2^log_n, computed once per process.
template <typename F>
absl::StatusOr<std::shared_ptr<const Twiddles<F>>> GetTwiddles(size_t log_n, ThreadPool& pool) {
  if (log_n > F::kTwoAdicity) {
    return absl::InvalidArgumentError(absl::StrCat("NTT of size 2^", log_n, " over ", F::kName,
                                                   ": the field's 2-adicity is ", F::kTwoAdicity));
  }
  using Entry = std::shared_future<std::shared_ptr<const Twiddles<F>>>;
  static std::mutex mutex;
  static std::map<size_t, Entry> cache;
  std::promise<std::shared_ptr<const Twiddles<F>>> promise;
  Entry entry;
  bool compute = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(log_n);
    if (it == cache.end()) {
      entry = promise.get_future().share();
      cache.emplace(log_n, entry);
      compute = true;
    } else {
      entry = it->second;
    }
  }
  if (compute) {
    try {
      promise.set_value(internal::ComputeTwiddles<F>(log_n, pool));
    } catch (const std::exception&) {
      // Out of memory for the tables: forget the entry (a later call may succeed) and let the
      // waiters see the failure instead of a broken promise.
      {
        std::lock_guard<std::mutex> lock(mutex);
        cache.erase(log_n);
      }
      promise.set_exception(std::current_exception());
    }
  }
  try {
    return entry.get();
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(
        absl::StrCat("twiddles for 2^", log_n, " over ", F::kName, ": ", e.what()));
  }
}

}  // namespace provd::ntt
