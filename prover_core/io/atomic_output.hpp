// A file written in pieces that readers see whole or not at all: the bytes go to a temp file
// beside the target, Commit() fsyncs and renames it into place. Destroying an uncommitted
// output (an error, an early return, an interrupted upload) removes the temp file, so a failed
// write leaves nothing behind and never a truncated file under the final name. A process killed
// mid-write leaves its temp file; `SweepAbandonedTemps` removes those that no live writer holds.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace provd::io {

class AtomicOutput {
 public:
  // FAILED_PRECONDITION naming the path when the temp file cannot be created. `mode` is the
  // new file's permission bits.
  static absl::StatusOr<AtomicOutput> Create(const std::filesystem::path& path,
                                             unsigned mode = 0644);

  AtomicOutput(AtomicOutput&& other) noexcept;
  AtomicOutput& operator=(AtomicOutput&& other) noexcept;
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();

  // FAILED_PRECONDITION naming the path (disk full, I/O error); the output stays uncommitted.
  absl::Status Write(std::span<const uint8_t> bytes);
  uint64_t bytes_written() const { return written_; }

  // fsync, rename over `path`, and with `sync_directory` an fsync of the directory too, so that
  // the rename survives a power loss. Nothing may be written after it.
  absl::Status Commit(bool sync_directory = false);
  // Commit, but ALREADY_EXISTS (and the temp file removed) when a file of that name appeared
  // meanwhile: the rename itself refuses to replace (renameat2 RENAME_NOREPLACE), so two writers
  // of one new name cannot both succeed.
  absl::Status CommitNew(bool sync_directory = false);

  const std::filesystem::path& path() const { return path_; }
  // The temp file, for checking what was written before Commit (an uploaded key is parsed).
  const std::string& temp_path() const { return temp_; }

  // The temp file is `<file name><kTempMarker>XXXXXX` (6 random characters); the writer holds
  // an exclusive flock on it until it is committed or removed.
  static constexpr absl::string_view kTempMarker = ".provd-tmp-";
  static constexpr size_t kTempSuffixSize = kTempMarker.size() + 6;
  // Whether a file name has the shape of a temp file (uploads may not take such names).
  static bool IsTempName(absl::string_view file_name);
  // INVALID_ARGUMENT when `file_name` leaves no room for the temp file's suffix in NAME_MAX.
  static absl::Status CheckNameLength(absl::string_view file_name);

 private:
  AtomicOutput(std::filesystem::path path, std::string temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}
  absl::Status Fail(const char* step) const;
  absl::Status CommitImpl(bool sync_directory, bool replace);
  void Abandon();

  std::filesystem::path path_;
  std::string temp_;
  int fd_ = -1;  // -1 once committed or abandoned
  uint64_t written_ = 0;
};

// fsync of a directory, so that a rename into it survives a power loss. FAILED_PRECONDITION
// naming it.
absl::Status SyncDirectory(const std::filesystem::path& dir);

// Removes the temp files of AtomicOutputs under `dir` (recursively, not following symlinks)
// that no process holds any more: a writer killed mid-write. A live writer's lock keeps its file;
// files younger than `min_age` are left too (a writer between creating and locking). Returns how
// many were removed; files that cannot be inspected are skipped.
size_t SweepAbandonedTemps(const std::filesystem::path& dir,
                           std::chrono::seconds min_age = std::chrono::seconds(10));

}  // namespace provd::io
