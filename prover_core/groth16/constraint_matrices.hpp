// The A and B matrices of a zkey's coefficient section, indexed by constraint so that the
// witness_map round can evaluate A·w and B·w in parallel over constraints, with each row owned
// by one thread. The index keeps 4 bytes per entry; the entries themselves (44 bytes each) stay
// in the mapped file.
//
// Values are stored "doubly Montgomery" (v·R² mod r): read as a Montgomery representation they
// are the element v·R, and a witness value w read the same way is w/R, so their product is the
// field element v·w with no conversion at all (the trick snarkjs and rapidsnark use).
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/field/bigint.hpp"
#include "prover_core/groth16/zkey_file.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::groth16 {

enum class Matrix : uint32_t { kA = 0, kB = 1 };

class ConstraintMatrices {
 public:
  // Indexes the coefficient section of `zkey`. INVALID_ARGUMENT naming the entry for a matrix
  // other than A/B, a constraint outside the domain, a signal outside the witness, or a value
  // not below r.
  static absl::StatusOr<ConstraintMatrices> Index(const ZkeyFile& zkey);

  // out[c] = sum over row c of `matrix` of coefficient * witness[signal], for every constraint
  // c of the domain. `witness` holds normal-form values (nVars of them). INVALID_ARGUMENT if the
  // mapped file changed under the index and names a signal outside the witness.
  template <typename Fr>
  absl::Status Evaluate(Matrix matrix, std::span<const field::BigInt<4>> witness, std::span<Fr> out,
                        ThreadPool& pool) const;

  size_t entry_count() const { return order_[0].size() + order_[1].size(); }

 private:
  static constexpr size_t kEntryBytes = 12 + 32;

  uint32_t Signal(uint32_t entry) const;
  field::BigInt<4> Value(uint32_t entry) const;

  std::span<const uint8_t> entries_;  // the section after its count
  uint32_t domain_size_ = 0;
  // Per matrix: entries of row c are order_[m][row_start_[m][c] .. row_start_[m][c + 1]).
  std::vector<uint32_t> row_start_[2];
  std::vector<uint32_t> order_[2];
};

template <typename Fr>
absl::Status ConstraintMatrices::Evaluate(Matrix matrix, std::span<const field::BigInt<4>> witness,
                                          std::span<Fr> out, ThreadPool& pool) const {
  const auto m = static_cast<size_t>(matrix);
  if (out.size() != domain_size_) {
    return absl::InvalidArgumentError(absl::StrCat("witness map into ", out.size(),
                                                   " evaluations for a domain of ", domain_size_));
  }
  std::atomic<bool> bad_signal{false};
  pool.ParallelForRange(domain_size_, 1024, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      Fr acc = Fr::Zero();
      for (uint32_t k = row_start_[m][c]; k < row_start_[m][c + 1]; ++k) {
        const uint32_t entry = order_[m][k];
        const uint32_t signal = Signal(entry);
        if (signal >= witness.size()) {
          bad_signal.store(true, std::memory_order_relaxed);
          continue;
        }
        acc += Fr::FromMontgomery(Value(entry)) * Fr::FromMontgomery(witness[signal]);
      }
      out[c] = acc;
    }
  });
  if (bad_signal.load()) {
    return absl::InvalidArgumentError(
        "coefficient section names a signal outside the witness (was the zkey file changed "
        "while in use?)");
  }
  return absl::OkStatus();
}

}  // namespace provd::groth16
