#include "prover_core/io/resolve_inside.hpp"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace provd::io {

namespace {

absl::Status CheckRelativeName(const std::string& name, absl::string_view noun,
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
  return absl::OkStatus();
}

absl::StatusOr<std::filesystem::path> CanonicalDir(const std::filesystem::path& dir,
                                                   absl::string_view dir_label) {
  std::error_code ec;
  std::filesystem::path canonical_dir = std::filesystem::canonical(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir_label, " ", dir.string(), ": ", ec.message()));
  }
  return canonical_dir;
}

// A symlink inside the directory may still lead out of it.
bool IsInside(const std::filesystem::path& canonical_dir, const std::filesystem::path& path) {
  auto [dir_end, unused] =
      std::mismatch(canonical_dir.begin(), canonical_dir.end(), path.begin(), path.end());
  return dir_end == canonical_dir.end();
}

}  // namespace

absl::StatusOr<std::filesystem::path> ResolveInside(const std::filesystem::path& dir,
                                                    const std::string& name, absl::string_view noun,
                                                    absl::string_view dir_label) {
  if (absl::Status s = CheckRelativeName(name, noun, dir_label); !s.ok()) return s;
  absl::StatusOr<std::filesystem::path> canonical_dir = CanonicalDir(dir, dir_label);
  if (!canonical_dir.ok()) return canonical_dir.status();
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::canonical(*canonical_dir / name, ec);
  if (ec) {
    return absl::NotFoundError(absl::StrCat(noun, " \"", name, "\" not found in ",
                                            canonical_dir->string(), ": ", ec.message()));
  }
  if (!IsInside(*canonical_dir, path)) {
    return absl::InvalidArgumentError(
        absl::StrCat(noun, " name \"", name, "\" leads outside ", dir_label));
  }
  return path;
}

absl::StatusOr<std::filesystem::path> ResolveNewInside(const std::filesystem::path& dir,
                                                       const std::string& name,
                                                       absl::string_view noun,
                                                       absl::string_view dir_label) {
  if (absl::Status s = CheckRelativeName(name, noun, dir_label); !s.ok()) return s;
  const std::filesystem::path relative(name);
  const std::filesystem::path file_name = relative.filename();
  if (file_name.empty() || file_name == ".") {
    return absl::InvalidArgumentError(
        absl::StrCat(noun, " name \"", name, "\": does not end in a file name"));
  }
  absl::StatusOr<std::filesystem::path> canonical_dir = CanonicalDir(dir, dir_label);
  if (!canonical_dir.ok()) return canonical_dir.status();
  std::error_code ec;
  const std::filesystem::path parent =
      std::filesystem::canonical(*canonical_dir / relative.parent_path(), ec);
  if (ec || !std::filesystem::is_directory(parent)) {
    return absl::NotFoundError(absl::StrCat(noun, " name \"", name, "\": no directory \"",
                                            relative.parent_path().string(), "\" in ", dir_label));
  }
  if (!IsInside(*canonical_dir, parent)) {
    return absl::InvalidArgumentError(
        absl::StrCat(noun, " name \"", name, "\" leads outside ", dir_label));
  }
  return parent / file_name;
}

}  // namespace provd::io
