// The body of groth16::Prove, included only by the per-curve instantiation files
// (prover_bn254.cpp, prover_bls12_381.cpp) so the prover compiles once per curve.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "prover_core/groth16/chunk_points.hpp"
#include "prover_core/groth16/prover.hpp"
#include "prover_core/groth16/randomness.hpp"
#include "prover_core/msm/chunked_msm.hpp"
#include "prover_core/ntt/ntt.hpp"
#include "prover_core/plan/round_executor.hpp"

namespace provd::groth16 {
namespace internal {

template <typename E>
class Groth16Run {
 public:
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using Fr = typename E::Fr;
  using Round = plan::Round;

  Groth16Run(const ProvingKey<E>& key, const Witness& witness, const ProveOptions& options,
             const ProveContext<E>& context)
      : key_(key),
        witness_(witness),
        options_(options),
        context_(context),
        pool_(*context.pool),
        executor_(context.backends, context.placement, context.observer) {}

  absl::StatusOr<Proof<E>> Run() {
    if (absl::Status s = CheckInputs(); !s.ok()) return s;
    binding_ = Binding();
    const ZkeyHeader& h = key_.header();
    const size_t n = h.domain_size;
    std::vector<Fr> a(n), b(n), c(n);
    if (absl::Status s = WitnessMap(a, b, c); !s.ok()) return s;
    for (auto [round, values] :
         {std::pair{Round::kLdeA, &a}, std::pair{Round::kLdeB, &b}, std::pair{Round::kLdeC, &c}}) {
      if (absl::Status s = Lde(round, *values); !s.ok()) return s;
    }
    std::vector<msm::Scalar> h_scalars(n);
    if (absl::Status s =
            executor_.RunRound(Round::kHCombine, 1,
                               [&] {
                                 pool_.ParallelForRange(n, 4096, [&](size_t begin, size_t end) {
                                   for (size_t i = begin; i < end; ++i)
                                     h_scalars[i] = (a[i] * b[i] - c[i]).ToCanonical();
                                 });
                                 return absl::OkStatus();
                               });
        !s.ok()) {
      return s;
    }
    std::vector<Fr>().swap(a);  // the evaluations are no longer needed: give their memory back
    std::vector<Fr>().swap(b);
    std::vector<Fr>().swap(c);

    const std::span<const msm::Scalar> w(witness_.values);
    absl::StatusOr<curve::XyzzPoint<G1>> msm_a = MsmRound<G1>(Round::kMsmA, kZkeyA, w);
    if (!msm_a.ok()) return msm_a.status();
    absl::StatusOr<curve::XyzzPoint<G1>> msm_b1 = MsmRound<G1>(Round::kMsmB1, kZkeyB1, w);
    if (!msm_b1.ok()) return msm_b1.status();
    absl::StatusOr<curve::XyzzPoint<G2>> msm_b2 = MsmRound<G2>(Round::kMsmB2, kZkeyB2, w);
    if (!msm_b2.ok()) return msm_b2.status();
    absl::StatusOr<curve::XyzzPoint<G1>> msm_c =
        MsmRound<G1>(Round::kMsmC, kZkeyC, w.subspan(size_t{h.n_public} + 1));
    if (!msm_c.ok()) return msm_c.status();
    absl::StatusOr<curve::XyzzPoint<G1>> msm_h = MsmRound<G1>(Round::kMsmH, kZkeyH, h_scalars);
    if (!msm_h.ok()) return msm_h.status();
    return Combine(*msm_a, *msm_b1, *msm_b2, *msm_c, *msm_h);
  }

 private:
  absl::Status CheckInputs() {
    if (context_.pool == nullptr) return absl::InvalidArgumentError("no thread pool given");
    if (absl::Status s = executor_.Validate(); !s.ok()) return s;
    return CheckWitnessFits(key_, witness_);
  }

  absl::Status Cancelled() const {
    if (context_.cancelled != nullptr && context_.cancelled->load(std::memory_order_relaxed)) {
      return absl::CancelledError("proof cancelled");
    }
    return absl::OkStatus();
  }

  absl::Status WitnessMap(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) {
    return executor_.RunRound(Round::kWitnessMap, 1, [&]() -> absl::Status {
      if (absl::Status s = Cancelled(); !s.ok()) return s;
      const ConstraintMatrices& m = key_.matrices();
      if (absl::Status s = m.Evaluate<Fr>(Matrix::kA, witness_.values, a, pool_); !s.ok()) return s;
      if (absl::Status s = m.Evaluate<Fr>(Matrix::kB, witness_.values, b, pool_); !s.ok()) return s;
      pool_.ParallelForRange(a.size(), 4096, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) c[i] = a[i] * b[i];
      });
      return absl::OkStatus();
    });
  }

