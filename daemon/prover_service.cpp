#include "daemon/prover_service.hpp"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "daemon/file_upload.hpp"
#include "daemon/grpc_status.hpp"
#include "daemon/input_files.hpp"
#include "daemon/jobs/labels.hpp"
#include "google/protobuf/util/time_util.h"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/memory_estimate.hpp"
#include "prover_core/groth16/verifier.hpp"
#include "prover_core/groth16/witness_file.hpp"
#include "prover_core/io/atomic_output.hpp"
#include "prover_core/io/resolve_inside.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

using provd::v1::JobEvent;

constexpr absl::Duration kCancelWait = absl::Seconds(5);
// How often a WatchJob stream looks at its client and the daemon when nothing happens.
constexpr absl::Duration kWatchPoll = absl::Milliseconds(500);

absl::Status Draining() {
  return absl::UnavailableError("provd is shutting down; retry on another host or later");
}

bool IsFinalEvent(const JobEvent& event) {
  return event.has_succeeded() || event.has_failed() || event.has_cancelled();
}

// Errors name files as the caller does: relative to the daemon's directory, whose place on the
// host is none of the caller's business.
absl::Status HideDir(const absl::Status& status, const std::filesystem::path& dir_path,
                     absl::string_view dir_label) {
  std::string message(status.message());
  std::error_code ec;
  for (const std::filesystem::path& dir :
       {std::filesystem::weakly_canonical(dir_path, ec), dir_path.lexically_normal()}) {
    if (dir.empty() || dir == "/") continue;
    // "the key directory /srv/keys: ..." reads "the key directory: ...", not the label twice.
    message =
        absl::StrReplaceAll(message, {{absl::StrCat(dir_label, " ", dir.string()), dir_label}});
    message = absl::StrReplaceAll(message, {{(dir / "").string(), ""}, {dir.string(), dir_label}});
  }
  return absl::Status(status.code(), message);
}

// Errors about the caller's input say which field they are about.
absl::Status AsFieldError(absl::string_view field, const absl::Status& status,
                          const std::filesystem::path& dir,
                          absl::string_view dir_label = "the key directory") {
  const absl::Status hidden = HideDir(status, dir, dir_label);
  if (absl::IsInvalidArgument(status) || absl::IsNotFound(status)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", hidden.message()));
  }
  return hidden;
}

}  // namespace

absl::StatusOr<uint64_t> ProverService::CheckGroth16(const provd::v1::Groth16Spec& spec,
                                                     uint64_t& memory_bytes) {
  absl::StatusOr<groth16::LoadedKey> key = keys_.Get(spec.zkey_name());
  if (!key.ok()) return AsFieldError("spec.groth16.zkey_name", key.status(), keys_.key_dir());
  const groth16::ProofMemoryEstimate need =
      groth16::EstimateProofMemory(groth16::KeyFile(key->proving));
  memory_bytes = need.total();
  if (const uint64_t budget = limits_.memory_budget_bytes; budget != 0) {
    if (need.total() > budget) {
      constexpr double kMiB = 1 << 20;
      return absl::ResourceExhaustedError(absl::StrFormat(
          "spec.groth16.zkey_name: a proof with \"%s\" needs about %.0f MiB (the key %.0f MiB "
          "+ buffers %.0f MiB), more than this daemon's memory budget of %.0f MiB "
          "(memory_budget_bytes)",
          spec.zkey_name(), need.total() / kMiB, need.key_bytes / kMiB, need.buffer_bytes / kMiB,
          budget / kMiB));
    }
  }
  // A named witness is parsed here too (through a mapping, so a large one costs no copy), and
  // again when the job runs.
  std::optional<io::MappedFile> file;
  std::span<const uint8_t> bytes;
  const char* field = "spec.groth16.witness";
  if (spec.has_witness_name()) {
    field = "spec.groth16.witness_name";
    absl::StatusOr<io::MappedFile> opened = OpenInput(inputs_dir_, spec.witness_name());
    if (!opened.ok())
      return AsFieldError(field, opened.status(), inputs_dir_, "the inputs directory");
    file = *std::move(opened);
    bytes = file->bytes();
  } else {
    bytes =
        std::span(reinterpret_cast<const uint8_t*>(spec.witness().data()), spec.witness().size());
  }
  absl::StatusOr<groth16::Witness> witness = groth16::ParseWitness(
      bytes, spec.has_witness_name() ? absl::StrCat("\"", spec.witness_name(), "\"") : "witness");
  if (!witness.ok()) return AsFieldError(field, witness.status(), keys_.key_dir());
  if (absl::Status s = groth16::CheckWitnessFits(key->proving, *witness); !s.ok()) {
    return AsFieldError(field, s, keys_.key_dir());
  }
  return static_cast<uint64_t>(bytes.size());
}

