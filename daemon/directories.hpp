// The daemon's own directories: the data dir it writes (job store, spool), the key and inputs
// dirs it only reads, and the outputs dir jobs write named files into. All are checked at
// start-up so that a bad path fails before any job is accepted.
#pragma once

#include <filesystem>

#include "absl/status/status.h"

namespace provd::daemon {

// Creates `data_dir` (mode 0750) if needed and proves it writable by creating and removing a
// file in it; creates `key_dir` if missing and checks that it is a readable directory; creates
// `inputs_dir` and `outputs_dir` if missing.
absl::Status PrepareDirectories(const std::filesystem::path& data_dir,
                                const std::filesystem::path& key_dir,
                                const std::filesystem::path& inputs_dir,
                                const std::filesystem::path& outputs_dir);

}  // namespace provd::daemon
