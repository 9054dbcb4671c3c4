// The container shared by iden3's binary formats (.wtns, .zkey, .r1cs): a 4-byte magic, a u32
// version, a u32 section count, then sections of (u32 type, u64 size, body), little-endian, in
// any order. Parsing indexes and bounds-checks every section before anyone reads a body.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace provd::groth16 {

// Little-endian reads from a byte span whose bounds the caller has checked.
uint32_t ReadU32(std::span<const uint8_t> bytes, size_t offset);
uint64_t ReadU64(std::span<const uint8_t> bytes, size_t offset);

class BinFile {
 public:
  // Parses the header and the section table of `bytes`. `label` (usually the path) starts every
  // error message. INVALID_ARGUMENT for a wrong magic, a version other than `version`, a
  // truncated header or section, a section repeated, or bytes after the last section.
  static absl::StatusOr<BinFile> Parse(std::span<const uint8_t> bytes, absl::string_view magic,
                                       uint32_t version, std::string label);

  // The body of section `id`; INVALID_ARGUMENT naming `what` when the file has none.
  absl::StatusOr<std::span<const uint8_t>> Section(uint32_t id, absl::string_view what) const;
  // The body of section `id`, which must be exactly `size` bytes long.
  absl::StatusOr<std::span<const uint8_t>> SectionOfSize(uint32_t id, absl::string_view what,
                                                         uint64_t size) const;

  // "<label>: section <id> (<what>): <detail>", the shape of every error about a section.
  std::string SectionError(uint32_t id, absl::string_view what, absl::string_view detail) const;
  const std::string& label() const { return label_; }

 private:
  std::string label_;
  std::map<uint32_t, std::span<const uint8_t>> sections_;
};

}  // namespace provd::groth16
