#include "prover_core/groth16/bin_file.hpp"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace provd::groth16 {

uint32_t ReadU32(std::span<const uint8_t> bytes, size_t offset) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= static_cast<uint32_t>(bytes[offset + i]) << (8 * i);
  return v;
}

uint64_t ReadU64(std::span<const uint8_t> bytes, size_t offset) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(bytes[offset + i]) << (8 * i);
  return v;
}

absl::StatusOr<BinFile> BinFile::Parse(std::span<const uint8_t> bytes, absl::string_view magic,
                                       uint32_t version, std::string label) {
  BinFile file;
  file.label_ = std::move(label);
  auto error = [&](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(file.label_, ": ", parts...));
  };
  constexpr size_t kHeader = 12;
  if (bytes.size() < kHeader) {
    return error("truncated header (", bytes.size(), " bytes; not a .", magic, " file?)");
  }
  if (std::memcmp(bytes.data(), magic.data(), 4) != 0) {
    return error("not a .", magic, " file (bad magic)");
  }
  const uint32_t file_version = ReadU32(bytes, 4);
  if (file_version != version) {
    return error("unsupported .", magic, " version ", file_version, " (expected ", version, ")");
  }
  const uint32_t count = ReadU32(bytes, 8);
  size_t offset = kHeader;
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.size() - offset < 12) {
      return error("truncated: section header ", i, " of ", count, " at offset ", offset,
                   " runs past the end of the file");
    }
    const uint32_t id = ReadU32(bytes, offset);
    const uint64_t size = ReadU64(bytes, offset + 4);
    offset += 12;
    if (size > bytes.size() - offset) {
      return error("truncated: section ", id, " at offset ", offset, " declares ", size,
                   " bytes but only ", bytes.size() - offset, " remain");
    }
    if (!file.sections_.emplace(id, bytes.subspan(offset, size)).second) {
      return error("section ", id, " appears twice");
    }
    offset += size;
  }
  if (offset != bytes.size()) {
    return error(bytes.size() - offset, " unexpected bytes after the last section");
  }
  return file;
}

absl::StatusOr<std::span<const uint8_t>> BinFile::Section(uint32_t id,
                                                          absl::string_view what) const {
  auto it = sections_.find(id);
  if (it == sections_.end()) {
    return absl::InvalidArgumentError(SectionError(id, what, "missing"));
  }
  return it->second;
}

absl::StatusOr<std::span<const uint8_t>> BinFile::SectionOfSize(uint32_t id, absl::string_view what,
                                                                uint64_t size) const {
  absl::StatusOr<std::span<const uint8_t>> body = Section(id, what);
  if (!body.ok()) return body;
  if (body->size() != size) {
    return absl::InvalidArgumentError(
        SectionError(id, what, absl::StrCat("expected ", size, " bytes, found ", body->size())));
  }
  return body;
}

std::string BinFile::SectionError(uint32_t id, absl::string_view what,
                                  absl::string_view detail) const {
  return absl::StrCat(label_, ": section ", id, " (", what, "): ", detail);
}

}  // namespace provd::groth16
