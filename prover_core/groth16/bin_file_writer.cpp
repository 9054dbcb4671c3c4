#include "prover_core/groth16/bin_file_writer.hpp"

#include <array>

#include "absl/strings/str_cat.h"

namespace provd::groth16 {
namespace {

template <typename T>
std::array<uint8_t, sizeof(T)> LittleEndian(T v) {
  std::array<uint8_t, sizeof(T)> bytes;
  for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
  return bytes;
}

}  // namespace

absl::StatusOr<BinFileWriter> BinFileWriter::Start(io::AtomicOutput& out, absl::string_view magic,
                                                   uint32_t version, uint32_t sections) {
  if (magic.size() != 4) return absl::InternalError("a container magic has 4 bytes");
  if (absl::Status s = out.Write({reinterpret_cast<const uint8_t*>(magic.data()), 4}); !s.ok())
    return s;
  for (uint32_t v : {version, sections}) {
    if (absl::Status s = out.Write(LittleEndian(v)); !s.ok()) return s;
  }
  return BinFileWriter(out, sections);
}

absl::Status BinFileWriter::BeginSection(uint32_t id, uint64_t size) {
  if (section_ != 0 || sections_left_ == 0 || id == 0) {
    return absl::InternalError(absl::StrCat("section ", id, " begun out of order"));
  }
  if (absl::Status s = out_->Write(LittleEndian(id)); !s.ok()) return s;
  if (absl::Status s = out_->Write(LittleEndian(size)); !s.ok()) return s;
  section_ = id;
  declared_ = size;
  written_ = 0;
  return absl::OkStatus();
}

absl::Status BinFileWriter::Write(std::span<const uint8_t> bytes) {
  if (section_ == 0) return absl::InternalError("bytes written outside a section");
  written_ += bytes.size();
  return out_->Write(bytes);
}

absl::Status BinFileWriter::WriteU32(uint32_t v) { return Write(LittleEndian(v)); }

absl::Status BinFileWriter::EndSection() {
  if (section_ == 0 || written_ != declared_) {
    return absl::InternalError(
        absl::StrCat("section ", section_, ": declared ", declared_, " bytes, wrote ", written_));
  }
  section_ = 0;
  --sections_left_;
  return absl::OkStatus();
}

absl::Status BinFileWriter::Finish() {
  if (section_ != 0 || sections_left_ != 0) {
    return absl::InternalError(absl::StrCat(sections_left_, " declared sections not written"));
  }
  return out_->Commit();
}

}  // namespace provd::groth16
