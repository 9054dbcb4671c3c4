// The device half of a simulated GPU (simulated_gpu.hpp): "device memory" that is separate host
// memory accounted against a VRAM budget, a per-call latency, and the injected faults. The
// Groth16 backend and the STARK backend of a simulated GPU both run on one of these, so the two
// kinds of proof see the same device behaviour.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "prover_core/device_lost.hpp"
#include "prover_core/device_memory.hpp"

namespace provd {

struct SimulatedGpuOptions {
  uint64_t vram_bytes = uint64_t{16} << 30;
  absl::Duration latency_per_call = absl::ZeroDuration();
  // Fault injection for tests: every n-th kernel call fails with UNAVAILABLE (0: never).
  uint64_t fail_every = 0;
  // Fault injection for tests: the device is lost at the n-th kernel call, which fails, and
  // so does every later one, with UNAVAILABLE marked IsDeviceLost, as CUDA answers after a
  // sticky error (0: never).
  uint64_t lost_at_call = 0;
  // Fault injection for tests: each MSM result is wrong with this probability (one set bit of
  // its X coordinate cleared), as from a kernel bug or a flipped bit in device memory; the call
  // reports success. Draws come from `corrupt_seed` and the device number.
  double corrupt_probability = 0;
  uint64_t corrupt_seed = 0;
  // Told of every allocation and release of "device memory" (may be null).
  DeviceMemoryMeter* memory = nullptr;
};

class SimulatedDevice {
 public:
  SimulatedDevice(size_t device, std::string name, const SimulatedGpuOptions& options)
      : options_(options), device_(device), name_(std::move(name)) {}
  ~SimulatedDevice() { Release(); }
  SimulatedDevice(const SimulatedDevice&) = delete;
  SimulatedDevice& operator=(const SimulatedDevice&) = delete;

  const std::string& name() const { return name_; }
  size_t device() const { return device_; }
  const SimulatedGpuOptions& options() const { return options_; }

  // The start of every kernel call: its latency, then the injected failures.
  absl::Status BeginCall() {
    if (options_.latency_per_call > absl::ZeroDuration()) absl::SleepFor(options_.latency_per_call);
    ++calls_;
    if (options_.lost_at_call != 0 && calls_ >= options_.lost_at_call) {
      return MarkDeviceLost(absl::UnavailableError(
          absl::StrCat(name_, ": injected loss of the device (every call fails from call ",
                       options_.lost_at_call, " on)")));
    }
    if (options_.fail_every != 0 && calls_ % options_.fail_every == 0) {
      return absl::UnavailableError(absl::StrCat(name_, ": injected device failure"));
    }
    return absl::OkStatus();
  }

  // Copies `bytes` into device memory (one slab, reused by the next upload).
  absl::StatusOr<std::span<uint8_t>> Upload(std::span<const std::byte> bytes) {
    absl::StatusOr<std::span<uint8_t>> slab = Allocate(bytes.size());
    if (slab.ok()) std::memcpy(slab->data(), bytes.data(), bytes.size());
    return slab;
  }

  // `size` bytes of device memory, their content undefined (the slab Upload uses).
  absl::StatusOr<std::span<uint8_t>> Allocate(size_t size) {
    if (size > options_.vram_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(name_, ": ", size, " bytes do not fit in ",
                                                       options_.vram_bytes, " bytes of VRAM"));
    }
    if (memory_.size() < size) {
      Account(static_cast<int64_t>(size - memory_.size()));
      memory_.resize(size);
    }
    ++uploads_;
    return std::span<uint8_t>(memory_.data(), size);
  }

  void Release() {
    Account(-static_cast<int64_t>(memory_.size()));
    std::vector<uint8_t>().swap(memory_);
    ++releases_;
  }

  uint64_t bytes_resident() const { return memory_.size(); }
  uint64_t uploads() const { return uploads_; }
  uint64_t releases() const { return releases_; }

 private:
  void Account(int64_t delta) {
    if (options_.memory != nullptr && delta != 0) options_.memory->Add(device_, delta);
  }

  SimulatedGpuOptions options_;
  size_t device_;
  std::string name_;
  std::vector<uint8_t> memory_;
  uint64_t calls_ = 0;
  uint64_t uploads_ = 0;
  uint64_t releases_ = 0;
};

}  // namespace provd