  // Evaluations on the domain in, evaluations on the odd coset w_2n * <w_n> out. By default one
  // chunk (a backend's ShiftToCoset: a device moves the column once each way); with
  // ntt_chunk_stages, chunks of that many stages of the inverse and the forward transform, so a
  // yield can come between them.
  absl::Status Lde(Round round, std::vector<Fr>& values) {
    const size_t log_n = key_.header().log_domain;
    const std::span<Fr> data(values);
    const Fr shift = ntt::RootOfUnity<Fr>(log_n + 1);
    if (options_.ntt_chunk_stages == 0) {
      return executor_.RunRound(round, 1, [&]() -> absl::Status {
        if (absl::Status s = Cancelled(); !s.ok()) return s;
        absl::StatusOr<std::shared_ptr<const ntt::Twiddles<Fr>>> tw =
            ntt::GetTwiddles<Fr>(log_n, pool_);
        if (!tw.ok()) return tw.status();
        return executor_.RunChunk(plan::ChunkRef{round, 0, 1}, [&](Backend<E>& backend) {
          return backend.ShiftToCoset(data, **tw, shift);
        });
      });
    }
    const size_t per_chunk = std::max<size_t>(options_.ntt_chunk_stages, 1);
    const size_t pieces = log_n == 0 ? 0 : (log_n + per_chunk - 1) / per_chunk;
    return executor_.RunRound(round, 2 * pieces, [&]() -> absl::Status {
      absl::StatusOr<std::shared_ptr<const ntt::Twiddles<Fr>>> tw =
          ntt::GetTwiddles<Fr>(log_n, pool_);
      if (!tw.ok()) return tw.status();
      size_t chunk = 0;
      auto transform = [&](ntt::Direction direction) -> absl::Status {
        for (size_t first = 0; first < log_n; first += per_chunk) {
          if (absl::Status s = Cancelled(); !s.ok()) return s;
          const size_t end = std::min(log_n, first + per_chunk);
          const plan::ChunkRef ref{round, chunk++, 2 * pieces};
          absl::Status s = executor_.RunChunk(ref, [&](Backend<E>& backend) {
            return backend.NttStages(data, **tw, direction, first, end);
          });
          if (!s.ok()) return s;
        }
        ntt::Finish(data, **tw, direction, pool_);
        return absl::OkStatus();
      };
      if (absl::Status s = transform(ntt::Direction::kInverse); !s.ok()) return s;
      ntt::ScaleByPowers(data, shift, pool_);
      return transform(ntt::Direction::kForward);
    });
  }

  template <typename C>
  absl::StatusOr<curve::XyzzPoint<C>> MsmRound(Round round, ZkeySection section,
                                               std::span<const msm::Scalar> scalars) {
    msm::ChunkedMsm<C> msm(scalars.size(), options_.msm_chunk_points);
    Resume(round, msm);
    ChunkPoints<E, C> points(key_, section, pool_);
    absl::Status status = executor_.RunRound(round, msm.chunk_count(), [&]() -> absl::Status {
      while (!msm.done()) {
        if (absl::Status s = Cancelled(); !s.ok()) return s;
        const msm::PointRange range = msm.chunk(msm.next_chunk());
        absl::StatusOr<std::span<const curve::AffinePoint<C>>> chunk_points = points.Get(range);
        if (!chunk_points.ok()) return chunk_points.status();
        const auto chunk_scalars = scalars.subspan(range.begin, range.size());
        const plan::ChunkRef ref{round, msm.next_chunk(), msm.chunk_count()};
        const bool more = msm.next_chunk() + 1 < msm.chunk_count();
        std::optional<curve::XyzzPoint<C>> partial;
        absl::Status s = executor_.RunChunk(ref, [&](Backend<E>& backend) -> absl::Status {
          // A device's chunk leaves the host's cores free: decode the next chunk meanwhile.
          if (more && !backend.is_cpu()) points.Prefetch(msm.chunk(msm.next_chunk() + 1));
          absl::StatusOr<curve::XyzzPoint<C>> sum;
          if constexpr (std::is_same_v<C, G1>) {
            sum = backend.MsmG1(*chunk_points, chunk_scalars);
          } else {
            sum = backend.MsmG2(*chunk_points, chunk_scalars);
          }
          if (!sum.ok()) return sum.status();
          partial = *sum;
          return absl::OkStatus();
        });
        if (!s.ok()) return s;
        msm.Accept(*partial);
        SaveProgress(round, msm);
      }
      return absl::OkStatus();
    });
    if (!status.ok()) return status;
    return msm.sum();
  }

