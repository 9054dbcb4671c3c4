#include "client/local_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace provd::client {
namespace {

// errno as a status whose code a caller can test and whose message names the file.
absl::Status ErrnoStatus(int error, const std::string& path, absl::string_view action) {
  std::string message = absl::StrCat(path, ": cannot ", action, ": ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

// The directory a file named `path` goes into ("." for a bare name).
std::string DirectoryOf(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

absl::Status WriteAll(int fd, absl::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::InternalError(std::strerror(errno));
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, path, "read");
  std::string contents;
  char buffer[1 << 16];
  int error = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;  // EISDIR for a directory
    if (n <= 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  if (error != 0) return ErrnoStatus(error, path, "read");
  return contents;
}

absl::StatusOr<std::string> ReadPemFile(const std::string& path) {
  absl::StatusOr<std::string> pem = ReadWholeFile(path);
  if (pem.ok() && !absl::StrContains(*pem, "-----BEGIN ")) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a PEM file (no -----BEGIN)"));
  }
  return pem;
}

std::string StripTrailingNewline(absl::string_view text) {
  if (absl::ConsumeSuffix(&text, "\n")) absl::ConsumeSuffix(&text, "\r");
  return std::string(text);
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  absl::StatusOr<std::string> contents = ReadWholeFile(path);
  if (!contents.ok()) return contents.status();
  std::string token = StripTrailingNewline(*contents);
  if (token.empty()) return absl::FailedPreconditionError(absl::StrCat(path, ": empty token"));
  return token;
}

absl::Status CheckWritableDestination(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory"));
  }
  const std::string dir = DirectoryOf(path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return ErrnoStatus(errno, dir, "write into");
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  std::string temp = absl::StrCat(path, ".tmpXXXXXX");
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, DirectoryOf(path), "create a temp file in");
  absl::Status status = WriteAll(fd, contents);
  // mkostemp creates 0600; proofs and public signals are not secrets, and readers (verifiers,
  // other users' scripts) expect an ordinary file.
  if (status.ok() && (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0)) {
    status = absl::InternalError(std::strerror(errno));
  }
  if (::close(fd) != 0 && status.ok()) status = absl::InternalError(std::strerror(errno));
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus(errno, path, "rename a temp file onto");
  } else if (!status.ok()) {
    status = absl::Status(status.code(), absl::StrCat(path, ": cannot write: ", status.message()));
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

}  // namespace provd::client
