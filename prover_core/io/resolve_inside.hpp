// Names that clients give for files in a directory of the daemon (zkeys in the key directory,
// trace columns in the inputs directory): resolved inside that directory only, symlinks
// included, so that no name reaches a file outside it.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace provd::io {

// The canonical path of the existing file `name` inside `dir`. INVALID_ARGUMENT for an absolute
// name, one with "..", or one that leads outside `dir` through a symlink; NOT_FOUND when there
// is no such file; FAILED_PRECONDITION when `dir` itself cannot be resolved. Messages call the
// name "<noun> name" and the directory `dir_label` ("key", "the key directory").
absl::StatusOr<std::filesystem::path> ResolveInside(const std::filesystem::path& dir,
                                                    const std::string& name, absl::string_view noun,
                                                    absl::string_view dir_label);

// Where a new file `name` goes inside `dir` (an upload): the same rules for the name, and its
// parent directory must exist and resolve inside `dir`. The file itself need not exist; the
// path returned is the canonical parent joined with the file name. INVALID_ARGUMENT for a bad
// name or a parent outside `dir`; NOT_FOUND for a parent directory that does not exist.
absl::StatusOr<std::filesystem::path> ResolveNewInside(const std::filesystem::path& dir,
                                                       const std::string& name,
                                                       absl::string_view noun,
                                                       absl::string_view dir_label);

}  // namespace provd::io
