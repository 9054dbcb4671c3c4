// Writes a whole file so that readers see either the old file or the new one, never a part:
// a temp file beside it, fsync, rename. Used for proofs, ready files and (later) the job spool.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "absl/status/status.h"

namespace provd::daemon {

// FAILED_PRECONDITION naming the path when any step fails; the temp file is removed.
absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 std::span<const uint8_t> contents);
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace provd::daemon
