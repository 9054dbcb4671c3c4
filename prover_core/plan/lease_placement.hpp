// Puts chunks where an arbiter lease says: on the lease's device while it holds one, on the CPU
// once a higher-priority prover wants the device (the device's memory is freed first, then the
// lock released), back on a device as soon as one is free again. Asked before every chunk;
// finished chunks are host-side results and are never redone. Every move is reported. A device
// that is lost (device_lost.hpp) is retired: freed, unlocked, and never taken again by this
// process; the proof goes on on the CPU or on another free device.
#pragma once

#include <functional>
#include <optional>

#include "absl/time/clock.h"
#include "arbiter/arbiter.hpp"
#include "prover_core/plan/round.hpp"

namespace provd::plan {

class LeasePlacement final : public ChunkPlacement {
 public:
  // Backend index of device n is n + 1 (index 0 is the CPU). `release_device(n)` must free
  // everything the backend of device n holds on the device.
  LeasePlacement(arbiter::DeviceLease& lease, std::function<void(size_t)> release_device,
                 ProofObserver* observer)
      : lease_(lease), release_device_(std::move(release_device)), observer_(observer) {}

  size_t Place(const ChunkRef& chunk) override {
    if (const std::optional<size_t> device = lease_.device(); device.has_value()) {
      if (!lease_.should_yield()) return *device + 1;
      const absl::Time start = absl::Now();
      release_device_(*device);
      lease_.Yield();
      if (observer_ != nullptr) {
        observer_->DeviceMoved(chunk, DeviceMove::kYielded, *device, absl::Now() - start);
      }
      ++moves_;
      return 0;
    }
    const absl::Time start = absl::Now();
    if (!lease_.TryReturn()) return 0;
    if (observer_ != nullptr) {
      observer_->DeviceMoved(chunk, DeviceMove::kReturned, *lease_.device(), absl::Now() - start);
    }
    ++moves_;
    return *lease_.device() + 1;
  }

  void DeviceLost(size_t backend, const ChunkRef& chunk, const absl::Status& error) override {
    const std::optional<size_t> device = lease_.device();
    if (backend == 0 || !device.has_value() || *device + 1 != backend) return;
    // Frees what the ruined context still lets us free (buffers, stream, pinned memory); the
    // lock goes with it, so another process, whose context is its own, may use the device.
    release_device_(*device);
    lease_.Retire();
    if (observer_ != nullptr) observer_->DeviceRetired(chunk, *device, error);
  }

  size_t moves() const { return moves_; }

 private:
  arbiter::DeviceLease& lease_;
  std::function<void(size_t)> release_device_;
  ProofObserver* observer_;
  size_t moves_ = 0;
};

}  // namespace provd::plan
