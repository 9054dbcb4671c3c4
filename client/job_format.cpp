#include "client/job_format.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "client/job_follow.hpp"
#include "google/protobuf/util/json_util.h"

namespace provd::client {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;

// Width of the kind column in FormatEvent: the longest kind, so that the details line up.
constexpr size_t kKindWidth = 15;

std::string PadRight(absl::string_view text, size_t width) {
  std::string padded(text);
  if (padded.size() < width) padded.append(width - padded.size(), ' ');
  return padded;
}

// Rows of cells printed with every column but the last padded to its widest cell.
class TextTable {
 public:
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  std::string Render(absl::string_view indent) const {
    std::vector<size_t> widths;
    for (const auto& row : rows_) {
      widths.resize(std::max(widths.size(), row.size()), 0);
      for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line(indent);
      for (size_t i = 0; i < row.size(); ++i) {
        const bool last = i + 1 == row.size();
        absl::StrAppend(&line, last ? row[i] : PadRight(row[i], widths[i] + 2));
      }
      absl::StrAppend(&out, absl::StripTrailingAsciiWhitespace(line), "\n");
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

bool IsSet(const google::protobuf::Timestamp& t) { return t.seconds() != 0 || t.nanos() != 0; }

absl::Time ToAbslTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

// Milliseconds are enough for people and keep "1.234567891s" from cluttering the lines; a
// shorter time (a round of a small STARK commitment) keeps its microseconds instead of reading
// as "0".
std::string FormatAbslDuration(absl::Duration d) {
  if (d >= absl::Milliseconds(1))
    return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(1)));
  if (d >= absl::Microseconds(1))
    return absl::FormatDuration(absl::Trunc(d, absl::Microseconds(1)));
  return d > absl::ZeroDuration() ? "<1us" : "0s";
}

// "1.2s" between two timestamps, or "" when either is unset.
std::string Between(const google::protobuf::Timestamp& from,
                    const google::protobuf::Timestamp& to) {
  if (!IsSet(from) || !IsSet(to)) return "";
  return FormatAbslDuration(ToAbslTime(to) - ToAbslTime(from));
}

std::string ZkeyName(const Job& job) {
  return job.spec().has_groth16() ? job.spec().groth16().zkey_name() : "-";
}

// What a job proves, in a few words: its key, or its trace's shape.
std::string JobWhat(const Job& job) {
  if (!job.spec().has_stark_commit()) return ZkeyName(job);
  const provd::v1::StarkCommitSpec& spec = job.spec().stark_commit();
  return absl::StrCat("stark_commit ", spec.n_cols(), " columns, blowup 2^", spec.blowup_bits(),
                      spec.has_columns_name() ? absl::StrCat(", ", spec.columns_name()) : "");
}

template <typename Message>
std::optional<uint32_t> GpuIndexOf(const Message& message) {
  if (!message.has_gpu_index()) return std::nullopt;
  return message.gpu_index();
}

std::string ChunkRange(uint32_t first, uint32_t count) {
  if (count == 0) return "no chunks";
  if (count == 1) return absl::StrCat("chunk ", first);
  return absl::StrCat("chunks ", first, "-", first + count - 1);
}

// "GPU 1 chunks 0-127 0.5s, CPU chunks 128-255 0.7s".
std::string FormatSpans(const provd::v1::RoundExecution& round) {
  std::vector<std::string> spans;
  for (const provd::v1::ChunkSpan& span : round.spans()) {
    spans.push_back(absl::StrCat(BackendName(span.backend(), GpuIndexOf(span)), " ",
                                 ChunkRange(span.first_chunk(), span.chunk_count()), " ",
                                 FormatDuration(span.elapsed())));
  }
  return spans.empty() ? "-" : absl::StrJoin(spans, ", ");
}

std::string FormatRounds(const Job& job) {
  TextTable table;
  table.AddRow({"#", "ROUND", "CHUNKS", "TIME", "DEVICES"});
  for (const provd::v1::RoundExecution& round : job.rounds()) {
    std::string time = Between(round.started_at(), round.finished_at());
    // A round without an end is still running, unless the job ended (failed, cancelled) in it.
    if (time.empty()) time = IsFinalState(job.state()) ? "unfinished" : "running";
    table.AddRow({absl::StrCat(round.round_index()), round.round_name(),
                  absl::StrCat(round.chunk_total()), time, FormatSpans(round)});
  }
  return absl::StrCat("rounds:\n", table.Render("  "));
}

// "2024-05-01T12:00:03.500Z (queued 1.2s)": a time with how long the previous phase took.
std::string TimeWithPhase(const google::protobuf::Timestamp& at,
                          const google::protobuf::Timestamp& phase_start, absl::string_view phase) {
  std::string line = FormatTimestamp(at);
  std::string took = Between(phase_start, at);
  if (!took.empty()) absl::StrAppend(&line, " (", phase, " ", took, ")");
  return line;
}

std::string EventKind(const JobEvent& event) {
  switch (event.event_case()) {
    case JobEvent::kQueued:
      return "queued";
    case JobEvent::kStarted:
      return "started";
    case JobEvent::kRoundStarted:
      return "round_started";
    case JobEvent::kRoundFinished:
      return "round_finished";
    case JobEvent::kDeviceAcquired:
      return "device_acquired";
    case JobEvent::kDeviceYielded:
      return "device_yielded";
    case JobEvent::kDeviceReturned:
      return "device_returned";
    case JobEvent::kGpuFallback:
      return "gpu_fallback";
    case JobEvent::kDeviceRetired:
      return "device_retired";
    case JobEvent::kProofRejected:
      return "proof_rejected";
    case JobEvent::kSucceeded:
      return "succeeded";
    case JobEvent::kFailed:
      return "failed";
    case JobEvent::kCancelled:
      return "cancelled";
    case JobEvent::EVENT_NOT_SET:
      break;
  }
  return "unknown";  // an event kind newer than this provctl
}

std::string At(uint32_t round_index, uint32_t chunk_index) {
  return absl::StrCat("round ", round_index, " chunk ", chunk_index);
}

}  // namespace

std::string ToJson(const google::protobuf::Message& message, bool include_defaults) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = include_defaults;
  std::string json;
  // Printing a valid message cannot fail (only parsing can); nothing to report.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

std::string StateName(provd::v1::JobState state) {
  const std::string& name = provd::v1::JobState_Name(state);
  // Empty for a state newer than this provctl.
  if (name.empty()) return absl::StrCat("state ", static_cast<int>(state));
  return absl::AsciiStrToLower(absl::StripPrefix(name, "JOB_STATE_"));
}

std::string PriorityName(provd::v1::Priority priority) {
  switch (priority) {
    case provd::v1::PRIORITY_HIGH:
      return "high";
    case provd::v1::PRIORITY_LOW:
      return "low";
    default:
      return "unspecified";
  }
}

std::string BackendName(provd::v1::Backend backend, std::optional<uint32_t> gpu_index) {
  switch (backend) {
    case provd::v1::BACKEND_CPU:
      return "CPU";
    case provd::v1::BACKEND_GPU:
      return gpu_index ? absl::StrCat("GPU ", *gpu_index) : "GPU";
    default:
      return "?";
  }
}

std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp) {
  if (!IsSet(timestamp)) return "-";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", ToAbslTime(timestamp), absl::UTCTimeZone());
}

