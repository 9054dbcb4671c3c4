#include "prover_core/io/digest.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace provd::io {
namespace {

// OpenSSL digests fail only on allocation failure or a broken library; neither is recoverable
// here, and returning a wrong digest silently would be worse than stopping.
template <size_t N>
std::array<uint8_t, N> Digest(const EVP_MD* md,
                              std::initializer_list<std::span<const uint8_t>> parts) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  std::array<uint8_t, N> out{};
  unsigned int length = 0;
  bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1;
  for (std::span<const uint8_t> part : parts) {
    ok = ok && EVP_DigestUpdate(ctx.get(), part.data(), part.size()) == 1;
  }
  ok = ok && EVP_DigestFinal_ex(ctx.get(), out.data(), &length) == 1 && length == N;
  if (!ok) std::abort();
  return out;
}

}  // namespace

Sha256Digest Sha256(std::initializer_list<std::span<const uint8_t>> parts) {
  return Digest<32>(EVP_sha256(), parts);
}

Sha512Digest Sha512(std::initializer_list<std::span<const uint8_t>> parts) {
  return Digest<64>(EVP_sha512(), parts);
}

struct Sha256Stream::Context {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
};

Sha256Stream::Sha256Stream() : context_(std::make_unique<Context>()) {
  if (context_->ctx == nullptr ||
      EVP_DigestInit_ex(context_->ctx.get(), EVP_sha256(), nullptr) != 1)
    std::abort();
}
Sha256Stream::~Sha256Stream() = default;
Sha256Stream::Sha256Stream(Sha256Stream&&) noexcept = default;
Sha256Stream& Sha256Stream::operator=(Sha256Stream&&) noexcept = default;

void Sha256Stream::Update(std::span<const uint8_t> bytes) {
  if (EVP_DigestUpdate(context_->ctx.get(), bytes.data(), bytes.size()) != 1) std::abort();
}

Sha256Digest Sha256Stream::Finish() {
  Sha256Digest out{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->ctx.get(), out.data(), &length) != 1 || length != out.size())
    std::abort();
  return out;
}

absl::StatusOr<FileDigest> Sha256OfFile(const std::string& path) {
  const auto unreadable = [&path](int error) {
    const std::string message = absl::StrCat(path, ": cannot be read: ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message) : absl::FailedPreconditionError(message);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return unreadable(errno);
  Sha256Stream digest;
  std::vector<uint8_t> buffer(size_t{1} << 20);
  FileDigest result;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return unreadable(error);
    }
    if (n == 0) break;
    digest.Update({buffer.data(), static_cast<size_t>(n)});
    result.size += static_cast<uint64_t>(n);
  }
  ::close(fd);
  result.sha256 = digest.Finish();
  return result;
}

}  // namespace provd::io
