#include "arbiter/arbiter.hpp"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "arbiter/lock_status.hpp"

namespace provd::arbiter {

const char* PriorityName(Priority priority) { return priority == Priority::kHigh ? "high" : "low"; }

absl::StatusOr<std::unique_ptr<Arbiter>> Arbiter::Open(const std::filesystem::path& lock_dir,
                                                       size_t devices, ArbiterOptions options) {
  std::vector<size_t> ids(devices);
  for (size_t n = 0; n < devices; ++n) ids[n] = n;
  return OpenDevices(lock_dir, std::move(ids), options);
}

absl::StatusOr<std::unique_ptr<Arbiter>> Arbiter::OpenDevices(const std::filesystem::path& lock_dir,
                                                              std::vector<size_t> device_ids,
                                                              ArbiterOptions options) {
  if (device_ids.empty()) return absl::InvalidArgumentError("arbiter: no devices to arbitrate");
  std::sort(device_ids.begin(), device_ids.end());
  if (std::adjacent_find(device_ids.begin(), device_ids.end()) != device_ids.end()) {
    return absl::InvalidArgumentError("arbiter: a device is listed twice");
  }
  absl::StatusOr<LockDir> dir = LockDir::Open(lock_dir);
  if (!dir.ok()) return dir.status();
  return std::unique_ptr<Arbiter>(new Arbiter(*std::move(dir), std::move(device_ids), options));
}

absl::StatusOr<DeviceLease> Arbiter::Acquire(Priority priority, absl::Duration wait) {
  std::vector<DeviceLease::DeviceFiles> files;
  files.reserve(ids_.size());
  for (size_t id : ids_) {
    const std::string base = absl::StrCat("gpu", id);
    absl::StatusOr<LockFile> gpu = LockFile::Open(dir_, base + ".lock");
    if (!gpu.ok()) return gpu.status();
    DeviceLease::DeviceFiles device{*std::move(gpu), {}, {}};
    for (int p = 0; p < kPriorityLevels; ++p) {
      absl::StatusOr<LockFile> held = LockFile::Open(dir_, absl::StrCat(base, ".held.", p));
      if (!held.ok()) return held.status();
      absl::StatusOr<LockFile> want = LockFile::Open(dir_, absl::StrCat(base, ".want.", p));
      if (!want.ok()) return want.status();
      device.held.push_back(*std::move(held));
      device.want.push_back(*std::move(want));
    }
    files.push_back(std::move(device));
  }
  DeviceLease lease(*this, priority, std::move(files));

  // A free device first: nobody is preempted while one is idle.
  for (size_t n = 0; n < ids_.size(); ++n) {
    if (lease.TryTake(n)) return lease;
  }
  if (priority == Priority::kLow || wait <= absl::ZeroDuration()) return lease;

  // Flag the device whose holder has the lowest priority (preempt the cheapest victim), then
  // wait for any device to come free. The flag is held until the lease ends or settles.
  size_t target = 0;
  int lowest = kPriorityLevels;
  for (size_t n = 0; n < ids_.size(); ++n) {
    std::optional<int> holder = lease.HolderLevel(n);
    const int level = holder.value_or(-1);  // released meanwhile: the best target
    if (level < lowest) {
      lowest = level;
      target = n;
    }
  }
  LockFile& flag = lease.files_[target].want[lease.level()];
  flag.TryLock(LockMode::kShared);  // shared flags never conflict with each other
  const absl::Time deadline = absl::Now() + wait;
  while (absl::Now() < deadline) {
    for (size_t n = 0; n < ids_.size(); ++n) {
      if (lease.TryTake(n)) {
        flag.Unlock();
        return lease;
      }
    }
    absl::SleepFor(options_.poll_interval);
  }
  flag.Unlock();  // the holder does not yield (not a provd prover?): carry on on the CPU
  return lease;
}

bool DeviceLease::HigherWaits(size_t n) const {
  for (int p = level() + 1; p < kPriorityLevels; ++p) {
    if (files_[n].want[p].OthersHold(LockMode::kExclusive)) return true;
  }
  return false;
}

std::optional<int> DeviceLease::HolderLevel(size_t n) const {
  for (int p = 0; p < kPriorityLevels; ++p) {
    if (files_[n].held[p].OthersHold(LockMode::kExclusive)) return p;
  }
  return std::nullopt;
}

bool DeviceLease::TryTake(size_t n) {
  // Never take a device a higher-priority prover waits for: it would have to yield at once.
  if (HigherWaits(n)) return false;
  DeviceFiles& device = files_[n];
  if (!device.gpu.TryLock(LockMode::kExclusive)) return false;
  device.held[level()].TryLock(LockMode::kShared);
  device.gpu.WriteRecord(HolderRecord(::getpid(), priority_, absl::Now()));
  device_ = n;
  next_probe_ = absl::InfinitePast();
  return true;
}

bool DeviceLease::should_yield() {
  if (!device_.has_value()) return false;
  const absl::Time now = absl::Now();
  if (now < next_probe_) return last_answer_;
  next_probe_ = now + options_.probe_interval;
  last_answer_ = HigherWaits(*device_);
  return last_answer_;
}

void DeviceLease::Yield() {
  if (!device_.has_value()) return;
  DeviceFiles& device = files_[*device_];
  device.held[level()].Unlock();
  device.gpu.Unlock();
  device_.reset();
  last_answer_ = false;
  next_probe_ = absl::InfinitePast();
}

bool DeviceLease::TryReturn() {
  if (device_.has_value()) return true;
  const absl::Time now = absl::Now();
  if (now < next_probe_) return false;
  next_probe_ = now + options_.probe_interval;
  for (size_t n = 0; n < files_.size(); ++n) {
    if (TryTake(n)) return true;
  }
  return false;
}

}  // namespace provd::arbiter
