// The daemon's own directories: the data dir it writes (job store, spool) and the key dir it
// only reads. Both are checked at start-up so that a bad path fails before any job is accepted.
#pragma once

#include <filesystem>

#include "absl/status/status.h"

namespace provd::daemon {

// Creates `data_dir` (mode 0750) if needed and proves it writable by creating and removing a
// file in it; creates `key_dir` if missing and checks that it is a readable directory.
absl::Status PrepareDirectories(const std::filesystem::path& data_dir,
                                const std::filesystem::path& key_dir);

}  // namespace provd::daemon
