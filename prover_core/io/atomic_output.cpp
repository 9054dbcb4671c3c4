#include "prover_core/io/atomic_output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace provd::io {

absl::StatusOr<AtomicOutput> AtomicOutput::Create(const std::filesystem::path& path,
                                                  unsigned mode) {
  if (absl::Status s = CheckNameLength(path.filename().string()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": ", s.message()));
  }
  std::string temp = absl::StrCat(path.string(), kTempMarker, "XXXXXX");
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        path.string(), ": cannot create a temp file beside it: ", std::strerror(error)));
  }
  AtomicOutput out(path, std::move(temp), fd);
  // Held until the file is renamed or removed: SweepAbandonedTemps leaves a locked file alone.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return out.Fail("lock its temp file");
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
  // Renamed while the fd (and so the flock) is still held, so that a sweep never sees an
  // unlocked temp file that is about to be committed. After the fsync, close reports nothing.
  const int fd = std::exchange(fd_, -1);
  struct CloseAtExit {
    int fd;
    ~CloseAtExit() { ::close(fd); }
  } close_at_exit{fd};
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
  return SyncDirectory(path_.has_parent_path() ? path_.parent_path() : ".");
}

bool AtomicOutput::IsTempName(absl::string_view file_name) {
  if (file_name.size() < kTempSuffixSize) return false;
  return file_name.substr(file_name.size() - kTempSuffixSize, kTempMarker.size()) == kTempMarker;
}

absl::Status AtomicOutput::CheckNameLength(absl::string_view file_name) {
  if (file_name.size() + kTempSuffixSize <= NAME_MAX) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the file name is ", file_name.size(), " bytes long; at most ",
                   NAME_MAX - kTempSuffixSize, " (room is kept for a temp file's suffix)"));
}

absl::Status SyncDirectory(const std::filesystem::path& dir) {
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

namespace {

// Removes `path` when no writer holds it: our lock on the file proves its writer is gone.
bool RemoveIfAbandoned(const std::filesystem::path& path, std::chrono::seconds min_age) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  bool removed = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      ::time(nullptr) - st.st_mtime >= min_age.count() && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    // Unlinked while locked, so a writer cannot pick it up between our check and the unlink.
    removed = ::unlink(path.c_str()) == 0;
  }
  ::close(fd);
  return removed;
}

}  // namespace

size_t SweepAbandonedTemps(const std::filesystem::path& dir, std::chrono::seconds min_age) {
  namespace fs = std::filesystem;
  size_t removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (it->symlink_status(entry_ec).type() != fs::file_type::regular) continue;
    if (!AtomicOutput::IsTempName(it->path().filename().string())) continue;
    if (RemoveIfAbandoned(it->path(), min_age)) ++removed;
  }
  return removed;
}

}  // namespace provd::io
