#include "prover_core/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace provd::io {
namespace {

absl::Status ErrnoError(int error, const std::string& path, const char* what) {
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  if (error == ENOMEM) return absl::ResourceExhaustedError(message);
  return absl::UnavailableError(message);
}

// Closes the descriptor on every path; the mapping stays valid after close.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return ErrnoError(errno, path, "cannot open");
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) return ErrnoError(errno, path, "cannot stat");
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  if (st.st_size == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": empty file"));
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (data == MAP_FAILED) return ErrnoError(errno, path, "cannot map");
  return MappedFile(path, static_cast<const uint8_t*>(data), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { Unmap(); }

void MappedFile::DropResidentPages(size_t offset, size_t size) const {
  if (data_ == nullptr || offset >= size_) return;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  // Whole pages only: the partial pages at either end may still be read.
  const size_t begin = (offset + page - 1) / page * page;
  const size_t end = std::min(size_, offset + size) / page * page;
  if (begin >= end) return;
  // Advice only: if the kernel declines, the pages are merely counted a while longer.
  (void)::madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);
}

void MappedFile::Unmap() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace provd::io
