// A fresh directory per test, removed with everything in it when the test ends.
#pragma once

#include <filesystem>
#include <string>

namespace provd::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Reads a whole file; empty if it does not exist.
std::string ReadFile(const std::filesystem::path& path);

// Writes `content` to `path`, replacing it.
void WriteFile(const std::filesystem::path& path, const std::string& content);

}  // namespace provd::testing
