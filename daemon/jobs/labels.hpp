// The label values of job metrics and log lines, from the API's enums.
#pragma once

#include "provd/v1/prover.pb.h"

namespace provd::daemon {

inline const char* PriorityLabel(provd::v1::Priority priority) {
  return priority == provd::v1::PRIORITY_HIGH ? "high" : "low";
}

inline const char* OutcomeLabel(provd::v1::JobState state) {
  switch (state) {
    case provd::v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case provd::v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "failed";
  }
}

// The `kind` label: the JobSpec oneof's field name.
inline const char* JobKindLabel(const provd::v1::JobSpec& spec) {
  return spec.has_stark_commit() ? "stark_commit" : "groth16";
}

}  // namespace provd::daemon