std::string FormatDuration(const google::protobuf::Duration& duration) {
  return FormatAbslDuration(absl::Seconds(duration.seconds()) +
                            absl::Nanoseconds(duration.nanos()));
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.1f %s", value, units[unit]);
}

std::string FormatError(const provd::v1::ErrorStatus& error) {
  std::string code = absl::StatusCodeToString(static_cast<absl::StatusCode>(error.code()));
  if (code.empty()) code = absl::StrCat("code ", error.code());
  return error.message().empty() ? code : absl::StrCat(code, ": ", error.message());
}

std::string FormatEventDetails(const JobEvent& event) {
  switch (event.event_case()) {
    case JobEvent::kQueued:
      return event.queued().requeued() ? "back in the queue after a daemon restart" : "";
    case JobEvent::kStarted:
      return absl::StrCat("attempt ", event.started().attempt());
    case JobEvent::kRoundStarted: {
      const auto& e = event.round_started();
      return absl::StrCat("round ", e.round_index(), " ", e.round_name(), " on ",
                          BackendName(e.backend(), GpuIndexOf(e)), ", ", e.chunk_total(),
                          " chunks");
    }
    case JobEvent::kRoundFinished: {
      const auto& e = event.round_finished();
      return absl::StrCat("round ", e.round_index(), " ", e.round_name(), " on ",
                          BackendName(e.backend(), GpuIndexOf(e)), " in ",
                          FormatDuration(e.elapsed()));
    }
    case JobEvent::kDeviceAcquired: {
      const auto& e = event.device_acquired();
      return absl::StrCat("GPU ", e.gpu_index(), " at ", At(e.round_index(), e.chunk_index()),
                          " after waiting ", FormatDuration(e.wait()));
    }
    case JobEvent::kDeviceYielded: {
      const auto& e = event.device_yielded();
      return absl::StrCat("GPU ", e.gpu_index(), " at ", At(e.round_index(), e.chunk_index()),
                          " to a higher priority, latency ", FormatDuration(e.latency()),
                          "; continuing on CPU");
    }
    case JobEvent::kDeviceReturned: {
      const auto& e = event.device_returned();
      return absl::StrCat("back on GPU ", e.gpu_index(), " at ",
                          At(e.round_index(), e.chunk_index()));
    }
    case JobEvent::kGpuFallback: {
      const auto& e = event.gpu_fallback();
      return absl::StrCat("GPU ", e.gpu_index(), " failed at ",
                          At(e.round_index(), e.chunk_index()),
                          ", continuing on CPU: ", e.reason());
    }
    case JobEvent::kDeviceRetired: {
      const auto& e = event.device_retired();
      return absl::StrCat("GPU ", e.gpu_index(), " retired at ",
                          At(e.round_index(), e.chunk_index()),
                          " (unusable until the daemon restarts): ", e.reason());
    }
    case JobEvent::kProofRejected: {
      const auto& e = event.proof_rejected();
      std::string text = absl::StrCat("the proof failed verification (", e.reason(), ") and was ",
                                      "thrown away; ");
      if (e.gpu_indices().empty()) {
        absl::StrAppend(&text, "it was made on the CPU only");
      } else {
        absl::StrAppend(&text, "GPU ", absl::StrJoin(e.gpu_indices(), ", GPU "), " ran part of it");
      }
      if (!e.retired_gpu_indices().empty()) {
        absl::StrAppend(&text, "; retired GPU ", absl::StrJoin(e.retired_gpu_indices(), ", GPU "),
                        " (too many rejected proofs)");
      }
      absl::StrAppend(&text, e.retrying_on_cpu() ? "; proving again on the CPU" : "");
      return text;
    }
    case JobEvent::kFailed:
      return FormatError(event.failed().error());
    case JobEvent::kCancelled:
      return event.cancelled().reason() == "deadline"
                 ? "the job's deadline passed"
                 : absl::StrCat("by ", event.cancelled().reason());
    case JobEvent::kSucceeded:
    case JobEvent::EVENT_NOT_SET:
      break;
  }
  return "";
}

