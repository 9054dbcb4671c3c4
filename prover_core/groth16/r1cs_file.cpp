#include "prover_core/groth16/r1cs_file.hpp"

#include "absl/strings/str_cat.h"

namespace provd::groth16 {
namespace {

enum R1csSection : uint32_t {
  kR1csHeader = 1,
  kR1csConstraints = 2,
  kR1csCustomGatesList = 4,
  kR1csCustomGatesUses = 5,
};

constexpr size_t kHeaderBytes = 4 + 32 + 4 * 4 + 8 + 4;

field::BigInt<4> ScalarPrime(CurveId curve) {
  return curve == CurveId::kBn254 ? Bn254Engine::Fr::Modulus() : Bls12381Engine::Fr::Modulus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const R1csFile>> R1csFile::Open(const std::string& path) {
  absl::StatusOr<io::MappedFile> mapped = io::MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  return Parse(*std::move(mapped));
}

absl::StatusOr<std::shared_ptr<const R1csFile>> R1csFile::Parse(io::MappedFile file) {
  absl::StatusOr<BinFile> container = BinFile::Parse(file.bytes(), "r1cs", 1, file.path());
  if (!container.ok()) return container.status();
  std::shared_ptr<R1csFile> r1cs(new R1csFile(std::move(file), *std::move(container)));
  if (absl::Status s = r1cs->ParseHeader(); !s.ok()) return s;
  if (absl::Status s = r1cs->CheckConstraints(); !s.ok()) return s;
  return r1cs;
}

absl::Status R1csFile::ParseHeader() {
  for (uint32_t id : {kR1csCustomGatesList, kR1csCustomGatesUses}) {
    if (container_.Section(id, "custom gates").ok()) {
      return absl::InvalidArgumentError(container_.SectionError(
          id, "custom gates",
          "the circuit uses custom gates, which only PLONK supports; compile it without them"));
    }
  }
  const char* what = "header";
  absl::StatusOr<std::span<const uint8_t>> body = container_.Section(kR1csHeader, what);
  if (!body.ok()) return body.status();
  auto error = [&](auto&&... parts) {
    return absl::InvalidArgumentError(
        container_.SectionError(kR1csHeader, what, absl::StrCat(parts...)));
  };
  if (body->size() < 4) return error("shorter than its n8 field");
  if (const uint32_t n8 = ReadU32(*body, 0); n8 != 32) {
    return error("field elements of ", n8,
                 " bytes; provd supports the scalar fields of bn128 and bls12381 (32)");
  }
  if (body->size() != kHeaderBytes) {
    return error("expected ", kHeaderBytes, " bytes, found ", body->size());
  }
  const field::BigInt<4> prime = field::BigInt<4>::FromBytesLE(body->subspan(4, 32));
  R1csHeader& h = header_;
  if (prime == Bn254Engine::Fr::Modulus()) {
    h.curve = CurveId::kBn254;
  } else if (prime == Bls12381Engine::Fr::Modulus()) {
    h.curve = CurveId::kBls12381;
  } else {
    return error("the prime is neither bn128's nor bls12381's scalar field prime");
  }
  h.n_wires = ReadU32(*body, 36);
  h.n_outputs = ReadU32(*body, 40);
  h.n_public_inputs = ReadU32(*body, 44);
  h.n_private_inputs = ReadU32(*body, 48);
  h.n_labels = ReadU64(*body, 52);
  h.n_constraints = ReadU32(*body, 60);
  const uint64_t inputs =
      uint64_t{1} + h.n_outputs + h.n_public_inputs + uint64_t{h.n_private_inputs};
  if (h.n_wires == 0 || inputs > h.n_wires) {
    return error(h.n_wires, " wires cannot hold the constant 1, ", h.n_outputs, " outputs, ",
                 h.n_public_inputs, " public and ", h.n_private_inputs, " private inputs");
  }
  return absl::OkStatus();
}

absl::Status R1csFile::CheckConstraints() {
  const char* what = "constraints";
  absl::StatusOr<std::span<const uint8_t>> body = container_.Section(kR1csConstraints, what);
  if (!body.ok()) return body.status();
  constraints_ = *body;
  const field::BigInt<4> prime = ScalarPrime(header_.curve);
  size_t at = 0;
  for (uint32_t i = 0; i < header_.n_constraints; ++i) {
    for (const char* matrix : {"A", "B", "C"}) {
      auto error = [&](auto&&... parts) {
        return absl::InvalidArgumentError(container_.SectionError(
            kR1csConstraints, what, absl::StrCat("constraint ", i, " ", matrix, ": ", parts...)));
      };
      if (constraints_.size() - at < 4) return error("truncated");
      const uint64_t count = ReadU32(constraints_, at);
      if ((constraints_.size() - at - 4) / R1csCombination::kTermBytes < count) {
        return error(count, " terms do not fit in the section");
      }
      R1csCombination lc(constraints_.subspan(at + 4, count * R1csCombination::kTermBytes));
      for (size_t t = 0; t < lc.size(); ++t) {
        const R1csTerm term = lc[t];
        if (term.wire >= header_.n_wires) {
          return error("wire ", term.wire, " outside the ", header_.n_wires, " wires");
        }
        if (term.value >= prime) return error("term ", t, ": value not below the prime");
      }
      at += 4 + count * R1csCombination::kTermBytes;
    }
  }
  if (at != constraints_.size()) {
    return absl::InvalidArgumentError(container_.SectionError(
        kR1csConstraints, what,
        absl::StrCat(constraints_.size() - at, " bytes after the last of the header's ",
                     header_.n_constraints, " constraints")));
  }
  return absl::OkStatus();
}

}  // namespace provd::groth16
