// Reader for circom/snarkjs witness files (.wtns, version 2): section 1 holds the field (n8 and
// the prime), section 2 the values in normal form. witness[0] is the constant 1, then the
// public outputs, the public inputs and the private signals.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/field/bigint.hpp"

namespace provd::groth16 {

struct Witness {
  std::string label;                     // the path, or what the bytes came from
  field::BigInt<4> prime;                // the field the values live in
  std::vector<field::BigInt<4>> values;  // normal form, each < prime
};

// INVALID_ARGUMENT naming `label` and the section for anything malformed: a bad container,
// a field other than a 32-byte one, a count that does not match the section size, a value not
// below the prime (its index is named), or an empty witness.
absl::StatusOr<Witness> ParseWitness(std::span<const uint8_t> bytes, std::string label);
absl::StatusOr<Witness> ReadWitnessFile(const std::string& path);

}  // namespace provd::groth16
