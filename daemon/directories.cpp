#include "daemon/directories.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace provd::daemon {
namespace {

absl::Status EnsureDirectory(const std::filesystem::path& dir, absl::string_view flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(flag, " ", dir.string(), ": cannot create: ", ec.message()));
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat(flag, " ", dir.string(), ": not a directory"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PrepareDirectories(const std::filesystem::path& data_dir,
                                const std::filesystem::path& key_dir,
                                const std::filesystem::path& inputs_dir,
                                const std::filesystem::path& outputs_dir) {
  std::error_code exists_ec;  // an unreadable parent is reported by EnsureDirectory below
  const bool created = !std::filesystem::exists(data_dir, exists_ec);
  if (absl::Status s = EnsureDirectory(data_dir, "--data-dir"); !s.ok()) return s;
  if (created) {
    std::error_code ec;  // best effort: job inputs are private, but the operator decides
    std::filesystem::permissions(data_dir, std::filesystem::perms(0750),
                                 std::filesystem::perm_options::replace, ec);
  }
  // A fresh, unpredictable name (mkostemp creates it O_EXCL): a planted symlink cannot make the
  // probe truncate someone else's file.
  std::string probe = (data_dir / ".provd-probe.XXXXXX").string();
  int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--data-dir ", data_dir.string(), ": not writable: ", std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());

  if (absl::Status s = EnsureDirectory(key_dir, "--key-dir"); !s.ok()) return s;
  std::error_code ec;
  std::filesystem::directory_iterator it(key_dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("--key-dir ", key_dir.string(), ": not readable: ", ec.message()));
  }
  if (absl::Status s = EnsureDirectory(inputs_dir, "--inputs-dir"); !s.ok()) return s;
  return EnsureDirectory(outputs_dir, "--outputs-dir");
}

}  // namespace provd::daemon
