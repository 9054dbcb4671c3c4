#include "daemon/input_files.hpp"

#include "absl/strings/str_cat.h"
#include "prover_core/io/resolve_inside.hpp"

namespace provd::daemon {

absl::StatusOr<io::MappedFile> OpenInput(const std::filesystem::path& inputs_dir,
                                         const std::string& name) {
  absl::StatusOr<std::filesystem::path> path =
      io::ResolveInside(inputs_dir, name, "input", "the inputs directory");
  if (!path.ok()) return path.status();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(*path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", name, "\" is not a regular file"));
  }
  return io::MappedFile::Open(path->string());
}

}  // namespace provd::daemon
