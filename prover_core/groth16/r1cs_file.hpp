// Reader for circom's constraint systems (.r1cs, version 1): section 1 the header (field,
// wire counts, constraint count), section 2 the constraints, each three linear combinations
// A, B, C of (u32 wire, n8-byte value in normal form). Open maps the file and walks every
// constraint once, so a file that parses can be iterated without further checks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "prover_core/field/bigint.hpp"
#include "prover_core/groth16/bin_file.hpp"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/io/mapped_file.hpp"

namespace provd::groth16 {

struct R1csHeader {
  CurveId curve = CurveId::kBn254;  // from the prime of section 1
  uint32_t n_wires = 0;             // witness[0] is the constant 1
  uint32_t n_outputs = 0;
  uint32_t n_public_inputs = 0;
  uint32_t n_private_inputs = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;

  // Public signals as a zkey counts them: outputs, then public inputs.
  uint32_t n_public() const { return n_outputs + n_public_inputs; }
};

// One term of a linear combination.
struct R1csTerm {
  uint32_t wire;
  field::BigInt<4> value;  // normal form, below the scalar field prime
};

// A view of one linear combination inside the mapped file.
class R1csCombination {
 public:
  static constexpr size_t kTermBytes = 4 + 32;

  R1csCombination(std::span<const uint8_t> terms) : terms_(terms) {}
  size_t size() const { return terms_.size() / kTermBytes; }
  R1csTerm operator[](size_t i) const {
    return {ReadU32(terms_, i * kTermBytes),
            field::BigInt<4>::FromBytesLE(terms_.subspan(i * kTermBytes + 4, 32))};
  }

 private:
  std::span<const uint8_t> terms_;
};

struct R1csConstraint {
  R1csCombination a, b, c;
};

class R1csFile {
 public:
  // INVALID_ARGUMENT naming the file and the section for anything malformed or unsupported:
  // a field other than bn128's or bls12381's scalar field, a wire outside the header's count,
  // a value not below the prime, a constraint section longer or shorter than its constraints,
  // custom gates (PLONK-only circom output).
  static absl::StatusOr<std::shared_ptr<const R1csFile>> Open(const std::string& path);
  static absl::StatusOr<std::shared_ptr<const R1csFile>> Parse(io::MappedFile file);

  const R1csHeader& header() const { return header_; }
  const std::string& path() const { return file_.path(); }

  // Calls visit(index, constraint) for every constraint in file order.
  template <typename Visit>
  void ForEachConstraint(Visit&& visit) const {
    size_t at = 0;
    for (uint32_t i = 0; i < header_.n_constraints; ++i) {
      R1csCombination lc[3] = {Next(at), Next(at), Next(at)};
      visit(i, R1csConstraint{lc[0], lc[1], lc[2]});
    }
  }

 private:
  R1csFile(io::MappedFile file, BinFile container)
      : file_(std::move(file)), container_(std::move(container)) {}
  absl::Status ParseHeader();
  absl::Status CheckConstraints();
  // The combination starting at `at` (checked by CheckConstraints); moves `at` past it.
  R1csCombination Next(size_t& at) const {
    const size_t count = ReadU32(constraints_, at);
    R1csCombination lc(constraints_.subspan(at + 4, count * R1csCombination::kTermBytes));
    at += 4 + count * R1csCombination::kTermBytes;
    return lc;
  }

  io::MappedFile file_;
  BinFile container_;
  R1csHeader header_;
  std::span<const uint8_t> constraints_;
};

}  // namespace provd::groth16
