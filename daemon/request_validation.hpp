// Synchronous checks of untrusted requests, before anything is stored or queued. Every error is
// INVALID_ARGUMENT and names the field (in the .proto's spelling) and what is wrong with it.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "provd/v1/prover.pb.h"
#include "prover_core/stark/trace.hpp"

namespace provd::daemon {

struct RequestLimits {
  uint64_t max_witness_bytes = 128ull << 20;
  bool uploads = true;  // UploadFile writes into the key and inputs directories
  // A Groth16 job whose proof would need more (groth16/memory_estimate.hpp) is refused with
  // RESOURCE_EXHAUSTED at submission; 0: no limit.
  uint64_t memory_budget_bytes = 0;
};

absl::Status ValidateSubmitJob(const provd::v1::SubmitJobRequest& request,
                               const RequestLimits& limits);

// A job id as the daemon issues them: 1..64 characters of [A-Za-z0-9_-].
absl::Status ValidateJobId(absl::string_view job_id);

// The tree a stark_commit spec asks for (merkle_arity 0: the hash's default); not validated.
stark::MerkleScheme MerkleSchemeOf(const provd::v1::StarkCommitSpec& spec);

// The trace shape of a stark_commit spec whose columns are `columns_bytes` long (inline, or the
// file it names): INVALID_ARGUMENT, prefixed with `label`, when that size is no whole
// power-of-two number of rows, disagrees with n_bits, or the shape is out of range.
absl::StatusOr<stark::TraceShape> StarkShape(const provd::v1::StarkCommitSpec& spec,
                                             uint64_t columns_bytes, absl::string_view label);

absl::Status ValidateListJobs(const provd::v1::ListJobsRequest& request);

// A proving key name: a relative path of 1..255 bytes whose components are made of
// [A-Za-z0-9._+-] and are neither "." nor "..". This is the syntax only; the daemon still
// resolves the name inside its key directory and refuses symlinks that leave it.
absl::Status ValidateKeyName(absl::string_view field, absl::string_view name);

}  // namespace provd::daemon
