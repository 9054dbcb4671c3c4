// Files a client names in the daemon's inputs directory (a stark_commit job's columns_name, a
// Groth16 job's witness_name): resolved as key names are in the key directory (relative, no
// "..", no symlink leading outside), then mapped read-only.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "prover_core/io/mapped_file.hpp"

namespace provd::daemon {

// INVALID_ARGUMENT (a name that leads outside, or no regular file) or NOT_FOUND from the
// resolution; the mapping's error otherwise.
absl::StatusOr<io::MappedFile> OpenInput(const std::filesystem::path& inputs_dir,
                                         const std::string& name);

}  // namespace provd::daemon
