// Reader for snarkjs Groth16 proving keys (.zkey, version 1). Open maps the file, indexes its
// sections and checks everything that does not need curve arithmetic: the protocol, the
// header (curve primes, counts, domain), and the exact size of every section the prover reads.
// Points are decoded (and checked on the curve) later, chunk by chunk, by ProvingKey.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "prover_core/groth16/bin_file.hpp"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/io/mapped_file.hpp"

namespace provd::groth16 {

// Section ids of a Groth16 zkey.
enum ZkeySection : uint32_t {
  kZkeyProtocol = 1,
  kZkeyHeader = 2,
  kZkeyIc = 3,
  kZkeyCoefficients = 4,
  kZkeyA = 5,
  kZkeyB1 = 6,
  kZkeyB2 = 7,
  kZkeyC = 8,
  kZkeyH = 9,
};

// What a section holds, for error messages: "A points", "coefficients", ...
const char* ZkeySectionName(ZkeySection id);

struct ZkeyHeader {
  CurveId curve = CurveId::kBn254;
  uint32_t n8q = 0;  // bytes per base-field coordinate
  uint32_t n8r = 0;  // bytes per scalar
  uint32_t n_vars = 0;
  uint32_t n_public = 0;  // public outputs and public inputs together
  uint32_t domain_size = 0;
  uint32_t log_domain = 0;
};

class ZkeyFile {
 public:
  // INVALID_ARGUMENT naming the file and the section for anything malformed or unsupported.
  static absl::StatusOr<std::shared_ptr<const ZkeyFile>> Open(const std::string& path);
  // Takes ownership of an already mapped file (tests build zkeys in memory through this too).
  static absl::StatusOr<std::shared_ptr<const ZkeyFile>> Parse(io::MappedFile file);

  const ZkeyHeader& header() const { return header_; }
  const BinFile& container() const { return container_; }
  const std::string& path() const { return file_.path(); }
  // The body of a section whose presence and size Parse has checked.
  std::span<const uint8_t> section(ZkeySection id) const;
  uint64_t size_bytes() const { return file_.bytes().size(); }

 private:
  ZkeyFile(io::MappedFile file, BinFile container)
      : file_(std::move(file)), container_(std::move(container)) {}
  absl::Status ParseHeader();
  absl::Status CheckSectionSizes();

  io::MappedFile file_;
  BinFile container_;
  ZkeyHeader header_;
};

}  // namespace provd::groth16