std::string FormatSubmitted(const provd::v1::SubmitJobResponse& response) {
  const Job& job = response.job();
  std::string line = absl::StrCat("job ", job.id(), " ", StateName(job.state()), " (",
                                  PriorityName(job.priority()), ", ", JobWhat(job), ")");
  if (response.deduplicated()) {
    absl::StrAppend(&line, "; the request id matched an earlier submission, no new job created");
  }
  return line;
}

std::string FormatJob(const Job& job) {
  TextTable fields;
  auto add = [&](absl::string_view key, std::string value) {
    fields.AddRow({std::string(key), std::move(value)});
  };
  add("job", job.id());
  add("state", StateName(job.state()));
  add("priority", PriorityName(job.priority()));
  if (job.spec().has_stark_commit()) {
    add("commit", JobWhat(job));
  } else {
    add("zkey", ZkeyName(job));
  }
  add("input", FormatBytes(job.input_size_bytes()));
  if (!job.request_id().empty()) add("request id", job.request_id());
  if (job.has_deadline()) add("deadline", FormatDuration(job.deadline()));
  add("created", FormatTimestamp(job.created_at()));
  add("started", TimeWithPhase(job.started_at(), job.created_at(), "queued"));
  add("finished", TimeWithPhase(job.finished_at(), job.started_at(), "ran"));
  add("attempts", absl::StrCat(job.attempts()));
  if (job.has_error()) add("error", FormatError(job.error()));
  if (job.has_result() && job.result().stark_root_size() > 0) {
    add("root", absl::StrJoin(job.result().stark_root(), " "));
    if (!job.result().stark_tree_name().empty()) {
      add("tree", absl::StrCat(job.result().stark_tree_name(), " (in the daemon's outputs dir)"));
    }
  } else if (job.has_result()) {
    add("result",
        absl::StrCat("proof ", FormatBytes(job.result().proof_json().size()), ", public signals ",
                     FormatBytes(job.result().public_json().size()), " (--json shows them)"));
  }
  std::string out = fields.Render("");
  if (job.rounds_size() > 0) absl::StrAppend(&out, FormatRounds(job));
  return out;
}

