#include "prover_core/groth16/randomness.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace provd::groth16 {
namespace {

std::array<uint8_t, 4> U32Le(uint32_t v) {
  return {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
          static_cast<uint8_t>(v >> 24)};
}

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

absl::StatusOr<WideBytes> DrawWide(std::string_view label,
                                   const std::optional<std::vector<uint8_t>>& seed,
                                   std::span<const uint8_t> binding, uint32_t attempt) {
  WideBytes out{};
  if (!seed.has_value()) {
    size_t filled = 0;
    while (filled < out.size()) {
      const ssize_t got = ::getrandom(out.data() + filled, out.size() - filled, 0);
      if (got < 0) {
        if (errno == EINTR) continue;
        return absl::UnavailableError(absl::StrCat("getrandom failed: ", std::strerror(errno)));
      }
      filled += static_cast<size_t>(got);
    }
    return out;
  }
  const auto seed_length = U32Le(static_cast<uint32_t>(seed->size()));
  const auto attempt_bytes = U32Le(attempt);
  return io::Sha512(
      {Bytes("provd/groth16/v1/"), Bytes(label), seed_length, *seed, binding, attempt_bytes});
}

}  // namespace provd::groth16