absl::StatusOr<uint64_t> ProverService::CheckStarkColumnsFile(
    const provd::v1::StarkCommitSpec& spec) {
  constexpr absl::string_view kField = "spec.stark_commit.columns_name";
  absl::StatusOr<io::MappedFile> file = OpenInput(inputs_dir_, spec.columns_name());
  if (!file.ok()) return AsFieldError(kField, file.status(), inputs_dir_, "the inputs directory");
  const size_t size = file->bytes().size();
  absl::StatusOr<stark::TraceShape> shape =
      StarkShape(spec, size, absl::StrCat(kField, " \"", spec.columns_name(), "\""));
  if (!shape.ok()) return shape.status();
  return static_cast<uint64_t>(size);
}

absl::StatusOr<JobSubmission> ProverService::Submission(
    const provd::v1::SubmitJobRequest& request) {
  JobSubmission submission;
  submission.priority = request.priority();
  submission.request_id = request.request_id();
  if (request.has_deadline()) {
    submission.deadline = absl::Nanoseconds(
        google::protobuf::util::TimeUtil::DurationToNanoseconds(request.deadline()));
  }
  if (request.spec().has_groth16()) {
    absl::StatusOr<uint64_t> size = CheckGroth16(request.spec().groth16(), submission.memory_bytes);
    if (!size.ok()) return size.status();
    if (request.spec().groth16().has_witness_name()) submission.referenced_input_size = *size;
  } else if (request.spec().stark_commit().has_columns_name()) {
    absl::StatusOr<uint64_t> size = CheckStarkColumnsFile(request.spec().stark_commit());
    if (!size.ok()) return size.status();
    submission.referenced_input_size = *size;
  }
  // The one copy of the input bytes: into the spec, then moved out of it, leaving the spec as
  // the store keeps it.
  submission.spec = request.spec();
  if (submission.spec.has_groth16()) {
    provd::v1::Groth16Spec& spec = *submission.spec.mutable_groth16();
    submission.zkey_name = spec.zkey_name();
    // (mutable_witness() would switch a witness_name spec to an empty inline witness.)
    if (spec.has_witness()) submission.witness = std::move(*spec.mutable_witness());
    submission.seed = std::move(*spec.mutable_seed());
    spec.clear_witness();
    spec.clear_seed();
  } else if (submission.spec.stark_commit().has_columns()) {
    provd::v1::StarkCommitSpec& spec = *submission.spec.mutable_stark_commit();
    submission.witness = std::move(*spec.mutable_columns());
    spec.clear_columns();
  }
  return submission;
}

absl::Status ProverService::Submit(const provd::v1::SubmitJobRequest& request,
                                   provd::v1::SubmitJobResponse& response) {
  if (draining_.load(std::memory_order_relaxed)) return Draining();
  if (absl::Status s = ValidateSubmitJob(request, limits_); !s.ok()) return s;
  // A retry of an accepted request gets its job back, even when the queue is full by now.
  if (!request.request_id().empty()) {
    absl::StatusOr<std::optional<provd::v1::Job>> existing =
        store_.FindByRequestId(request.request_id());
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) {
      *response.mutable_job() = **existing;
      response.set_deduplicated(true);
      return absl::OkStatus();
    }
  }
  absl::StatusOr<JobSubmission> submission = Submission(request);
  if (!submission.ok()) return submission.status();
  if (scheduler_.Full()) {
    return absl::ResourceExhaustedError(
        "the job queue is full; retry later (the limit is --max-queued-jobs)");
  }
  absl::StatusOr<SubmitOutcome> outcome = store_.Submit(*submission);
  if (!outcome.ok()) return outcome.status();
  if (!outcome->deduplicated) {
    QueuedJob queued;
    queued.id = outcome->job.id();
    queued.priority = outcome->job.priority();
    queued.order = outcome->order;
    queued.kind = JobKindLabel(request.spec());
    queued.accepted_at = absl::FromUnixNanos(
        google::protobuf::util::TimeUtil::TimestampToNanoseconds(outcome->job.created_at()));
    if (submission->deadline) queued.expires_at = queued.accepted_at + *submission->deadline;
    queued.memory_bytes = submission->memory_bytes;
    scheduler_.Enqueue(queued);
    if (metrics_ != nullptr) {
      metrics_->JobSubmitted(JobKindLabel(request.spec()), PriorityLabel(queued.priority));
    }
    hub_.Notify();
  }
  *response.mutable_job() = std::move(outcome->job);
  response.set_deduplicated(outcome->deduplicated);
  return absl::OkStatus();
}

