// Writes a whole file so that readers see either the old file or the new one, never a part:
// a temp file beside it, fsync, rename. Used for proofs, ready files and the job spool.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "absl/status/status.h"

namespace provd::daemon {

// FAILED_PRECONDITION naming the path when any step fails; the temp file is removed.
// `mode` is the new file's permission bits.
absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const uint8_t> contents, unsigned mode = 0644);
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);
// The concatenation of `parts`, written without first copying them into one buffer.
absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const std::span<const uint8_t>> parts,
                                 unsigned mode = 0644);

// WriteFileAtomically, then fsync of the directory, so that the rename itself survives a power
// loss: what the job spool needs before a job may be acknowledged.
absl::Status WriteFileDurably(const std::filesystem::path& path, std::string_view contents,
                              unsigned mode);

}  // namespace provd::daemon
