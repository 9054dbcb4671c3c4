#include "arbiter/lock_status.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arbiter/lock_file.hpp"

namespace provd::arbiter {
namespace {

// A lock file name of ours: gpuN.lock, gpuN.held.P or gpuN.want.P.
struct LockName {
  size_t device = 0;
  enum Kind { kGpu, kHeld, kWant } kind = kGpu;
  int level = 0;
};

std::optional<LockName> ParseLockName(const std::string& name) {
  if (!name.starts_with("gpu")) return std::nullopt;
  std::vector<std::string> parts = absl::StrSplit(name.substr(3), '.');
  LockName parsed;
  if (parts.empty() || !absl::SimpleAtoi(parts[0], &parsed.device)) return std::nullopt;
  if (parts.size() == 2 && parts[1] == "lock") return parsed;
  if (parts.size() == 3 && (parts[1] == "held" || parts[1] == "want") &&
      absl::SimpleAtoi(parts[2], &parsed.level) && parsed.level >= 0 &&
      parsed.level < kPriorityLevels) {
    parsed.kind = parts[1] == "held" ? LockName::kHeld : LockName::kWant;
    return parsed;
  }
  return std::nullopt;
}

std::string ReadSmallFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string HolderRecord(pid_t pid, Priority priority, absl::Time since) {
  return absl::StrCat(pid, " ", PriorityName(priority), " ", absl::ToUnixMillis(since), "\n");
}

std::optional<LockHolder> ParseHolderRecord(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text.substr(0, text.find('\n')), ' ');
  LockHolder holder;
  int64_t millis = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &holder.pid) ||
      !absl::SimpleAtoi(parts[2], &millis) || (parts[1] != "low" && parts[1] != "high")) {
    return std::nullopt;
  }
  holder.priority = parts[1] == "high" ? Priority::kHigh : Priority::kLow;
  holder.since = absl::FromUnixMillis(millis);
  return holder;
}

absl::StatusOr<std::vector<DeviceLockStatus>> InspectLockDir(
    const std::filesystem::path& lock_dir) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(lock_dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock dir ", lock_dir.string(), ": ", ec.message()));
  }
  std::map<size_t, DeviceLockStatus> devices;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::optional<LockName> name = ParseLockName(entry.path().filename().string());
    if (name && name->kind == LockName::kGpu) devices[name->device].device = name->device;
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock dir ", dir.string(), ": ", ec.message()));
  }

  // Scan the descriptors of every visible process for locks on our files.
  std::map<size_t, std::optional<pid_t>> holder_pids;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(proc.path().filename().string(), &pid)) continue;
    std::error_code fd_ec;
    for (const auto& fd : std::filesystem::directory_iterator(proc.path() / "fd", fd_ec)) {
      std::error_code link_ec;
      const std::filesystem::path target = std::filesystem::read_symlink(fd.path(), link_ec);
      if (link_ec || target.parent_path() != dir) continue;
      std::optional<LockName> name = ParseLockName(target.filename().string());
      if (!name || !devices.contains(name->device)) continue;
      const std::string info = ReadSmallFile(proc.path() / "fdinfo" / fd.path().filename());
      if (info.find("lock:") == std::string::npos) continue;  // open, not locked
      DeviceLockStatus& device = devices[name->device];
      if (name->kind == LockName::kWant) {
        device.waiters.push_back({pid, static_cast<Priority>(name->level)});
      } else if (name->kind == LockName::kGpu) {
        holder_pids[name->device] = pid;
      }
    }
  }

  std::vector<DeviceLockStatus> out;
  for (auto& [n, device] : devices) {
    // Held now? Ask the lock itself (works for every user who can read the file), then name
    // the holder from its record, and from /proc when that is visible.
    const std::filesystem::path path = dir / absl::StrCat("gpu", n, ".lock");
    absl::StatusOr<LockFile> gpu = LockFile::OpenExisting(path);
    if (!gpu.ok()) {
      device.error = std::string(gpu.status().message());
    } else if (gpu->OthersHold(LockMode::kShared)) {
      std::optional<LockHolder> holder = ParseHolderRecord(ReadSmallFile(path));
      device.holder = holder.value_or(LockHolder{});
      if (auto it = holder_pids.find(n); it != holder_pids.end() && it->second) {
        device.holder->pid = *it->second;
      }
    }
    out.push_back(std::move(device));
  }
  return out;
}

}  // namespace provd::arbiter
