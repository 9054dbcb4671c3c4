#include "prover_core/groth16/zkey_file.hpp"

#include "absl/strings/str_cat.h"

namespace provd::groth16 {
namespace {

constexpr uint32_t kGroth16ProtocolId = 1;

template <size_t N>
field::BigInt<N> ReadInt(std::span<const uint8_t> bytes, size_t offset) {
  return field::BigInt<N>::FromBytesLE(bytes.subspan(offset, 8 * N));
}

template <size_t N>
bool BytesEqual(std::span<const uint8_t> bytes, size_t offset, const field::BigInt<N>& v) {
  return ReadInt<N>(bytes, offset) == v;
}

}  // namespace

const char* ZkeySectionName(ZkeySection id) {
  switch (id) {
    case kZkeyProtocol:
      return "protocol";
    case kZkeyHeader:
      return "header";
    case kZkeyIc:
      return "IC points";
    case kZkeyCoefficients:
      return "coefficients";
    case kZkeyA:
      return "A points";
    case kZkeyB1:
      return "B1 points";
    case kZkeyB2:
      return "B2 points";
    case kZkeyC:
      return "C points";
    case kZkeyH:
      return "H points";
  }
  return "unknown";
}

absl::StatusOr<std::shared_ptr<const ZkeyFile>> ZkeyFile::Open(const std::string& path) {
  absl::StatusOr<io::MappedFile> mapped = io::MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  return Parse(*std::move(mapped));
}

absl::StatusOr<std::shared_ptr<const ZkeyFile>> ZkeyFile::Parse(io::MappedFile file) {
  absl::StatusOr<BinFile> container = BinFile::Parse(file.bytes(), "zkey", 1, file.path());
  if (!container.ok()) return container.status();
  std::shared_ptr<ZkeyFile> zkey(new ZkeyFile(std::move(file), *std::move(container)));
  if (absl::Status s = zkey->ParseHeader(); !s.ok()) return s;
  if (absl::Status s = zkey->CheckSectionSizes(); !s.ok()) return s;
  return zkey;
}

std::span<const uint8_t> ZkeyFile::section(ZkeySection id) const {
  return *container_.Section(id, "");  // present: Parse checked every section the prover reads
}

absl::Status ZkeyFile::ParseHeader() {
  absl::StatusOr<std::span<const uint8_t>> protocol =
      container_.SectionOfSize(kZkeyProtocol, ZkeySectionName(kZkeyProtocol), 4);
  if (!protocol.ok()) return protocol.status();
  if (const uint32_t id = ReadU32(*protocol, 0); id != kGroth16ProtocolId) {
    return absl::InvalidArgumentError(container_.SectionError(
        kZkeyProtocol, ZkeySectionName(kZkeyProtocol),
        absl::StrCat("protocol id ", id, " is not Groth16 (1); provd proves Groth16 keys only")));
  }

  const char* what = ZkeySectionName(kZkeyHeader);
  absl::StatusOr<std::span<const uint8_t>> body = container_.Section(kZkeyHeader, what);
  if (!body.ok()) return body.status();
  auto error = [&](auto&&... parts) {
    return absl::InvalidArgumentError(
        container_.SectionError(kZkeyHeader, what, absl::StrCat(parts...)));
  };
  if (body->size() < 4) return error("shorter than its n8q field");
  ZkeyHeader& h = header_;
  h.n8q = ReadU32(*body, 0);
  if (h.n8q != 32 && h.n8q != 48) {
    return error("base field elements of ", h.n8q,
                 " bytes; provd supports bn128 (32) and bls12381 (48)");
  }
  // n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1, beta1, beta2, gamma2, delta1, delta2.
  const uint64_t expected = 4 + h.n8q + 4 + 32 + 12 + 18 * uint64_t{h.n8q};
  if (body->size() != expected) {
    return error("expected ", expected, " bytes, found ", body->size());
  }
  if (h.n8q == 32 && BytesEqual(*body, 4, Bn254Engine::Fq::Modulus())) {
    h.curve = CurveId::kBn254;
  } else if (h.n8q == 48 && BytesEqual(*body, 4, Bls12381Engine::Fq::Modulus())) {
    h.curve = CurveId::kBls12381;
  } else {
    return error("unsupported curve: the base field prime is neither bn128's nor bls12381's");
  }
  size_t offset = 4 + h.n8q;
  h.n8r = ReadU32(*body, offset);
  if (h.n8r != 32) return error("scalars of ", h.n8r, " bytes (expected 32)");
  const field::BigInt<4>& r =
      h.curve == CurveId::kBn254 ? Bn254Engine::Fr::Modulus() : Bls12381Engine::Fr::Modulus();
  if (!BytesEqual(*body, offset + 4, r)) {
    return error("the scalar field prime does not match the curve ", SnarkjsCurveName(h.curve));
  }
  offset += 4 + h.n8r;
  h.n_vars = ReadU32(*body, offset);
  h.n_public = ReadU32(*body, offset + 4);
  h.domain_size = ReadU32(*body, offset + 8);
  if (h.n_vars == 0 || h.n_public >= h.n_vars) {
    return error(h.n_public, " public signals and ", h.n_vars,
                 " variables (needs nPublic < nVars: witness[0] is the constant 1)");
  }
  if (h.domain_size == 0 || (h.domain_size & (h.domain_size - 1)) != 0) {
    return error("domain size ", h.domain_size, " is not a power of two");
  }
  h.log_domain = static_cast<uint32_t>(__builtin_ctz(h.domain_size));
  const size_t two_adicity =
      h.curve == CurveId::kBn254 ? Bn254Engine::Fr::kTwoAdicity : Bls12381Engine::Fr::kTwoAdicity;
  // The H evaluations live on the coset of the 2n-th roots; at n = 2^s (the field's 2-adicity)
  // snarkjs switches to another shift that provd does not implement.
  if (h.log_domain + 1 > two_adicity) {
    return error("domain 2^", h.log_domain, " exceeds the supported 2^", two_adicity - 1);
  }
  if (h.domain_size < h.n_public + 1) {
    return error("domain size ", h.domain_size, " is smaller than nPublic + 1 = ", h.n_public + 1);
  }
  return absl::OkStatus();
}

absl::Status ZkeyFile::CheckSectionSizes() {
  const ZkeyHeader& h = header_;
  const uint64_t g1 = 2 * uint64_t{h.n8q};
  const uint64_t g2 = 4 * uint64_t{h.n8q};
  const std::pair<ZkeySection, uint64_t> expected[] = {
      {kZkeyIc, (uint64_t{h.n_public} + 1) * g1},
      {kZkeyA, h.n_vars * g1},
      {kZkeyB1, h.n_vars * g1},
      {kZkeyB2, h.n_vars * g2},
      {kZkeyC, (uint64_t{h.n_vars} - h.n_public - 1) * g1},
      {kZkeyH, h.domain_size * g1},
  };
  for (const auto& [id, size] : expected) {
    if (absl::Status s = container_.SectionOfSize(id, ZkeySectionName(id), size).status();
        !s.ok()) {
      return s;
    }
  }
  const char* what = ZkeySectionName(kZkeyCoefficients);
  absl::StatusOr<std::span<const uint8_t>> coefficients =
      container_.Section(kZkeyCoefficients, what);
  if (!coefficients.ok()) return coefficients.status();
  if (coefficients->size() < 4) {
    return absl::InvalidArgumentError(
        container_.SectionError(kZkeyCoefficients, what, "shorter than its count"));
  }
  const uint64_t count = ReadU32(*coefficients, 0);
  return container_.SectionOfSize(kZkeyCoefficients, what, 4 + count * (12 + h.n8r)).status();
}

}  // namespace provd::groth16