  // Key header and witness digests: what the proof's randomness and checkpoints are bound to.
  std::array<uint8_t, 64> Binding() const {
    std::vector<uint8_t> values_bytes(witness_.values.size() * 32);
    for (size_t i = 0; i < witness_.values.size(); ++i) {
      witness_.values[i].ToBytesLE(std::span(values_bytes).subspan(i * 32, 32));
    }
    const io::Sha256Digest key_digest = io::Sha256({key_.file().section(kZkeyHeader)});
    const io::Sha256Digest witness_digest = io::Sha256({values_bytes});
    std::array<uint8_t, 64> binding{};
    std::copy(key_digest.begin(), key_digest.end(), binding.begin());
    std::copy(witness_digest.begin(), witness_digest.end(), binding.begin() + 32);
    return binding;
  }

  std::string_view BindingView() const {
    return std::string_view(reinterpret_cast<const char*>(binding_.data()), binding_.size());
  }

  // A partial sum as saved progress: its affine form, in curve::EncodeAffine's bytes.
  template <typename C>
  static std::string EncodePoint(const curve::XyzzPoint<C>& point) {
    std::string out(2 * C::Field::kBytes, '\0');
    curve::EncodeAffine(point.ToAffine(), curve::CoordinateEncoding::kNormal,
                        std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
    return out;
  }

  // nullopt for anything EncodePoint did not make, or a point off the curve.
  template <typename C>
  static std::optional<curve::XyzzPoint<C>> DecodePoint(std::string_view text) {
    absl::StatusOr<curve::AffinePoint<C>> affine = curve::DecodeAffine<C>(
        std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
        curve::CoordinateEncoding::kNormal, /*check_subgroup=*/false);
    if (!affine.ok()) return std::nullopt;
    return curve::XyzzPoint<C>(*affine);
  }

  // Takes over the chunks a previous attempt finished, if it saved them for these inputs.
  template <typename C>
  void Resume(Round round, msm::ChunkedMsm<C>& msm) {
    if (context_.checkpoint == nullptr) return;
    std::optional<plan::MsmProgress> saved = context_.checkpoint->Load(BindingView(), round);
    if (!saved || saved->chunk_count != msm.chunk_count() ||
        saved->chunk_points != options_.msm_chunk_points || saved->chunks_done == 0 ||
        saved->chunks_done > msm.chunk_count()) {
      return;
    }
    std::optional<curve::XyzzPoint<C>> sum = DecodePoint<C>(saved->partial_sum);
    if (!sum) return;
    msm.Resume(saved->chunks_done, *sum);
  }

  template <typename C>
  void SaveProgress(Round round, const msm::ChunkedMsm<C>& msm) {
    if (context_.checkpoint == nullptr) return;
    context_.checkpoint->Save(
        BindingView(), round,
        plan::MsmProgress{msm.next_chunk(), msm.chunk_count(), options_.msm_chunk_points,
                          EncodePoint<C>(msm.sum())});
  }

  absl::StatusOr<Proof<E>> Combine(curve::XyzzPoint<G1> a, curve::XyzzPoint<G1> b1,
                                   curve::XyzzPoint<G2> b, curve::XyzzPoint<G1> c,
                                   const curve::XyzzPoint<G1>& h) {
    absl::StatusOr<Fr> r = DrawScalar<Fr>("r", options_.seed, binding_);
    if (!r.ok()) return r.status();
    absl::StatusOr<Fr> s = DrawScalar<Fr>("s", options_.seed, binding_);
    if (!s.ok()) return s.status();
    const auto r_int = r->ToCanonical();
    const auto s_int = s->ToCanonical();
    const auto rs_int = (-(*r * *s)).ToCanonical();

    a.AddAffine(key_.alpha1());
    a.Add(curve::ScalarMul(key_.delta1(), r_int));
    b.AddAffine(key_.beta2());
    b.Add(curve::ScalarMul(key_.delta2(), s_int));
    b1.AddAffine(key_.beta1());
    b1.Add(curve::ScalarMul(key_.delta1(), s_int));
    c.Add(h);
    c.Add(curve::ScalarMul(a, s_int));
    c.Add(curve::ScalarMul(b1, r_int));
    c.Add(curve::ScalarMul(key_.delta1(), rs_int));
    return Proof<E>{a.ToAffine(), b.ToAffine(), c.ToAffine()};
  }

  const ProvingKey<E>& key_;
  const Witness& witness_;
  const ProveOptions& options_;
  const ProveContext<E>& context_;
  ThreadPool& pool_;
  plan::RoundExecutor<Backend<E>> executor_;
  std::array<uint8_t, 64> binding_{};
};

}  // namespace internal

template <typename E>
absl::StatusOr<Proof<E>> Prove(const ProvingKey<E>& key, const Witness& witness,
                               const ProveOptions& options, const ProveContext<E>& context) {
  return internal::Groth16Run<E>(key, witness, options, context).Run();
}

}  // namespace provd::groth16
