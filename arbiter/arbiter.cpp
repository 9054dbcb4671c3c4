#include "arbiter/arbiter.hpp"

#include <unistd.h>

#include <algorithm>
#include <thread>
#include <utility>

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
  absl::StatusOr<LockFile> probe =
      LockFile::Open(*dir, absl::StrCat("gpu", device_ids[0], ".lock"));
  if (!probe.ok()) return probe.status();
  if (absl::Status s = probe->CheckLocksWork(); !s.ok()) return s;
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
  if (priority == Priority::kLow || wait <= absl::ZeroDuration() || retired_->all_retired()) {
    return lease;
  }

  // Flag a device held at a lower priority and wait for any device to come free. The target is
  // chosen again on every poll, so that two waiters spread over two victims, and a flag left on
  // a device another waiter already won moves on.
  const absl::Time deadline = absl::Now() + wait;
  while (absl::Now() < deadline && !retired_->all_retired()) {
    for (size_t n = 0; n < ids_.size(); ++n) {
      if (lease.TryTake(n)) return lease;
    }
    lease.UpdateFlag();
    absl::SleepFor(options_.poll_interval);
  }
  // Every device was retired while waiting: nothing to wait for, so no flag may hold a holder
  // back (other processes read it).
  if (retired_->all_retired()) lease.DropFlag();
  // The holders did not yield in time (not provd provers?): carry on on the CPU. The flag
  // stays up, so a holder that yields later still hands over (TryReturn takes it then).
  return lease;
}

bool Arbiter::retired(size_t device_id) const {
  const auto it = std::find(ids_.begin(), ids_.end(), device_id);
  return it != ids_.end() && retired_->retired(static_cast<size_t>(it - ids_.begin()));
}

void Arbiter::Retire(size_t device_id) {
  const auto it = std::find(ids_.begin(), ids_.end(), device_id);
  if (it != ids_.end()) retired_->Retire(static_cast<size_t>(it - ids_.begin()));
}

void DeviceLease::UpdateFlag() {
  if (level() == 0) return;  // nobody to preempt below the lowest level
  std::optional<size_t> best;
  bool best_contested = true;
  int best_holder = level();
  for (size_t n = 0; n < files_.size(); ++n) {
    if (retired_->retired(n)) continue;  // waiting for it would be waiting for nothing
    const std::optional<int> holder = HolderLevel(n);
    if (!holder.has_value() || *holder >= level()) continue;  // free, or not ours to preempt
    bool contested = false;  // another waiter at our level or above already flags it
    for (int p = level(); p < kPriorityLevels; ++p) {
      contested = contested || files_[n].want[p].OthersHold(LockMode::kExclusive);
    }
    if (!best || (best_contested && !contested) ||
        (best_contested == contested && *holder < best_holder)) {
      best = n;
      best_contested = contested;
      best_holder = *holder;
    }
  }
  if (best == flagged_) return;
  DropFlag();
  if (best.has_value() && files_[*best].want[level()].TryLock(LockMode::kShared)) {
    flagged_ = best;  // shared flags never conflict with each other
  }
}

void DeviceLease::DropFlag() {
  if (!flagged_.has_value()) return;
  files_[*flagged_].want[level()].Unlock();
  flagged_.reset();
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
  if (retired_->retired(n)) return false;
  // Never take a device a higher-priority prover waits for: it would have to yield at once.
  if (HigherWaits(n)) return false;
  DeviceFiles& device = files_[n];
  // The held flag goes up before the device lock, so that a device whose lock is taken always
  // shows its holder's level to a waiter choosing whom to preempt.
  device.held[level()].TryLock(LockMode::kShared);
  if (!device.gpu.TryLock(LockMode::kExclusive)) {
    device.held[level()].Unlock();
    return false;
  }
  if (retired_->retired(n)) {
    // Another lease retired it between the check above and the lock (it unlocks after marking).
    device.gpu.Unlock();
    device.held[level()].Unlock();
    return false;
  }
  device.gpu.WriteRecord(HolderRecord(::getpid(), priority_, absl::Now()));
  DropFlag();
  device_ = n;
  next_probe_ = absl::InfinitePast();
  return true;
}

bool DeviceLease::should_yield() {
  if (!device_.has_value()) return false;
  if (retired_->retired(*device_)) return true;  // Arbiter::Retire: give it up at once
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

void DeviceLease::Retire() {
  if (!device_.has_value()) return;
  retired_->Retire(*device_);
  Yield();
}

bool DeviceLease::TryReturn() {
  if (device_.has_value()) return true;
  const absl::Time now = absl::Now();
  if (now < next_probe_) return false;
  next_probe_ = now + options_.probe_interval;
  for (size_t n = 0; n < files_.size(); ++n) {
    if (TryTake(n)) return true;
  }
  UpdateFlag();  // a high lease on the CPU keeps asking for a device
  return false;
}

DeviceLease::DeviceLease(DeviceLease&& other) noexcept
    : options_(other.options_),
      priority_(other.priority_),
      ids_(std::move(other.ids_)),
      files_(std::move(other.files_)),
      retired_(other.retired_),
      device_(std::exchange(other.device_, std::nullopt)),
      flagged_(std::exchange(other.flagged_, std::nullopt)),
      next_probe_(other.next_probe_),
      last_answer_(other.last_answer_) {}

DeviceLease& DeviceLease::operator=(DeviceLease&& other) noexcept {
  if (this != &other) {
    options_ = other.options_;
    priority_ = other.priority_;
    ids_ = std::move(other.ids_);
    files_ = std::move(other.files_);  // closing our old descriptions drops their locks
    retired_ = other.retired_;
    device_ = std::exchange(other.device_, std::nullopt);
    flagged_ = std::exchange(other.flagged_, std::nullopt);
    next_probe_ = other.next_probe_;
    last_answer_ = other.last_answer_;
  }
  return *this;
}

}  // namespace provd::arbiter
