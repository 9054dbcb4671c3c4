// The curve-generic body of WriteDevZkey (dev_setup.hpp), instantiated per curve in
// dev_setup_<curve>.cpp so that the two compile in parallel.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prover_core/curve/fixed_base.hpp"
#include "prover_core/groth16/bin_file_writer.hpp"
#include "prover_core/groth16/dev_setup.hpp"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/groth16/randomness.hpp"
#include "prover_core/groth16/zkey_file.hpp"
#include "prover_core/io/atomic_output.hpp"
#include "prover_core/ntt/lagrange.hpp"

namespace provd::groth16 {

template <typename E>
struct ToxicWaste {
  typename E::Fr tau, alpha, beta, gamma, delta;
};

// The secrets, from the OS or from options.seed bound to the circuit's shape (randomness.hpp's
// derivation, under labels of their own).
template <typename E>
absl::StatusOr<ToxicWaste<E>> DrawToxicWaste(const R1csHeader& h, const DevSetupOptions& options) {
  std::vector<uint8_t> binding;
  for (uint64_t v : {uint64_t{h.n_wires}, uint64_t{h.n_outputs}, uint64_t{h.n_public_inputs},
                     uint64_t{h.n_private_inputs}, uint64_t{h.n_constraints}}) {
    for (int i = 0; i < 8; ++i) binding.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  ToxicWaste<E> w;
  const std::pair<const char*, typename E::Fr*> draws[] = {{"devsetup/tau", &w.tau},
                                                           {"devsetup/alpha", &w.alpha},
                                                           {"devsetup/beta", &w.beta},
                                                           {"devsetup/gamma", &w.gamma},
                                                           {"devsetup/delta", &w.delta}};
  for (const auto& [label, out] : draws) {
    absl::StatusOr<typename E::Fr> v = DrawScalar<typename E::Fr>(label, options.seed, binding);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  return w;
}

// u, v, w: the A, B and C columns of every wire at tau; the public rows snarkjs appends
// (A[nConstraints + s][s] = 1 for s <= nPublic) included.
template <typename Fr>
struct ColumnsAtTau {
  std::vector<Fr> u, v, w;
  uint64_t coefficients = 0;  // entries of the zkey's section 4
};

template <typename Fr>
absl::StatusOr<ColumnsAtTau<Fr>> EvaluateColumns(const R1csFile& r1cs, size_t log_n, const Fr& tau,
                                                 ThreadPool& pool) {
  const R1csHeader& h = r1cs.header();
  absl::StatusOr<std::vector<Fr>> lagrange =
      ntt::LagrangeBasisAt<Fr>(log_n, tau, 0, 1, size_t{1} << log_n, pool);
  if (!lagrange.ok()) return lagrange.status();
  ColumnsAtTau<Fr> cols;
  cols.u.assign(h.n_wires, Fr::Zero());
  cols.v.assign(h.n_wires, Fr::Zero());
  cols.w.assign(h.n_wires, Fr::Zero());
  auto accumulate = [](std::vector<Fr>& column, const R1csCombination& lc, const Fr& l) {
    for (size_t t = 0; t < lc.size(); ++t) {
      const R1csTerm term = lc[t];
      column[term.wire] += Fr::FromCanonical(term.value) * l;
    }
  };
  r1cs.ForEachConstraint([&](uint32_t c, const R1csConstraint& constraint) {
    const Fr& l = (*lagrange)[c];
    accumulate(cols.u, constraint.a, l);
    accumulate(cols.v, constraint.b, l);
    accumulate(cols.w, constraint.c, l);
    cols.coefficients += constraint.a.size() + constraint.b.size();
  });
  for (uint32_t s = 0; s <= h.n_public(); ++s) cols.u[s] += (*lagrange)[h.n_constraints + s];
  cols.coefficients += h.n_public() + 1;
  return cols;
}

template <typename E>
class DevZkeyWriter {
 public:
  using Fr = typename E::Fr;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  static constexpr size_t kG1Bytes = 2 * G1::Field::kBytes;
  static constexpr size_t kG2Bytes = 2 * G2::Field::kBytes;
  static constexpr size_t kN8q = E::Fq::kBytes;
  static constexpr size_t kN8r = Fr::kBytes;
  static constexpr size_t kCoefficientBytes = 12 + kN8r;

  DevZkeyWriter(const R1csFile& r1cs, size_t log_n, ThreadPool& pool)
      : r1cs_(r1cs), h_(r1cs.header()), log_n_(log_n), pool_(pool) {}

  absl::StatusOr<DevSetupSummary> Write(const std::filesystem::path& path,
                                        const DevSetupOptions& options) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    DevSetupSummary summary;
    summary.domain_size = uint32_t{1} << log_n_;
    absl::StatusOr<ToxicWaste<E>> secrets = DrawToxicWaste<E>(h_, options);
    if (!secrets.ok()) return secrets.status();
    const ToxicWaste<E>& tw = *secrets;
    absl::StatusOr<ColumnsAtTau<Fr>> cols = EvaluateColumns<Fr>(r1cs_, log_n_, tw.tau, pool_);
    if (!cols.ok()) return cols.status();
    const Fr gamma_inv = tw.gamma.Inverse();
    const Fr delta_inv = tw.delta.Inverse();
    // w becomes the IC and C scalars in place: (b u + a v + w) / g or / d.
    pool_.ParallelForRange(h_.n_wires, 4096, [&](size_t begin, size_t end) {
      for (size_t s = begin; s < end; ++s) {
        const Fr& scale = s <= h_.n_public() ? gamma_inv : delta_inv;
        cols->w[s] = (tw.beta * cols->u[s] + tw.alpha * cols->v[s] + cols->w[s]) * scale;
      }
    });
    // H: L_{2i+1}(tau) over the 2n-th roots, / d.
    absl::StatusOr<std::vector<Fr>> h_scalars =
        ntt::LagrangeBasisAt<Fr>(log_n_ + 1, tw.tau, 1, 2, size_t{1} << log_n_, pool_);
    if (!h_scalars.ok()) return h_scalars.status();
    for (Fr& x : *h_scalars) x *= delta_inv;
    summary.coefficients = cols->coefficients;
    const auto scalars_done = Clock::now();

    absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(path);
    if (!out.ok()) return out.status();
    absl::StatusOr<BinFileWriter> file = BinFileWriter::Start(*out, "zkey", 1, 10);
    if (!file.ok()) return file.status();
    file_ = &*file;
    const uint64_t n_wires = h_.n_wires;
    const uint64_t n_ic = uint64_t{h_.n_public()} + 1;
    const curve::FixedBaseMul<G1> g1(G1::Generator());
    const curve::FixedBaseMul<G2> g2(G2::Generator());
    const std::span<const Fr> w = cols->w;
    absl::Status s = Section(kZkeyProtocol, 4, [&] { return file_->WriteU32(1); });
    if (s.ok())
      s = Section(kZkeyHeader, 4 + kN8q + 4 + kN8r + 12 + 18 * kN8q,
                  [&] { return WriteHeader(tw); });
    if (s.ok()) s = Section(kZkeyIc, n_ic * kG1Bytes, [&] { return Points(g1, w.first(n_ic)); });
    if (s.ok()) {
      s = Section(kZkeyCoefficients, 4 + cols->coefficients * kCoefficientBytes,
                  [&] { return WriteCoefficients(cols->coefficients); });
    }
    if (s.ok()) s = Section(kZkeyA, n_wires * kG1Bytes, [&] { return Points(g1, cols->u); });
    if (s.ok()) s = Section(kZkeyB1, n_wires * kG1Bytes, [&] { return Points(g1, cols->v); });
    if (s.ok()) s = Section(kZkeyB2, n_wires * kG2Bytes, [&] { return Points(g2, cols->v); });
    if (s.ok()) {
      s = Section(kZkeyC, (n_wires - n_ic) * kG1Bytes, [&] { return Points(g1, w.subspan(n_ic)); });
    }
    if (s.ok()) {
      s = Section(kZkeyH, uint64_t{summary.domain_size} * kG1Bytes,
                  [&] { return Points(g1, std::span<const Fr>(*h_scalars)); });
    }
    if (s.ok()) {
      // Contributions: a zero circuit hash (no ptau is behind this key) and none made.
      s = Section(10, 64 + 4, [&] {
        const std::array<uint8_t, 64> no_hash{};
        absl::Status st = file_->Write(no_hash);
        return st.ok() ? file_->WriteU32(0) : st;
      });
    }
    summary.zkey_bytes = out->bytes_written();
    if (s.ok()) s = file_->Finish();
    if (!s.ok()) return s;
    const auto end = Clock::now();
    summary.scalar_seconds = std::chrono::duration<double>(scalars_done - start).count();
    summary.point_seconds = std::chrono::duration<double>(end - scalars_done).count();
    return summary;
  }

 private:
  template <typename Body>
  absl::Status Section(uint32_t id, uint64_t size, Body&& body) {
    if (absl::Status s = file_->BeginSection(id, size); !s.ok()) return s;
    if (absl::Status s = body(); !s.ok()) return s;
    return file_->EndSection();
  }

  template <typename C>
  absl::Status WritePoint(const curve::AffinePoint<C>& p) {
    std::array<uint8_t, 2 * C::Field::kBytes> bytes;
    curve::EncodeAffine(p, curve::CoordinateEncoding::kMontgomery, bytes);
    return file_->Write(bytes);
  }

  absl::Status WriteHeader(const ToxicWaste<E>& tw) {
    std::array<uint8_t, kN8q> q;
    E::Fq::Modulus().ToBytesLE(q);
    std::array<uint8_t, kN8r> r;
    Fr::Modulus().ToBytesLE(r);
    const auto g1 = G1::Generator();
    const auto g2 = G2::Generator();
    auto g1_times = [&](const Fr& k) { return curve::ScalarMul(g1, k.ToCanonical()).ToAffine(); };
    auto g2_times = [&](const Fr& k) { return curve::ScalarMul(g2, k.ToCanonical()).ToAffine(); };
    absl::Status s = file_->WriteU32(kN8q);
    if (s.ok()) s = file_->Write(q);
    if (s.ok()) s = file_->WriteU32(kN8r);
    if (s.ok()) s = file_->Write(r);
    for (uint32_t v : {h_.n_wires, h_.n_public(), uint32_t{1} << log_n_}) {
      if (s.ok()) s = file_->WriteU32(v);
    }
    if (s.ok()) s = WritePoint(g1_times(tw.alpha));
    if (s.ok()) s = WritePoint(g1_times(tw.beta));
    if (s.ok()) s = WritePoint(g2_times(tw.beta));
    if (s.ok()) s = WritePoint(g2_times(tw.gamma));
    if (s.ok()) s = WritePoint(g1_times(tw.delta));
    if (s.ok()) s = WritePoint(g2_times(tw.delta));
    return s;
  }

  // snarkjs's section 4: per constraint its A terms, then its B terms, then one A entry per
  // public signal; values as value * R^2 mod r in normal form ("doubly Montgomery").
  absl::Status WriteCoefficients(uint64_t count) {
    if (count > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(count, " coefficients do not fit the zkey's 32-bit count"));
    }
    absl::Status s = file_->WriteU32(static_cast<uint32_t>(count));
    std::vector<uint8_t> buffer;
    buffer.reserve(kBufferBytes + kCoefficientBytes);
    const Fr r_squared = Fr::FromCanonical(Fr::Constants::kR2);
    auto entry = [&](uint32_t matrix, uint32_t constraint, uint32_t wire, const Fr& value) {
      const size_t at = buffer.size();
      buffer.resize(at + kCoefficientBytes);
      for (uint32_t i = 0; i < 3; ++i) {
        const uint32_t v = i == 0 ? matrix : i == 1 ? constraint : wire;
        for (int b = 0; b < 4; ++b) buffer[at + 4 * i + b] = static_cast<uint8_t>(v >> (8 * b));
      }
      (value * r_squared).ToBytesLE(std::span(buffer).subspan(at + 12, kN8r));
      if (buffer.size() >= kBufferBytes && s.ok()) {
        s = file_->Write(buffer);
        buffer.clear();
      }
    };
    r1cs_.ForEachConstraint([&](uint32_t c, const R1csConstraint& constraint) {
      for (uint32_t m = 0; m < 2; ++m) {
        const R1csCombination& lc = m == 0 ? constraint.a : constraint.b;
        for (size_t t = 0; t < lc.size(); ++t) {
          const R1csTerm term = lc[t];
          entry(m, c, term.wire, Fr::FromCanonical(term.value));
        }
      }
    });
    for (uint32_t p = 0; p <= h_.n_public(); ++p) entry(0, h_.n_constraints + p, p, Fr::One());
    if (s.ok()) s = file_->Write(buffer);
    return s;
  }

  // scalars[i] * G for every i, in chunks computed in parallel and written in order.
  template <typename C>
  absl::Status Points(const curve::FixedBaseMul<C>& base, std::span<const Fr> scalars) {
    constexpr size_t kPointBytes = 2 * C::Field::kBytes;
    const size_t chunk = kBufferBytes / kPointBytes;
    std::vector<curve::AffinePoint<C>> points(std::min(chunk, scalars.size()));
    std::vector<uint8_t> bytes(points.size() * kPointBytes);
    for (size_t begin = 0; begin < scalars.size(); begin += chunk) {
      const size_t count = std::min(chunk, scalars.size() - begin);
      base.MulMany(scalars.subspan(begin, count), std::span(points).first(count), pool_);
      for (size_t i = 0; i < count; ++i) {
        curve::EncodeAffine(points[i], curve::CoordinateEncoding::kMontgomery,
                            std::span(bytes).subspan(i * kPointBytes, kPointBytes));
      }
      if (absl::Status s = file_->Write(std::span(bytes).first(count * kPointBytes)); !s.ok())
        return s;
    }
    return absl::OkStatus();
  }

  static constexpr size_t kBufferBytes = size_t{4} << 20;

  const R1csFile& r1cs_;
  const R1csHeader& h_;
  const size_t log_n_;
  ThreadPool& pool_;
  BinFileWriter* file_ = nullptr;
};

template <typename E>
absl::StatusOr<DevSetupSummary> WriteDevZkeyFor(const R1csFile& r1cs,
                                                const std::filesystem::path& zkey_out,
                                                const DevSetupOptions& options, ThreadPool& pool) {
  const size_t log_n = DevSetupLogDomain(r1cs.header());
  // The zkey reader's bound: H lives on the coset of the 2n-th roots.
  if (log_n + 1 > E::Fr::kTwoAdicity) {
    return absl::InvalidArgumentError(
        absl::StrCat(r1cs.path(), ": the circuit needs a domain of 2^", log_n, "; ",
                     E::kSnarkjsName, " keys go up to 2^", E::Fr::kTwoAdicity - 1));
  }
  return DevZkeyWriter<E>(r1cs, log_n, pool).Write(zkey_out, options);
}

}  // namespace provd::groth16
