#include "daemon/stark_tree_file.hpp"

#include <array>
#include <span>

#include "daemon/atomic_file.hpp"

namespace provd::daemon {
namespace {

template <typename Word>
std::span<const uint8_t> AsBytes(std::span<const Word> words) {
  static_assert(sizeof(Word) == sizeof(uint64_t), "the file holds little-endian u64");
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()};
}

}  // namespace

absl::Status WriteTreeFile(const std::filesystem::path& path,
                           const stark::TraceCommitment& commitment, unsigned mode) {
  const std::array<uint64_t, 2> header = stark::TreeFileHeader(commitment);
  const std::span<const uint8_t> parts[] = {
      {reinterpret_cast<const uint8_t*>(header.data()), sizeof header},
      AsBytes(std::span<const stark::Goldilocks>(commitment.extended)),
      AsBytes(std::span<const uint64_t>(commitment.nodes))};
  return WriteFileAtomically(path, parts, mode);
}

}  // namespace provd::daemon
