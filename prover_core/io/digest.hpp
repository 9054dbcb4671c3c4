// SHA-256 and SHA-512 (OpenSSL), for binding proofs to their inputs and naming blobs.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace provd::io {

using Sha256Digest = std::array<uint8_t, 32>;
using Sha512Digest = std::array<uint8_t, 64>;

// The digest of the concatenation of `parts`.
Sha256Digest Sha256(std::initializer_list<std::span<const uint8_t>> parts);
Sha512Digest Sha512(std::initializer_list<std::span<const uint8_t>> parts);

}  // namespace provd::io
