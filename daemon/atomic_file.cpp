#include "daemon/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace provd::daemon {

absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const std::span<const uint8_t>> parts, unsigned mode) {
  std::string temp = path.string() + ".tmpXXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  auto fail = [&](const char* step) {
    const int error = errno;
    return absl::FailedPreconditionError(
        absl::StrCat(path.string(), ": cannot ", step, ": ", std::strerror(error)));
  };
  if (fd < 0) return fail("create a temp file beside it");
  bool ok = ::fchmod(fd, static_cast<mode_t>(mode)) == 0;
  for (std::span<const uint8_t> contents : parts) {
    size_t written = 0;
    while (ok && written < contents.size()) {
      const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
      if (n < 0 && errno == EINTR) continue;
      ok = n > 0;
      if (ok) written += static_cast<size_t>(n);
    }
  }
  ok = ok && ::fsync(fd) == 0;
  absl::Status status = ok ? absl::OkStatus() : fail("write");
  ::close(fd);
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) status = fail("rename into place");
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const uint8_t> contents, unsigned mode) {
  const std::span<const uint8_t> parts[] = {contents};
  return WriteFileAtomically(path, parts, mode);
}

absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  return WriteFileAtomically(
      path, std::span(reinterpret_cast<const uint8_t*>(contents.data()), contents.size()));
}

absl::Status WriteFileDurably(const std::filesystem::path& path, std::string_view contents,
                              unsigned mode) {
  if (absl::Status s = WriteFileAtomically(
          path, std::span(reinterpret_cast<const uint8_t*>(contents.data()), contents.size()),
          mode);
      !s.ok()) {
    return s;
  }
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(dir.string(), ": cannot sync the directory: ", std::strerror(error)));
  }
  ::close(fd);
  return absl::OkStatus();
}

}  // namespace provd::daemon