grpc::Status ProverService::SubmitJob(grpc::ServerContext* context,
                                      const provd::v1::SubmitJobRequest* request,
                                      provd::v1::SubmitJobResponse* response) {
  absl::Status status = auth_.Check(*context);
  if (status.ok()) status = Submit(*request, *response);
  if (!status.ok()) {
    if (metrics_ != nullptr) metrics_->JobRejected(status.code());
    spdlog::info("SubmitJob from {} refused: {}", context->peer(), status.ToString());
  } else if (!response->deduplicated()) {
    const provd::v1::Job& job = response->job();
    if (job.spec().has_stark_commit()) {
      const provd::v1::StarkCommitSpec& spec = job.spec().stark_commit();
      spdlog::info(
          "job {}: accepted from {} ({}, stark_commit of {} columns, blowup 2^{}, {} "
          "column bytes{})",
          job.id(), context->peer(), provd::v1::Priority_Name(job.priority()), spec.n_cols(),
          spec.blowup_bits(), job.input_size_bytes(),
          spec.has_columns_name() ? absl::StrCat(" in ", spec.columns_name()) : "");
    } else {
      spdlog::info("job {}: accepted from {} ({}, key {}, {} witness bytes)", job.id(),
                   context->peer(), provd::v1::Priority_Name(job.priority()),
                   job.spec().groth16().zkey_name(), job.input_size_bytes());
    }
  }
  return ToGrpcStatus(status);
}

grpc::Status ProverService::GetJob(grpc::ServerContext* context,
                                   const provd::v1::GetJobRequest* request,
                                   provd::v1::Job* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<provd::v1::Job> job = store_.Get(request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
  return grpc::Status::OK;
}

grpc::Status ProverService::WatchJob(grpc::ServerContext* context,
                                     const provd::v1::WatchJobRequest* request,
                                     grpc::ServerWriter<provd::v1::JobEvent>* writer) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  uint64_t next = std::max<uint64_t>(request->from_sequence(), 1);
  for (;;) {
    const uint64_t seen = hub_.generation();
    absl::StatusOr<std::vector<JobEvent>> events = store_.Events(request->job_id(), next);
    if (!events.ok()) return ToGrpcStatus(events.status());
    for (const JobEvent& event : *events) {
      if (!writer->Write(event)) return ToGrpcStatus(absl::CancelledError("the client went away"));
      next = event.sequence() + 1;
      if (IsFinalEvent(event)) return grpc::Status::OK;
    }
    if (events->empty()) {
      // Asked to start past a finished job's last event: nothing more is to come. The final
      // event is committed with the final state, so once the state is final, one more read
      // tells whether this stream has sent it (the job may have ended between the two reads).
      absl::StatusOr<provd::v1::JobState> state = store_.State(request->job_id());
      if (!state.ok()) return ToGrpcStatus(state.status());
      if (IsFinalState(*state)) {
        absl::StatusOr<std::vector<JobEvent>> last = store_.Events(request->job_id(), next);
        if (!last.ok()) return ToGrpcStatus(last.status());
        if (last->empty()) return grpc::Status::OK;
        continue;  // send them, the final one last
      }
    }
    if (context->IsCancelled()) return ToGrpcStatus(absl::CancelledError("the client went away"));
    if (streams_stopped_.load(std::memory_order_relaxed)) {
      // The job is safe in the store; the client resumes with from_sequence on another start.
      return ToGrpcStatus(absl::UnavailableError(absl::StrCat(
          "provd is shutting down; watch again from sequence ", next, " once it is back")));
    }
    hub_.WaitForChange(seen, kWatchPoll);
  }
}

grpc::Status ProverService::CancelJob(grpc::ServerContext* context,
                                      const provd::v1::CancelJobRequest* request,
                                      provd::v1::Job* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<provd::v1::Job> job = scheduler_.Cancel(request->job_id(), kCancelWait);
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
  return grpc::Status::OK;
}

