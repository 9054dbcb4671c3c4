#include "arbiter/lock_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace provd::arbiter {
namespace {

constexpr char kProtocolFile[] = "PROTOCOL";
constexpr mode_t kDirMode = 02770;
constexpr mode_t kFileMode = 0660;

std::string ProtocolLine() { return absl::StrCat("provd lock protocol ", kLockProtocolVersion); }

absl::Status ErrnoStatus(int err, absl::string_view what, const std::filesystem::path& path) {
  std::string message =
      absl::StrCat("lock dir: cannot ", what, " ", path.string(), ": ", std::strerror(err));
  if (err == EACCES || err == EPERM || err == EROFS) return absl::PermissionDeniedError(message);
  return absl::FailedPreconditionError(message);
}

absl::Status EnsureDirectory(const std::filesystem::path& path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status)) {
      return absl::FailedPreconditionError(
          absl::StrCat("lock dir: ", path.string(), " exists and is not a directory"));
    }
    return absl::OkStatus();
  }
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return ErrnoStatus(ec.value(), "create the parent of", path);
  }
  // mkdir applies the umask; chmod afterwards so that the group bits survive a 022 umask.
  if (::mkdir(path.c_str(), kDirMode) != 0 && errno != EEXIST) {
    return ErrnoStatus(errno, "create", path);
  }
  if (::chmod(path.c_str(), kDirMode) != 0 && errno != EPERM) {
    return ErrnoStatus(errno, "set the mode of", path);
  }
  return absl::OkStatus();
}

// Publishes the PROTOCOL file atomically (write a private temp file, then link(2), which fails
// if another process won the race), so a reader never sees a half-written file.
absl::Status PublishProtocolFile(const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / kProtocolFile;
  // mkostemp, not a pid-based name: threads of one process open lock dirs concurrently.
  std::string temp_name = (dir / absl::StrCat(".", kProtocolFile, ".XXXXXX")).string();
  int fd = ::mkostemp(temp_name.data(), O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "create a file in", dir);
  const std::filesystem::path temp = temp_name;
  const std::string line = ProtocolLine() + "\n";
  // Keep the errno of the first failure: later calls overwrite it. A short write sets none.
  int write_errno = 0;
  ssize_t n = ::write(fd, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) write_errno = n < 0 ? errno : EIO;
  if (write_errno == 0 && ::fchmod(fd, kFileMode) != 0 && errno != EPERM) write_errno = errno;
  if (write_errno == 0 && ::fsync(fd) != 0) write_errno = errno;
  ::close(fd);
  int link_errno = 0;
  if (write_errno == 0 && ::link(temp.c_str(), target.c_str()) != 0) link_errno = errno;
  ::unlink(temp.c_str());
  if (write_errno != 0) return ErrnoStatus(write_errno, "write a file in", dir);
  if (link_errno != 0 && link_errno != EEXIST) return ErrnoStatus(link_errno, "write", target);
  return absl::OkStatus();
}

absl::Status CheckProtocolFile(const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / kProtocolFile;
  // O_NOFOLLOW | O_NONBLOCK and a regular-file check: a symlink or a FIFO planted in a shared
  // lock dir must not redirect or block start-up.
  int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return ErrnoStatus(errno, "read", target);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("lock dir: ", target.string(), " is not a regular file"));
  }
  char buffer[128] = {};
  ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (n < 0) return ErrnoStatus(errno, "read", target);
  std::string line(buffer, static_cast<size_t>(n));
  line = line.substr(0, line.find('\n'));
  if (absl::StripAsciiWhitespace(line) != ProtocolLine()) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock dir: ", target.string(), " says \"", line, "\", expected \"",
                     ProtocolLine(), "\": another provd version uses this lock dir"));
  }
  return absl::OkStatus();
}

}  // namespace

std::filesystem::path DefaultLockDir() {
  std::error_code ec;
  std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
  if (ec) temp = "/tmp";
  return temp / "provd-locks";
}

absl::StatusOr<LockDir> LockDir::Open(const std::filesystem::path& path) {
  if (path.empty()) return absl::InvalidArgumentError("lock dir: the path is empty");
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return ErrnoStatus(ec.value(), "resolve", path);
  if (absl::Status s = EnsureDirectory(absolute); !s.ok()) return s;
  // Writability is checked by creating a file, not by access(2): ACLs, read-only mounts and
  // container user namespaces all fool access().
  if (absl::Status s = PublishProtocolFile(absolute); !s.ok()) return s;
  if (absl::Status s = CheckProtocolFile(absolute); !s.ok()) return s;
  return LockDir(absolute);
}

}  // namespace provd::arbiter
