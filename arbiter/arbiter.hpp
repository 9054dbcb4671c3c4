// The GPU priority protocol (docs/architecture.md, "Arbitration"): which prover may use which
// device, across threads of one process and across processes sharing a lock directory.
//
// For each device N the lock directory holds
//   gpuN.lock      exclusive lock = owning device N
//   gpuN.held.P    shared lock held by the owner of N, P its priority: tells a newcomer whom it
//                  would preempt
//   gpuN.want.P    shared lock held by every prover of priority P that waits for device N
// A holder of priority Q yields N as soon as a want flag of some P > Q on N is held. Locks are
// open-file-description locks (lock_file.hpp), which conflict inside a process as across
// processes and die with their holder. Knows nothing of proofs.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arbiter/lock_dir.hpp"
#include "arbiter/lock_file.hpp"

namespace provd::arbiter {

enum class Priority : int { kLow = 0, kHigh = 1 };
inline constexpr int kPriorityLevels = 2;
const char* PriorityName(Priority priority);

struct ArbiterOptions {
  // How long should_yield() / try_return() may reuse their last answer: bounds the lock probes
  // to a few per chunk boundary however often they are asked.
  absl::Duration probe_interval = absl::Milliseconds(2);
  // How often a waiting high-priority prover retries the device locks.
  absl::Duration poll_interval = absl::Milliseconds(1);
};

class DeviceLease;

// Devices this process will not take again (a sticky CUDA error ruined its context on them):
// shared by the arbiter and every lease it made, by device index. Other processes are not
// affected: their contexts on the device are their own.
class RetiredDevices {
 public:
  explicit RetiredDevices(size_t devices) : retired_(devices) {}
  bool retired(size_t index) const { return retired_[index].load(std::memory_order_acquire); }
  void Retire(size_t index) { retired_[index].store(true, std::memory_order_release); }
  bool all_retired() const {
    for (const std::atomic<bool>& r : retired_) {
      if (!r.load(std::memory_order_acquire)) return false;
    }
    return true;
  }

 private:
  std::vector<std::atomic<bool>> retired_;
};

class Arbiter {
 public:
  // Opens (creating if needed) the lock directory for GPUs 0 .. devices - 1. With no GPU, never
  // call this: no lock file is touched then.
  static absl::StatusOr<std::unique_ptr<Arbiter>> Open(const std::filesystem::path& lock_dir,
                                                       size_t devices, ArbiterOptions options = {});
  // The same for the GPUs numbered `device_ids` only (e.g. `--gpus 1,3`). A name of its own: a
  // braced {1} must not quietly mean "one device" here.
  static absl::StatusOr<std::unique_ptr<Arbiter>> OpenDevices(const std::filesystem::path& lock_dir,
                                                              std::vector<size_t> device_ids,
                                                              ArbiterOptions options = {});

  // A lease for one prover. A free device (one nobody holds and no higher-priority prover
  // waits for) is taken at once. Otherwise low priority gets a CPU lease at once (it never
  // waits); high priority raises its flag on the device whose holder has the lowest priority
  // and waits up to `wait` for any device to come free, then settles for the CPU. Retired
  // devices are never taken nor flagged.
  absl::StatusOr<DeviceLease> Acquire(Priority priority, absl::Duration wait);

  // True once device `device_id` was retired (DeviceLease::Retire or Retire below).
  bool retired(size_t device_id) const;
  // Retires device `device_id` whoever in this process holds it: no lease takes it again, and a
  // lease that holds it now is told to yield at its next should_yield. For a device found to
  // compute wrong results (its proofs fail verification) after the proofs that used it ended.
  void Retire(size_t device_id);

  const std::vector<size_t>& device_ids() const { return ids_; }
  const LockDir& lock_dir() const { return dir_; }
  const ArbiterOptions& options() const { return options_; }

 private:
  friend class DeviceLease;
  Arbiter(LockDir dir, std::vector<size_t> ids, ArbiterOptions options)
      : dir_(std::move(dir)),
        ids_(std::move(ids)),
        options_(options),
        retired_(std::make_shared<RetiredDevices>(ids_.size())) {}

  LockDir dir_;
  std::vector<size_t> ids_;
  ArbiterOptions options_;
  std::shared_ptr<RetiredDevices> retired_;
};

// One prover's claim: a GPU or the CPU. Move-only; destruction releases every lock it holds.
class DeviceLease {
 public:
  // A moved-from lease owns nothing and is on the CPU.
  DeviceLease(DeviceLease&& other) noexcept;
  DeviceLease& operator=(DeviceLease&& other) noexcept;
  ~DeviceLease() = default;  // the LockFiles close, dropping their locks

  Priority priority() const { return priority_; }
  // The devices this lease arbitrates over (their numbers).
  const std::vector<size_t>& device_ids() const { return ids_; }
  // The device owned (its number, as in gpuN.lock), or nullopt on the CPU.
  std::optional<size_t> device() const {
    return device_.has_value() ? std::optional<size_t>(ids_[*device_]) : std::nullopt;
  }

  // On a device: true when a higher-priority prover waits for it, or when the device was
  // retired (Arbiter::Retire). Cheap to call before every chunk: at most one lock probe per
  // probe_interval.
  bool should_yield();
  // Gives the device back (after the caller freed its device memory); the lease is then on the
  // CPU.
  void Yield();
  // Gives the device back for good: no lease of this arbiter (this process) takes it again.
  // For a device whose CUDA context is ruined (a sticky error): every call there would fail
  // until the process restarts. The caller frees what it can of its device memory first.
  void Retire();
  // On the CPU: takes a device that is free and that no higher-priority prover waits for;
  // true if the lease is now on a device. A high lease that finds none keeps its flag up on a
  // device held at low priority, so that holder yields to it. At most one round of probes per
  // probe_interval.
  bool TryReturn();

 private:
  friend class Arbiter;
  struct DeviceFiles {
    LockFile gpu;
    std::vector<LockFile> held;  // one per priority level
    std::vector<LockFile> want;  // one per priority level
  };

  DeviceLease(const Arbiter& arbiter, Priority priority, std::vector<DeviceFiles> files)
      : options_(arbiter.options()),
        priority_(priority),
        ids_(arbiter.device_ids()),
        files_(std::move(files)),
        retired_(arbiter.retired_) {}

  int level() const { return static_cast<int>(priority_); }
  // Someone holds a want flag above our level on device n.
  bool HigherWaits(size_t n) const;
  // The lowest priority level holding device n, or nullopt if nobody holds it.
  std::optional<int> HolderLevel(size_t n) const;
  bool TryTake(size_t n);
  // Keeps this lease's want flag on the best device to preempt: one held at a lower priority,
  // preferably not flagged by another waiter yet, lowest holder first. Moves or drops it.
  void UpdateFlag();
  void DropFlag();

  ArbiterOptions options_;
  Priority priority_;
  std::vector<size_t> ids_;         // device numbers, by index
  std::vector<DeviceFiles> files_;  // by index: this lease's own open descriptions
  std::shared_ptr<RetiredDevices> retired_;
  std::optional<size_t> device_;   // index of the device owned
  std::optional<size_t> flagged_;  // index of the device our want flag is up on
  absl::Time next_probe_ = absl::InfinitePast();
  bool last_answer_ = false;
};

}  // namespace provd::arbiter
