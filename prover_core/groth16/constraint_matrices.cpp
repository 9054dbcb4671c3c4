#include "prover_core/groth16/constraint_matrices.hpp"

namespace provd::groth16 {

uint32_t ConstraintMatrices::Signal(uint32_t entry) const {
  return ReadU32(entries_, size_t{entry} * kEntryBytes + 8);
}

field::BigInt<4> ConstraintMatrices::Value(uint32_t entry) const {
  return field::BigInt<4>::FromBytesLE(entries_.subspan(size_t{entry} * kEntryBytes + 12, 32));
}

absl::StatusOr<ConstraintMatrices> ConstraintMatrices::Index(const ZkeyFile& zkey) {
  const ZkeyHeader& h = zkey.header();
  const std::span<const uint8_t> section = zkey.section(kZkeyCoefficients);
  const uint32_t count = ReadU32(section, 0);
  const field::BigInt<4>& r =
      h.curve == CurveId::kBn254 ? Bn254Engine::Fr::Modulus() : Bls12381Engine::Fr::Modulus();
  ConstraintMatrices index;
  index.entries_ = section.subspan(4);
  index.domain_size_ = h.domain_size;
  auto error = [&](uint32_t entry, auto&&... parts) {
    return absl::InvalidArgumentError(
        zkey.container().SectionError(kZkeyCoefficients, ZkeySectionName(kZkeyCoefficients),
                                      absl::StrCat("entry ", entry, ": ", parts...)));
  };

  // Counting sort by (matrix, constraint): validate and count, then place.
  for (auto& starts : index.row_start_) starts.assign(size_t{h.domain_size} + 1, 0);
  for (uint32_t e = 0; e < count; ++e) {
    const size_t at = size_t{e} * kEntryBytes;
    const uint32_t matrix = ReadU32(index.entries_, at);
    const uint32_t constraint = ReadU32(index.entries_, at + 4);
    if (matrix > 1) return error(e, "matrix ", matrix, " (expected 0 = A or 1 = B)");
    if (constraint >= h.domain_size) {
      return error(e, "constraint ", constraint, " outside the domain of ", h.domain_size);
    }
    if (const uint32_t signal = index.Signal(e); signal >= h.n_vars) {
      return error(e, "signal ", signal, " outside the ", h.n_vars, " variables");
    }
    if (index.Value(e) >= r) return error(e, "value not below the scalar field prime");
    ++index.row_start_[matrix][constraint + 1];
  }
  for (size_t m = 0; m < 2; ++m) {
    std::vector<uint32_t>& starts = index.row_start_[m];
    for (size_t c = 0; c < h.domain_size; ++c) starts[c + 1] += starts[c];
    index.order_[m].resize(starts[h.domain_size]);
  }
  std::vector<uint32_t> next[2] = {index.row_start_[0], index.row_start_[1]};
  for (uint32_t e = 0; e < count; ++e) {
    const size_t at = size_t{e} * kEntryBytes;
    const uint32_t matrix = ReadU32(index.entries_, at);
    const uint32_t constraint = ReadU32(index.entries_, at + 4);
    index.order_[matrix][next[matrix][constraint]++] = e;
  }
  return index;
}

}  // namespace provd::groth16
