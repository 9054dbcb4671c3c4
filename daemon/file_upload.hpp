// The receiving end of UploadFile: a file that arrives in chunks goes into a temp file beside
// its final name and is renamed into place only when every declared byte is there, the SHA-256
// matches and the content check passes (a key must read as a zkey). Anything else (an error, a
// client that goes away, a daemon that stops) destroys the upload, which removes the temp file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "provd/v1/prover.pb.h"
#include "prover_core/io/atomic_output.hpp"
#include "prover_core/io/digest.hpp"

namespace provd::daemon {

// Checks the complete temp file before it gets its name; the error names what is wrong.
using UploadCheck = std::function<absl::Status(const std::string& temp_path)>;

class FileUpload {
 public:
  // After the `begin` message: the name resolved inside `dir` (its parent must exist there),
  // ALREADY_EXISTS without begin.replace, RESOURCE_EXHAUSTED when the file system has less
  // room than begin.size.
  static absl::StatusOr<FileUpload> Begin(const provd::v1::UploadBegin& begin,
                                          const std::filesystem::path& dir,
                                          absl::string_view dir_label);

  // INVALID_ARGUMENT when the bytes go past the declared size.
  absl::Status Append(std::span<const uint8_t> data);
  // INVALID_ARGUMENT for a short upload or a digest that does not match, the check's error, or
  // the rename's; on success the file is in place.
  absl::StatusOr<provd::v1::UploadFileResponse> End(const provd::v1::UploadEnd& end,
                                                    const UploadCheck& check);

  const std::string& name() const { return name_; }

 private:
  FileUpload(std::string name, uint64_t size, bool replace, io::AtomicOutput out)
      : name_(std::move(name)), size_(size), replace_(replace), out_(std::move(out)) {}

  std::string name_;
  uint64_t size_;
  bool replace_;
  io::AtomicOutput out_;
  io::Sha256Stream digest_;
};

}  // namespace provd::daemon
