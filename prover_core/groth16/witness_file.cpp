#include "prover_core/groth16/witness_file.hpp"

#include "absl/strings/str_cat.h"
#include "prover_core/groth16/bin_file.hpp"
#include "prover_core/io/mapped_file.hpp"

namespace provd::groth16 {
namespace {

constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kValuesSection = 2;
constexpr uint32_t kScalarBytes = 32;  // both supported curves have a 32-byte scalar field

}  // namespace

absl::StatusOr<Witness> ParseWitness(std::span<const uint8_t> bytes, std::string label) {
  absl::StatusOr<BinFile> file = BinFile::Parse(bytes, "wtns", 2, std::move(label));
  if (!file.ok()) return file.status();
  Witness witness;
  witness.label = file->label();

  constexpr uint64_t kHeaderSize = 4 + kScalarBytes + 4;
  absl::StatusOr<std::span<const uint8_t>> header = file->Section(kHeaderSection, "header");
  if (!header.ok()) return header.status();
  if (header->size() < 4) {
    return absl::InvalidArgumentError(
        file->SectionError(kHeaderSection, "header", "shorter than its n8 field"));
  }
  const uint32_t n8 = ReadU32(*header, 0);
  if (n8 != kScalarBytes) {
    return absl::InvalidArgumentError(
        file->SectionError(kHeaderSection, "header",
                           absl::StrCat("field elements of ", n8,
                                        " bytes; provd supports 32-byte scalar fields "
                                        "(bn128, bls12381)")));
  }
  header = file->SectionOfSize(kHeaderSection, "header", kHeaderSize);
  if (!header.ok()) return header.status();
  witness.prime = field::BigInt<4>::FromBytesLE(header->subspan(4, kScalarBytes));
  const uint32_t count = ReadU32(*header, 4 + kScalarBytes);
  if (count == 0) {
    return absl::InvalidArgumentError(
        file->SectionError(kHeaderSection, "header", "the witness has no values"));
  }

  absl::StatusOr<std::span<const uint8_t>> values =
      file->SectionOfSize(kValuesSection, "values", uint64_t{count} * kScalarBytes);
  if (!values.ok()) return values.status();
  witness.values.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    witness.values[i] =
        field::BigInt<4>::FromBytesLE(values->subspan(size_t{i} * kScalarBytes, kScalarBytes));
    if (witness.values[i] >= witness.prime) {
      return absl::InvalidArgumentError(file->SectionError(
          kValuesSection, "values", absl::StrCat("value ", i, " is not below the prime")));
    }
  }
  return witness;
}

absl::StatusOr<Witness> ReadWitnessFile(const std::string& path) {
  absl::StatusOr<io::MappedFile> mapped = io::MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  return ParseWitness(mapped->bytes(), path);
}

}  // namespace provd::groth16