std::string FormatEvent(const JobEvent& event) {
  std::string line =
      absl::StrCat(FormatTimestamp(event.time()), "  #", event.sequence(), "  ",
                   PadRight(EventKind(event), kKindWidth), "  ", FormatEventDetails(event));
  return std::string(absl::StripTrailingAsciiWhitespace(line));
}

std::string FormatJobList(const provd::v1::ListJobsResponse& response) {
  if (response.jobs_size() == 0) return "no jobs\n";
  TextTable table;
  table.AddRow({"ID", "STATE", "PRIORITY", "ZKEY / COMMIT", "CREATED", "RAN"});
  for (const Job& job : response.jobs()) {
    std::string ran = Between(job.started_at(), job.finished_at());
    table.AddRow({job.id(), StateName(job.state()), PriorityName(job.priority()), JobWhat(job),
                  FormatTimestamp(job.created_at()), ran.empty() ? "-" : ran});
  }
  std::string out = table.Render("");
  if (!response.next_page_token().empty()) {
    absl::StrAppend(&out, "more jobs: add --page-token ", response.next_page_token(), "\n");
  }
  return out;
}

std::string FormatFileList(const provd::v1::ListFilesResponse& response) {
  if (response.files_size() == 0) return "no files\n";
  TextTable table;
  table.AddRow({"NAME", "SIZE", "MODIFIED"});
  for (const provd::v1::StoredFile& file : response.files()) {
    table.AddRow({file.name(), FormatBytes(file.size()), FormatTimestamp(file.modified())});
  }
  return table.Render("");
}

std::string FormatCancelled(const Job& job) {
  switch (job.state()) {
    case provd::v1::JOB_STATE_CANCELLED:
      return absl::StrCat("job ", job.id(), " cancelled");
    case provd::v1::JOB_STATE_SUCCEEDED:
    case provd::v1::JOB_STATE_FAILED:
      return absl::StrCat("job ", job.id(), " had already ", StateName(job.state()),
                          "; nothing to cancel");
    default:
      return absl::StrCat("job ", job.id(), " is ", StateName(job.state()),
                          "; cancellation requested, it stops at its next chunk");
  }
}

}  // namespace provd::client
