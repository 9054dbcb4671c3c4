#include "prover_core/io/atomic_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace provd::io {

absl::StatusOr<AtomicOutput> AtomicOutput::Create(const std::filesystem::path& path,
                                                  unsigned mode) {
  std::string temp = path.string() + ".tmpXXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        path.string(), ": cannot create a temp file beside it: ", std::strerror(error)));
  }
  AtomicOutput out(path, std::move(temp), fd);
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return out.Fail("set the file mode");
  return out;
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      written_(other.written_) {}

AtomicOutput& AtomicOutput::operator=(AtomicOutput&& other) noexcept {
  if (this != &other) {
    Abandon();
    path_ = std::move(other.path_);
    temp_ = std::move(other.temp_);
    fd_ = std::exchange(other.fd_, -1);
    written_ = other.written_;
  }
  return *this;
}

AtomicOutput::~AtomicOutput() { Abandon(); }

void AtomicOutput::Abandon() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temp_.c_str());
  fd_ = -1;
}

absl::Status AtomicOutput::Fail(const char* step) const {
  const int error = errno;
  return absl::FailedPreconditionError(
      absl::StrCat(path_.string(), ": cannot ", step, ": ", std::strerror(error)));
}

absl::Status AtomicOutput::Write(std::span<const uint8_t> bytes) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_.string(), ": written after it was committed"));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return Fail("write");
    }
    done += static_cast<size_t>(n);
  }
  written_ += done;
  return absl::OkStatus();
}

absl::Status AtomicOutput::Commit(bool sync_directory) {
  return CommitImpl(sync_directory, /*replace=*/true);
}

absl::Status AtomicOutput::CommitNew(bool sync_directory) {
  return CommitImpl(sync_directory, /*replace=*/false);
}

absl::Status AtomicOutput::CommitImpl(bool sync_directory, bool replace) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_.string(), ": committed twice or after a failure"));
  }
  if (::fsync(fd_) != 0) return Fail("write");
  if (::close(std::exchange(fd_, -1)) != 0) {
    absl::Status status = Fail("write");
    ::unlink(temp_.c_str());
    return status;
  }
  int renamed = 0;
  if (replace) {
    renamed = ::rename(temp_.c_str(), path_.c_str());
  } else {
    renamed = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
    // File systems without RENAME_NOREPLACE: link() refuses an existing name just the same.
    if (renamed != 0 && errno == EINVAL) {
      renamed = ::link(temp_.c_str(), path_.c_str());
      if (renamed == 0) ::unlink(temp_.c_str());
    }
  }
  if (renamed != 0) {
    if (!replace && errno == EEXIST) {
      ::unlink(temp_.c_str());
      return absl::AlreadyExistsError(
          absl::StrCat(path_.string(), ": a file of that name appeared meanwhile"));
    }
    absl::Status status = Fail("rename into place");
    ::unlink(temp_.c_str());
    return status;
  }
  if (!sync_directory) return absl::OkStatus();
  const std::filesystem::path dir = path_.has_parent_path() ? path_.parent_path() : ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
    const int error = errno;
    if (dir_fd >= 0) ::close(dir_fd);
    return absl::FailedPreconditionError(
        absl::StrCat(dir.string(), ": cannot sync the directory: ", std::strerror(error)));
  }
  ::close(dir_fd);
  return absl::OkStatus();
}

}  // namespace provd::io
