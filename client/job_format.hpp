// How provctl shows provd's messages: the canonical protobuf JSON for scripts (--json), and
// short lines and blocks for people. Pure functions of the messages, so that they are easy to
// test and the commands only decide what to print when.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "google/protobuf/duration.pb.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"
#include "provd/v1/prover.pb.h"

namespace provd::client {

// protobuf's canonical JSON mapping with the .proto's field names (snake_case), on one line.
// Fields at their default value are left out unless `include_defaults`.
std::string ToJson(const google::protobuf::Message& message, bool include_defaults = false);

// "queued", "running", "succeeded", "failed", "cancelled".
std::string StateName(provd::v1::JobState state);
// "high", "low".
std::string PriorityName(provd::v1::Priority priority);
// "GPU 1", "CPU".
std::string BackendName(provd::v1::Backend backend, std::optional<uint32_t> gpu_index);
// RFC 3339 in UTC with milliseconds ("2024-05-01T12:00:00.123Z"); "-" when unset.
std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp);
// "1.25s", "3m12s", "350ms".
std::string FormatDuration(const google::protobuf::Duration& duration);
// "512 B", "1.2 KiB", "3.4 MiB".
std::string FormatBytes(uint64_t bytes);

// "INTERNAL: out of GPU memory": the code's name and the message.
std::string FormatError(const provd::v1::ErrorStatus& error);

// One line for an accepted job: "job ID queued (high, multiplier.zkey)".
std::string FormatSubmitted(const provd::v1::SubmitJobResponse& response);
// A block of "key  value" lines (state, priority, times, attempts, error, result sizes) and a
// table of the rounds with the devices their chunks ran on. Ends with a newline.
std::string FormatJob(const provd::v1::Job& job);
// One line per event: time, sequence, kind, details (round, device, latency, error).
std::string FormatEvent(const provd::v1::JobEvent& event);
// The details part of FormatEvent alone ("" when the kind says it all).
std::string FormatEventDetails(const provd::v1::JobEvent& event);
// A table of the jobs, or "no jobs"; a hint with the next page's token. Ends with a newline.
std::string FormatJobList(const provd::v1::ListJobsResponse& response);
// A table of the files of a key or inputs directory (name, size, modified), or "no files".
std::string FormatFileList(const provd::v1::ListFilesResponse& response);
// One line about the job CancelJob returned: cancelled, cancelling, or already finished.
std::string FormatCancelled(const provd::v1::Job& job);

}  // namespace provd::client
