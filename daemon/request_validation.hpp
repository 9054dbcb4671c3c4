// Synchronous checks of untrusted requests, before anything is stored or queued. Every error is
// INVALID_ARGUMENT and names the field (in the .proto's spelling) and what is wrong with it.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "provd/v1/prover.pb.h"

namespace provd::daemon {

struct RequestLimits {
  uint64_t max_witness_bytes = 128ull << 20;
};

absl::Status ValidateSubmitJob(const provd::v1::SubmitJobRequest& request,
                               const RequestLimits& limits);

// A job id as the daemon issues them: 1..64 characters of [A-Za-z0-9_-].
absl::Status ValidateJobId(absl::string_view job_id);

absl::Status ValidateListJobs(const provd::v1::ListJobsRequest& request);

// A proving key name: a relative path of 1..255 bytes whose components are made of
// [A-Za-z0-9._+-] and are neither "." nor "..". This is the syntax only; the daemon still
// resolves the name inside its key directory and refuses symlinks that leave it.
absl::Status ValidateKeyName(absl::string_view field, absl::string_view name);

}  // namespace provd::daemon
