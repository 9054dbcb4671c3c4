#include <algorithm>
#include <limits>

#include "prover_core/msm/pippenger.hpp"

namespace provd::msm {

absl::Status ValidateMsmOptions(const MsmOptions& options) {
  if (options.window_bits > 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("MSM window of ", options.window_bits, " bits: at most 20 supported"));
  }
  if (options.max_points_per_pass == 0) {
    return absl::InvalidArgumentError("MSM max_points_per_pass must be positive");
  }
  return absl::OkStatus();
}

size_t ChooseWindowBits(size_t n, size_t threads, size_t scalar_bits) {
  // c = 16 keeps a task's buckets within a few MB (2^15 XYZZ points) even for G2.
  constexpr size_t kMaxBits = 16;
  size_t best = 1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (size_t c = 1; c <= kMaxBits; ++c) {
    const double windows = static_cast<double>((scalar_bits + 1 + c - 1) / c);
    const double slices = std::max(
        1.0, static_cast<double>((2 * std::max<size_t>(threads, 1) + windows - 1)) / windows);
    const double cost =
        windows * static_cast<double>(n) + windows * slices * static_cast<double>(size_t{1} << c);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

}  // namespace provd::msm
