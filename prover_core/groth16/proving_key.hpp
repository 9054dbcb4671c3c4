// A Groth16 proving key ready to prove with: the mapped zkey, its verification-key points
// decoded, and the constraint index. The big point sections stay in the file and are decoded
// chunk by chunk (DecodePoints), so proving needs RAM for one chunk of points at a time, not a
// copy of the key. Shared, immutable, safe to use from many proofs at once.
//
// Points are checked on the curve as they are decoded, not for subgroup membership: the key
// is trusted input (whoever made it can break zero-knowledge anyway), the on-curve check keeps
// the arithmetic well-defined, and a subgroup check per point would cost more than the MSM.
// Each point is checked once per loaded key, by the first proof that decodes it
// (point_checks.hpp). The six verification-key points are few and are checked fully.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "prover_core/groth16/constraint_matrices.hpp"
#include "prover_core/groth16/point_checks.hpp"
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
    for (ZkeySection id : {kZkeyA, kZkeyB1, kZkeyB2, kZkeyC, kZkeyH}) {
      const size_t point_bytes = 2 * (id == kZkeyB2 ? G2::Field::kBytes : G1::Field::kBytes);
      key->point_checks_[id - kZkeyA] = PointChecks(key->file_->section(id).size() / point_bytes);
    }
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
  // Blocks of points that an earlier call checked are not checked again (point_checks.hpp).
  template <typename C>
  absl::Status DecodePoints(ZkeySection id, size_t begin, size_t end,
                            std::vector<curve::AffinePoint<C>>& out, ThreadPool& pool) const {
    const size_t point_bytes = 2 * C::Field::kBytes;
    const std::span<const uint8_t> section = file_->section(id);
    if (id < kZkeyA || id > kZkeyH || (id == kZkeyB2) != std::is_same_v<C, G2>) {
      return absl::InvalidArgumentError(
          absl::StrCat("section ", id, " does not hold ", C::kName, " points"));
    }
    if (end < begin || end * point_bytes > section.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("points [", begin, ", ", end, ") outside section ", id));
    }
    const PointChecks& checks = point_checks_[id - kZkeyA];
    out.resize(end - begin);
    if (begin == end) return absl::OkStatus();
    auto bytes = [&](size_t i) { return section.subspan(i * point_bytes, point_bytes); };
    const size_t first_block = begin / PointChecks::kBlockPoints;
    const size_t last_block = (end - 1) / PointChecks::kBlockPoints;
    std::atomic<size_t> first_bad{end};
    pool.ParallelFor(last_block - first_block + 1, [&](size_t k) {
      const size_t block = first_block + k;
      const size_t lo = std::max(begin, checks.block_begin(block));
      const size_t hi = std::min(end, checks.block_end(block));
      const bool trusted = checks.checked(block);
      bool all_good = true;
      for (size_t i = lo; i < hi; ++i) {
        auto point = trusted
                         ? curve::DecodeAffineCoordinates<C>(bytes(i),
                                                             curve::CoordinateEncoding::kMontgomery)
                         : curve::DecodeAffine<C>(bytes(i), curve::CoordinateEncoding::kMontgomery,
                                                  /*check_subgroup=*/false);
        if (!point.ok()) {
          all_good = false;
          size_t seen = first_bad.load();
          while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
          }
          continue;
        }
        out[i - begin] = *point;
      }
      if (all_good && !trusted && lo == checks.block_begin(block) &&
          hi == checks.block_end(block)) {
        checks.MarkChecked(block);
      }
    });
    if (const size_t bad = first_bad.load(); bad != end) {
      auto point = curve::DecodeAffine<C>(bytes(bad), curve::CoordinateEncoding::kMontgomery,
                                          /*check_subgroup=*/false);
      return absl::InvalidArgumentError(file_->container().SectionError(
          id, ZkeySectionName(id),
          absl::StrCat("point ", bad, ": ",
                       point.ok() ? "changed while it was read" : point.status().message())));
    }
    return absl::OkStatus();
  }

  // Points of section `id` (A, B1, B2, C or H) that have passed the curve check so far.
  size_t checked_points(ZkeySection id) const {
    return id >= kZkeyA && id <= kZkeyH ? point_checks_[id - kZkeyA].checked_points() : 0;
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
  std::array<PointChecks, kZkeyH - kZkeyA + 1> point_checks_;
  G1Affine alpha1_, beta1_, delta1_;
  G2Affine beta2_, delta2_;
};

}  // namespace provd::groth16
