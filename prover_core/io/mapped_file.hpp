// A read-only memory map of a whole file, released on destruction. Proving keys are often GBs:
// mapping them lets the prover read the sections it needs in chunks without copying the file
// into RAM. The file must never be truncated or rewritten in place while mapped: reading a page
// past a truncation kills the process with SIGBUS. Replace keys by rename (write a new file,
// then rename it over the old one); `cp` onto a key in use is exactly what must not happen.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace provd::io {

class MappedFile {
 public:
  // NOT_FOUND when the file does not exist, INVALID_ARGUMENT when it is not a regular file or is
  // empty, other codes for I/O errors; every message names the path.
  static absl::StatusOr<MappedFile> Open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // Drops the whole pages of bytes [offset, offset + size) from this process's resident memory
  // (they stay in the page cache; reading them again faults them back in): for a big input
  // read once, e.g. a trace copied into its extension, so that it does not count against the
  // process until it ends.
  void DropResidentPages(size_t offset, size_t size) const;
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, const uint8_t* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  void Unmap();

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace provd::io