grpc::Status ProverService::ListJobs(grpc::ServerContext* context,
                                     const provd::v1::ListJobsRequest* request,
                                     provd::v1::ListJobsResponse* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = ValidateListJobs(*request); !s.ok()) return ToGrpcStatus(s);
  std::vector<provd::v1::JobState> states;
  for (int state : request->states()) states.push_back(static_cast<provd::v1::JobState>(state));
  absl::StatusOr<JobListPage> page =
      store_.List(states, request->priority(), request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpcStatus(page.status());
  for (provd::v1::Job& job : page->jobs) *response->add_jobs() = std::move(job);
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

absl::StatusOr<provd::v1::VerifyProofResponse> ProverService::Verify(
    const provd::v1::VerifyProofRequest& request) {
  groth16::AnyPreparedVerificationKey key;
  switch (request.key_case()) {
    case provd::v1::VerifyProofRequest::kZkeyName: {
      absl::StatusOr<groth16::LoadedKey> loaded = keys_.Get(request.zkey_name());
      if (!loaded.ok()) return AsFieldError("zkey_name", loaded.status(), keys_.key_dir());
      key = loaded->verifying;
      break;
    }
    case provd::v1::VerifyProofRequest::kVerificationKeyJson: {
      absl::StatusOr<groth16::AnyVerificationKey> parsed =
          groth16::ParseVerificationKeyJson(request.verification_key_json());
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("verification_key_json: ", parsed.status().message()));
      }
      key = groth16::PrepareVerificationKey(*std::move(parsed));
      break;
    }
    case provd::v1::VerifyProofRequest::KEY_NOT_SET:
      return absl::InvalidArgumentError(
          "key: give zkey_name or verification_key_json, the key to verify against");
  }
  if (request.proof_json().empty()) return absl::InvalidArgumentError("proof_json: empty");
  if (request.public_json().empty()) return absl::InvalidArgumentError("public_json: empty");
  absl::StatusOr<groth16::VerifyOutcome> outcome =
      groth16::VerifyProofJson(key, request.proof_json(), request.public_json());
  if (!outcome.ok()) {
    // The verifier names the field inside the file ("pi_b[1][0]: ..."); say which file.
    const absl::string_view message = outcome.status().message();
    const bool about_signals = absl::StartsWith(message, "public signal");
    return absl::InvalidArgumentError(
        absl::StrCat(about_signals ? "public_json: " : "proof_json: ", message));
  }
  provd::v1::VerifyProofResponse response;
  response.set_valid(outcome->valid);
  response.set_reason(outcome->reason);
  response.set_curve(groth16::SnarkjsCurveName(groth16::KeyCurve(key)));
  return response;
}

grpc::Status ProverService::VerifyProof(grpc::ServerContext* context,
                                        const provd::v1::VerifyProofRequest* request,
                                        provd::v1::VerifyProofResponse* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<provd::v1::VerifyProofResponse> verdict = Verify(*request);
  if (!verdict.ok()) return ToGrpcStatus(verdict.status());
  *response = *std::move(verdict);
  return grpc::Status::OK;
}

absl::StatusOr<std::pair<std::filesystem::path, const char*>> ProverService::AreaDir(
    provd::v1::FileArea area) const {
  switch (area) {
    case provd::v1::FILE_AREA_KEYS:
      return std::pair{keys_.key_dir(), "the key directory"};
    case provd::v1::FILE_AREA_INPUTS:
      return std::pair{inputs_dir_, "the inputs directory"};
    default:
      return absl::InvalidArgumentError("area: FILE_AREA_KEYS or FILE_AREA_INPUTS");
  }
}

