#include "daemon/stark_tree_file.hpp"

#include <array>
#include <span>

#include "daemon/atomic_file.hpp"

namespace provd::daemon {
namespace {

std::span<const uint8_t> AsBytes(std::span<const stark::Goldilocks> elements) {
  return {reinterpret_cast<const uint8_t*>(elements.data()), elements.size_bytes()};
}

}  // namespace

absl::Status WriteTreeFile(const std::filesystem::path& path,
                           const stark::TraceCommitment& commitment, unsigned mode) {
  const std::array<uint64_t, 2> header = stark::TreeFileHeader(commitment);
  const std::span<const uint8_t> parts[] = {
      {reinterpret_cast<const uint8_t*>(header.data()), sizeof header},
      AsBytes(commitment.extended),
      AsBytes(commitment.nodes)};
  return WriteFileAtomically(path, parts, mode);
}

}  // namespace provd::daemon
