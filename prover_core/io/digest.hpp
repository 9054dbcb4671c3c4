// SHA-256 and SHA-512 (OpenSSL), for binding proofs to their inputs and naming blobs.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace provd::io {

using Sha256Digest = std::array<uint8_t, 32>;
using Sha512Digest = std::array<uint8_t, 64>;

// The digest of the concatenation of `parts`.
Sha256Digest Sha256(std::initializer_list<std::span<const uint8_t>> parts);
Sha512Digest Sha512(std::initializer_list<std::span<const uint8_t>> parts);

// SHA-256 of bytes that arrive in pieces (an upload's chunks).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(Sha256Stream&&) noexcept;
  Sha256Stream& operator=(Sha256Stream&&) noexcept;
  void Update(std::span<const uint8_t> bytes);
  // The digest of everything so far; the stream may not be updated afterwards.
  Sha256Digest Finish();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// SHA-256 of a whole file, read once in large pieces, with the number of bytes read (which may
// differ from an earlier stat when the file changes meanwhile). NOT_FOUND / FAILED_PRECONDITION
// naming the path when it cannot be read.
struct FileDigest {
  Sha256Digest sha256;
  uint64_t size = 0;
};
absl::StatusOr<FileDigest> Sha256OfFile(const std::string& path);

}  // namespace provd::io