absl::StatusOr<provd::v1::UploadFileResponse> ProverService::ReceiveUpload(
    grpc::ServerReader<provd::v1::UploadFileRequest>& reader) {
  provd::v1::UploadFileRequest message;
  if (!reader.Read(&message)) return absl::InvalidArgumentError("the stream held no message");
  if (!message.has_begin()) {
    return absl::InvalidArgumentError("begin: the first message must be `begin`");
  }
  const provd::v1::UploadBegin begin = message.begin();
  absl::StatusOr<std::pair<std::filesystem::path, const char*>> area = AreaDir(begin.area());
  if (!area.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("begin.", area.status().message()));
  }
  const auto& [dir, dir_label] = *area;
  absl::StatusOr<FileUpload> upload = FileUpload::Begin(begin, dir, dir_label);
  if (!upload.ok()) return HideDir(upload.status(), dir, dir_label);
  UploadCheck check;
  if (begin.area() == provd::v1::FILE_AREA_KEYS) {
    // A key that would only fail at its first job is refused now.
    check = [&](const std::string& temp) -> absl::Status {
      absl::StatusOr<std::shared_ptr<const groth16::ZkeyFile>> zkey = groth16::ZkeyFile::Open(temp);
      absl::Status status = zkey.status();
      if (zkey.ok()) status = groth16::LoadProvingKey(*zkey).status();
      if (status.ok()) return status;
      return absl::InvalidArgumentError(
          absl::StrCat("data: \"", begin.name(), "\" is not a usable Groth16 zkey: ",
                       absl::StrReplaceAll(status.message(), {{temp, "the upload"}})));
    };
  }
  while (reader.Read(&message)) {
    switch (message.part_case()) {
      case provd::v1::UploadFileRequest::kData: {
        const std::string& data = message.data();
        if (absl::Status s =
                upload->Append({reinterpret_cast<const uint8_t*>(data.data()), data.size()});
            !s.ok()) {
          return HideDir(s, dir, dir_label);
        }
        break;
      }
      case provd::v1::UploadFileRequest::kEnd: {
        const provd::v1::UploadEnd end = message.end();
        // The stream must close after `end` before the file gets its name: a malformed stream
        // leaves nothing, like any other bad upload.
        if (reader.Read(&message)) {
          return absl::InvalidArgumentError(absl::StrCat("end: a message followed `end`; \"",
                                                         begin.name(), "\" was not written"));
        }
        absl::StatusOr<provd::v1::UploadFileResponse> done = upload->End(end, check);
        if (!done.ok()) return HideDir(done.status(), dir, dir_label);
        return done;
      }
      default:
        return absl::InvalidArgumentError("begin: only the first message may be `begin`");
    }
  }
  return absl::CancelledError(
      absl::StrCat("the stream ended before `end`: \"", begin.name(), "\" was not written"));
}

grpc::Status ProverService::UploadFile(grpc::ServerContext* context,
                                       grpc::ServerReader<provd::v1::UploadFileRequest>* reader,
                                       provd::v1::UploadFileResponse* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  if (draining_.load(std::memory_order_relaxed)) return ToGrpcStatus(Draining());
  if (!limits_.uploads) {
    return ToGrpcStatus(absl::PermissionDeniedError(
        "this daemon takes no uploads (uploads = false); copy files into its directories"));
  }
  absl::StatusOr<provd::v1::UploadFileResponse> done = ReceiveUpload(*reader);
  if (!done.ok()) {
    spdlog::warn("upload refused: {}", done.status().ToString());
    return ToGrpcStatus(done.status());
  }
  spdlog::info("uploaded \"{}\" ({} bytes)", done->name(), done->size());
  *response = *std::move(done);
  return grpc::Status::OK;
}

grpc::Status ProverService::ListFiles(grpc::ServerContext* context,
                                      const provd::v1::ListFilesRequest* request,
                                      provd::v1::ListFilesResponse* response) {
  if (absl::Status s = auth_.Check(*context); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<std::pair<std::filesystem::path, const char*>> area = AreaDir(request->area());
  if (!area.ok()) return ToGrpcStatus(area.status());
  namespace fs = std::filesystem;
  const fs::path& dir = area->first;
  std::error_code ec;
  std::vector<provd::v1::StoredFile> files;
  // One unreadable entry (a dangling symlink, a file removed meanwhile, a private subdirectory)
  // is left out of the list; it does not fail the listing of the others.
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    // Followed, as key names are: a symlink to a key inside the directory is a key.
    const fs::file_status status = it->status(entry_ec);
    if (entry_ec || !fs::is_regular_file(status)) continue;
    if (io::AtomicOutput::IsTempName(it->path().filename().string())) continue;  // not a file yet
    const std::string name = it->path().lexically_relative(dir).string();
    // A symlink that leads out of the directory names no usable file (ResolveInside refuses it).
    if (it->is_symlink(entry_ec) && !io::ResolveInside(dir, name, "file", area->second).ok()) {
      continue;
    }
    const uint64_t size = it->file_size(entry_ec);
    if (entry_ec) continue;
    const auto modified = it->last_write_time(entry_ec);
    if (entry_ec) continue;
    provd::v1::StoredFile file;
    file.set_name(name);
    file.set_size(size);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::file_clock::to_sys(modified).time_since_epoch());
    file.mutable_modified()->set_seconds(seconds.count());
    files.push_back(std::move(file));
  }
  if (ec) {
    return ToGrpcStatus(absl::FailedPreconditionError(
        absl::StrCat(area->second, ": cannot be listed: ", ec.message())));
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.name() < b.name(); });
  for (provd::v1::StoredFile& file : files) *response->add_files() = std::move(file);
  return grpc::Status::OK;
}

}  // namespace provd::daemon
