// A Groth16 proving key ready to prove with: the mapped zkey, its verification-key points
// decoded, and the constraint index. The big point sections stay in the file and are decoded
// chunk by chunk (DecodePoints), so proving needs RAM for one chunk of points at a time, not a
// copy of the key. Shared, immutable, safe to use from many proofs at once.
//
// Points are checked on the curve as they are decoded, not for subgroup membership: the key
// is trusted input (whoever made it can break zero-knowledge anyway), the on-curve check keeps
// the arithmetic well-defined, and a subgroup check per point would cost more than the MSM.
// The six verification-key points are few and are checked fully.
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/groth16/constraint_matrices.hpp"
#include "prover_core/groth16/zkey_file.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::groth16 {

template <typename E>
class ProvingKey {
 public:
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using G1Affine = curve::AffinePoint<G1>;
  using G2Affine = curve::AffinePoint<G2>;

  // INVALID_ARGUMENT when the file is for another curve, or its points or coefficients are bad.
  static absl::StatusOr<std::shared_ptr<const ProvingKey>> Load(
      std::shared_ptr<const ZkeyFile> file) {
    if (file->header().curve != E::kId) {
      return absl::InvalidArgumentError(absl::StrCat(file->path(), ": a ",
                                                     SnarkjsCurveName(file->header().curve),
                                                     " key, not ", E::kSnarkjsName));
    }
    std::shared_ptr<ProvingKey> key(new ProvingKey(std::move(file)));
    if (absl::Status s = key->DecodeVerificationPoints(); !s.ok()) return s;
    absl::StatusOr<ConstraintMatrices> matrices = ConstraintMatrices::Index(*key->file_);
    if (!matrices.ok()) return matrices.status();
    key->matrices_ = *std::move(matrices);
    return key;
  }

  const ZkeyFile& file() const { return *file_; }
  const ZkeyHeader& header() const { return file_->header(); }
  const ConstraintMatrices& matrices() const { return matrices_; }

  const G1Affine& alpha1() const { return alpha1_; }
  const G1Affine& beta1() const { return beta1_; }
  const G2Affine& beta2() const { return beta2_; }
  const G1Affine& delta1() const { return delta1_; }
  const G2Affine& delta2() const { return delta2_; }

  // Points in section `id` (a G1 section, or B2 for C = G2), indices [begin, end), into `out`.
  template <typename C>
  absl::Status DecodePoints(ZkeySection id, size_t begin, size_t end,
                            std::vector<curve::AffinePoint<C>>& out, ThreadPool& pool) const {
    const size_t point_bytes = 2 * C::Field::kBytes;
    const std::span<const uint8_t> section = file_->section(id);
    if (end < begin || end * point_bytes > section.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("points [", begin, ", ", end, ") outside section ", id));
    }
    out.resize(end - begin);
    std::atomic<size_t> first_bad{end};
    pool.ParallelForRange(end - begin, 256, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) {
        auto point = curve::DecodeAffine<C>(section.subspan((begin + i) * point_bytes, point_bytes),
                                            curve::CoordinateEncoding::kMontgomery,
                                            /*check_subgroup=*/false);
        if (!point.ok()) {
          size_t seen = first_bad.load();
          while (begin + i < seen && !first_bad.compare_exchange_weak(seen, begin + i)) {
          }
          continue;
        }
        out[i] = *point;
      }
    });
    if (const size_t bad = first_bad.load(); bad != end) {
      auto point = curve::DecodeAffine<C>(section.subspan(bad * point_bytes, point_bytes),
                                          curve::CoordinateEncoding::kMontgomery, false);
      return absl::InvalidArgumentError(file_->container().SectionError(
          id, ZkeySectionName(id), absl::StrCat("point ", bad, ": ", point.status().message())));
    }
    return absl::OkStatus();
  }

 private:
  explicit ProvingKey(std::shared_ptr<const ZkeyFile> file) : file_(std::move(file)) {}

  absl::Status DecodeVerificationPoints() {
    const std::span<const uint8_t> header = file_->section(kZkeyHeader);
    size_t offset = 4 + G1::Field::kBytes + 4 + 32 + 12;
    auto next = [&]<typename C>(curve::AffinePoint<C>& out, const char* name) -> absl::Status {
      const size_t size = 2 * C::Field::kBytes;
      auto point = curve::DecodeAffine<C>(header.subspan(offset, size),
                                          curve::CoordinateEncoding::kMontgomery,
                                          /*check_subgroup=*/true);
      offset += size;
      if (!point.ok()) {
        return absl::InvalidArgumentError(
            file_->container().SectionError(kZkeyHeader, ZkeySectionName(kZkeyHeader),
                                            absl::StrCat(name, ": ", point.status().message())));
      }
      out = *point;
      return absl::OkStatus();
    };
    G2Affine gamma2;
    for (absl::Status s :
         {next(alpha1_, "alpha1"), next(beta1_, "beta1"), next(beta2_, "beta2"),
          next(gamma2, "gamma2"), next(delta1_, "delta1"), next(delta2_, "delta2")}) {
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::shared_ptr<const ZkeyFile> file_;
  ConstraintMatrices matrices_;
  G1Affine alpha1_, beta1_, delta1_;
  G2Affine beta2_, delta2_;
};

}  // namespace provd::groth16
