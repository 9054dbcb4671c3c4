#include "daemon/atomic_file.hpp"

#include "prover_core/io/atomic_output.hpp"

namespace provd::daemon {
namespace {

absl::Status WriteParts(const std::filesystem::path& path,
                        std::span<const std::span<const uint8_t>> parts, unsigned mode,
                        bool durable) {
  absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(path, mode);
  if (!out.ok()) return out.status();
  for (std::span<const uint8_t> contents : parts) {
    if (absl::Status s = out->Write(contents); !s.ok()) return s;
  }
  return out->Commit(durable);
}

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const std::span<const uint8_t>> parts, unsigned mode) {
  return WriteParts(path, parts, mode, /*durable=*/false);
}

absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const uint8_t> contents, unsigned mode) {
  const std::span<const uint8_t> parts[] = {contents};
  return WriteParts(path, parts, mode, /*durable=*/false);
}

absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  const std::span<const uint8_t> parts[] = {AsBytes(contents)};
  return WriteParts(path, parts, 0644, /*durable=*/false);
}

absl::Status WriteFileDurably(const std::filesystem::path& path, std::string_view contents,
                              unsigned mode) {
  const std::span<const uint8_t> parts[] = {AsBytes(contents)};
  return WriteParts(path, parts, mode, /*durable=*/true);
}

}  // namespace provd::daemon
