#include "daemon/file_upload.hpp"

#include <sys/statvfs.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "prover_core/io/resolve_inside.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

std::string Hex(std::span<const uint8_t> bytes) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

absl::StatusOr<FileUpload> FileUpload::Begin(const provd::v1::UploadBegin& begin,
                                             const std::filesystem::path& dir,
                                             absl::string_view dir_label) {
  absl::StatusOr<std::filesystem::path> path =
      io::ResolveNewInside(dir, begin.name(), "file", dir_label);
  if (!path.ok()) {
    // A directory of the daemon's that is missing is not the caller's mistake.
    if (!absl::IsInvalidArgument(path.status()) && !absl::IsNotFound(path.status())) {
      return path.status();
    }
    return absl::InvalidArgumentError(absl::StrCat("begin.name: ", path.status().message()));
  }
  const std::string file_name = path->filename().string();
  if (io::AtomicOutput::IsTempName(file_name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("begin.name: \"", begin.name(), "\" ends like provd's temp files (\"",
                     io::AtomicOutput::kTempMarker, "XXXXXX\"); choose another name"));
  }
  if (absl::Status s = io::AtomicOutput::CheckNameLength(file_name); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("begin.name: ", s.message()));
  }
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(*path, ec);
  if (std::filesystem::exists(status)) {
    if (!begin.replace()) {
      return absl::AlreadyExistsError(
          absl::StrCat("begin.name: \"", begin.name(), "\" exists in ", dir_label,
                       "; set begin.replace (provctl: --replace) to replace it"));
    }
    if (!std::filesystem::is_regular_file(status)) {
      return absl::InvalidArgumentError(
          absl::StrCat("begin.name: \"", begin.name(), "\" is not a regular file"));
    }
  }
  struct statvfs fs {};
  if (::statvfs(path->parent_path().c_str(), &fs) == 0 &&
      uint64_t{fs.f_bavail} * fs.f_frsize < begin.size()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "begin.size: ", begin.size(), " bytes do not fit: ", uint64_t{fs.f_bavail} * fs.f_frsize,
        " bytes free in ", dir_label));
  }
  absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(*path);
  if (!out.ok()) return out.status();
  return FileUpload(begin.name(), begin.size(), begin.replace(), *std::move(out));
}

absl::Status FileUpload::Append(std::span<const uint8_t> data) {
  if (data.size() > size_ - out_.bytes_written()) {
    return absl::InvalidArgumentError(
        absl::StrCat("data: more than the ", size_, " bytes that begin.size declared"));
  }
  digest_.Update(data);
  return out_.Write(data);
}

absl::StatusOr<provd::v1::UploadFileResponse> FileUpload::End(const provd::v1::UploadEnd& end,
                                                              const UploadCheck& check) {
  if (out_.bytes_written() != size_) {
    return absl::InvalidArgumentError(
        absl::StrCat("end: ", out_.bytes_written(), " of the ", size_, " declared bytes arrived"));
  }
  const io::Sha256Digest digest = digest_.Finish();
  const std::string& claimed = end.sha256();
  if (claimed.size() != digest.size() ||
      !std::equal(digest.begin(), digest.end(), reinterpret_cast<const uint8_t*>(claimed.data()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("end.sha256: the bytes received have SHA-256 ", Hex(digest), ", not ",
                     Hex({reinterpret_cast<const uint8_t*>(claimed.data()), claimed.size()})));
  }
  if (check) {
    if (absl::Status s = check(out_.temp_path()); !s.ok()) return s;
  }
  // Without replace, a file of that name may have appeared since `begin` (another upload).
  absl::Status committed = replace_ ? out_.Commit() : out_.CommitNew();
  if (absl::IsAlreadyExists(committed)) {
    return absl::AlreadyExistsError(
        absl::StrCat("begin.name: \"", name_, "\" was created by someone else during this upload"));
  }
  if (!committed.ok()) return committed;
  // The file is in place and readable: an error now would tell the client it is not. A failed
  // directory sync risks only the rename's durability over a power loss, which the log says.
  if (absl::Status synced = io::SyncDirectory(out_.path().parent_path()); !synced.ok()) {
    spdlog::warn("upload of \"{}\" is in place, but may not survive a power loss: {}", name_,
                 std::string(synced.message()));
  }
  provd::v1::UploadFileResponse response;
  response.set_name(name_);
  response.set_size(size_);
  response.set_sha256(std::string(reinterpret_cast<const char*>(digest.data()), digest.size()));
  return response;
}

}  // namespace provd::daemon
