// A backend error that says more than "this call failed": the device cannot be used again by
// this process (a sticky CUDA error such as an illegal address or a device that fell off the
// bus ruins the process's context on it until the process restarts). Carried as a payload on
// the Status, so the code stays UNAVAILABLE (the chunk is rerun on the CPU like any device
// failure) and every layer in between passes it along unchanged; the chunk placement reads it
// and retires the device (plan::ChunkPlacement::DeviceLost).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace provd {

inline constexpr absl::string_view kDeviceLostPayload = "type.provd.dev/device-lost";

// `status` (not OK) marked as a lost device.
inline absl::Status MarkDeviceLost(absl::Status status) {
  status.SetPayload(kDeviceLostPayload, absl::Cord("1"));
  return status;
}

inline bool IsDeviceLost(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kDeviceLostPayload).has_value();
}

}  // namespace provd
