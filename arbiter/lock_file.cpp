#include "arbiter/lock_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace provd::arbiter {
namespace {

struct flock WholeFile(short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // to the end, however long
  fl.l_pid = 0;  // must be 0 for OFD locks
  return fl;
}

short LockType(LockMode mode) {
  return static_cast<short>(mode == LockMode::kShared ? F_RDLCK : F_WRLCK);
}

}  // namespace

absl::StatusOr<LockFile> LockFile::Open(const LockDir& dir, const std::string& name) {
  const std::string path = dir.File(name).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0660);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock file ", path, ": cannot open: ", std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat("lock file ", path, ": not a regular file"));
  }
  // Group-shared like the directory (the umask would drop the group write bit); a file someone
  // else created stays as it is (EPERM).
  (void)::fchmod(fd, 0660);
  return LockFile(fd);
}

absl::StatusOr<LockFile> LockFile::OpenExisting(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock file ", path.string(), ": cannot open: ", std::strerror(errno)));
  }
  return LockFile(fd);
}

absl::Status LockFile::CheckLocksWork() const {
  struct flock fl = WholeFile(F_WRLCK);
  while (::fcntl(fd_, F_OFD_GETLK, &fl) != 0) {
    if (errno == EINTR) continue;
    return absl::FailedPreconditionError(
        absl::StrCat("lock dir: open-file-description locks do not work here (",
                     std::strerror(errno), "); put the lock dir on a local file system"));
  }
  return absl::OkStatus();
}

LockFile::LockFile(LockFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), locked_(std::exchange(other.locked_, false)) {}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    locked_ = std::exchange(other.locked_, false);
  }
  return *this;
}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool LockFile::TryLock(LockMode mode) {
  struct flock fl = WholeFile(LockType(mode));
  while (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    if (errno == EINTR) continue;
    // EAGAIN/EACCES: held by someone else. Anything else (EBADF, ENOLCK) would be a bug or an
    // exhausted kernel table; either way the lock is not ours.
    return false;
  }
  locked_ = true;
  return true;
}

void LockFile::Unlock() {
  if (!locked_) return;
  struct flock fl = WholeFile(F_UNLCK);
  while (::fcntl(fd_, F_OFD_SETLK, &fl) != 0 && errno == EINTR) {
  }
  locked_ = false;
}

void LockFile::WriteRecord(const std::string& text) {
  if (::ftruncate(fd_, 0) != 0) return;
  (void)::pwrite(fd_, text.data(), text.size(), 0);
}

bool LockFile::OthersHold(LockMode mode) const {
  struct flock fl = WholeFile(LockType(mode));
  while (::fcntl(fd_, F_OFD_GETLK, &fl) != 0) {
    if (errno != EINTR) return false;
  }
  return fl.l_type != F_UNLCK;
}

}  // namespace provd::arbiter
