#include "prover_core/io/resolve_inside.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace provd::io {

absl::StatusOr<std::filesystem::path> ResolveInside(const std::filesystem::path& dir,
                                                    const std::string& name, absl::string_view noun,
                                                    absl::string_view dir_label) {
  const std::filesystem::path relative(name);
  if (name.empty() || relative.is_absolute()) {
    return absl::InvalidArgumentError(
        absl::StrCat(noun, " name \"", name, "\": must be a path relative to ", dir_label));
  }
  for (const auto& part : relative) {
    if (part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat(noun, " name \"", name, "\": \"..\" is not allowed"));
    }
  }
  std::error_code ec;
  const std::filesystem::path canonical_dir = std::filesystem::canonical(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir_label, " ", dir.string(), ": ", ec.message()));
  }
  const std::filesystem::path path = std::filesystem::canonical(canonical_dir / relative, ec);
  if (ec) {
    return absl::NotFoundError(absl::StrCat(noun, " \"", name, "\" not found in ",
                                            canonical_dir.string(), ": ", ec.message()));
  }
  // A symlink inside the directory may still lead out of it.
  auto [dir_end, unused] =
      std::mismatch(canonical_dir.begin(), canonical_dir.end(), path.begin(), path.end());
  if (dir_end != canonical_dir.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(noun, " name \"", name, "\" leads outside ", dir_label));
  }
  return path;
}

}  // namespace provd::io
