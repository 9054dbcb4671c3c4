// How a stored job row reads back as a provd.v1.Job, for both stores: one template over the
// row type (sqlite::Statement, postgres::Row), which offers Int, OptionalInt, Text and Blob by
// column index, in the order of kJobColumnNames.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/store/job_store.hpp"
#include "google/protobuf/util/time_util.h"
#include "provd/v1/prover.pb.h"

namespace provd::daemon {

// The columns JobFromRow reads, in order. proof_json and public_json are the results of SQLite
// rows of schema version 1 (whose `result` is NULL); a store without them selects NULLs there.
enum JobColumn : int {
  kColumnId,
  kColumnRequestId,
  kColumnPriority,
  kColumnState,
  kColumnZkeyName,
  kColumnInputSize,
  kColumnCreatedNs,
  kColumnStartedNs,
  kColumnFinishedNs,
  kColumnDeadlineNs,
  kColumnAttempts,
  kColumnErrorCode,
  kColumnErrorMessage,
  kColumnProofJson,
  kColumnPublicJson,
  kColumnSeq,
  kColumnSpec,
  kColumnResult,
};

// Reads a row of the job columns into a Job; `full` adds the result.
template <typename Row>
provd::v1::Job JobFromRow(const Row& row, bool full) {
  provd::v1::Job job;
  job.set_id(row.Text(kColumnId));
  job.set_request_id(row.Text(kColumnRequestId));
  job.set_priority(static_cast<provd::v1::Priority>(row.Int(kColumnPriority)));
  job.set_state(static_cast<provd::v1::JobState>(row.Int(kColumnState)));
  // Rows of SQLite's schema version 1 have no spec: Groth16 jobs described by zkey_name.
  if (const std::string spec = row.Blob(kColumnSpec);
      spec.empty() || !job.mutable_spec()->ParseFromString(spec)) {
    job.mutable_spec()->mutable_groth16()->set_zkey_name(row.Text(kColumnZkeyName));
  }
  job.set_input_size_bytes(static_cast<uint64_t>(row.Int(kColumnInputSize)));
  *job.mutable_created_at() = TimestampFromUnixNanos(row.Int(kColumnCreatedNs));
  if (auto started = row.OptionalInt(kColumnStartedNs)) {
    *job.mutable_started_at() = TimestampFromUnixNanos(*started);
  }
  if (auto finished = row.OptionalInt(kColumnFinishedNs)) {
    *job.mutable_finished_at() = TimestampFromUnixNanos(*finished);
  }
  if (auto deadline = row.OptionalInt(kColumnDeadlineNs)) {
    *job.mutable_deadline() = google::protobuf::util::TimeUtil::NanosecondsToDuration(*deadline);
  }
  job.set_attempts(static_cast<uint32_t>(row.Int(kColumnAttempts)));
  if (auto code = row.OptionalInt(kColumnErrorCode)) {
    job.mutable_error()->set_code(static_cast<int32_t>(*code));
    job.mutable_error()->set_message(row.Text(kColumnErrorMessage));
  }
  if (full && job.state() == provd::v1::JOB_STATE_SUCCEEDED) {
    if (const std::string result = row.Blob(kColumnResult);
        result.empty() || !job.mutable_result()->ParseFromString(result)) {
      job.mutable_result()->set_proof_json(row.Text(kColumnProofJson));
      job.mutable_result()->set_public_json(row.Text(kColumnPublicJson));
    }
  }
  return job;
}

// The spec of StartedJob from a stored spec (empty for SQLite's version-1 rows: Groth16).
inline provd::v1::JobSpec SpecFromStored(const std::string& stored, const std::string& zkey_name) {
  provd::v1::JobSpec spec;
  if (stored.empty() || !spec.ParseFromString(stored))
    spec.mutable_groth16()->set_zkey_name(zkey_name);
  return spec;
}

}  // namespace provd::daemon
