#include "client/provctl_commands.hpp"

#include <filesystem>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/job_format.hpp"
#include "client/local_files.hpp"
#include "prover_core/io/digest.hpp"

namespace provd::client {
namespace {

// A submission with a request id is retried this often (first try included) on UNAVAILABLE or
// DEADLINE_EXCEEDED: with the backoff that spans about 13 s, enough to ride out a daemon restart
// without waiting long for a daemon that is really gone.
constexpr int kSubmitAttempts = 7;

std::optional<provd::v1::Priority> ParsePriority(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "high") return provd::v1::PRIORITY_HIGH;
  if (lower == "low") return provd::v1::PRIORITY_LOW;
  return std::nullopt;
}

std::optional<provd::v1::JobState> ParseState(absl::string_view text) {
  provd::v1::JobState state;
  const std::string name = absl::StrCat("JOB_STATE_", absl::AsciiStrToUpper(text));
  if (text.empty() || !provd::v1::JobState_Parse(name, &state) ||
      state == provd::v1::JOB_STATE_UNSPECIFIED) {
    return std::nullopt;
  }
  return state;
}

// 0 (or less): no deadline.
absl::Time DeadlineAfter(double seconds) {
  return seconds > 0 ? absl::Now() + absl::Seconds(seconds) : absl::InfiniteFuture();
}

// A fresh idempotency key, so that `submit --wait` can retry its SubmitJob safely.
std::string RandomRequestId() {
  absl::BitGen random;
  return absl::StrFormat("provctl-%016x%016x", absl::Uniform<uint64_t>(random),
                         absl::Uniform<uint64_t>(random));
}

absl::Status SetSeed(absl::string_view hex, provd::v1::Groth16Spec& spec) {
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdefABCDEF") != hex.npos) {
    return absl::InvalidArgumentError("--seed must be 64 hex digits (32 bytes)");
  }
  spec.set_seed(absl::HexStringToBytes(hex));
  return absl::OkStatus();
}

void SetDeadline(double seconds, provd::v1::SubmitJobRequest& request) {
  google::protobuf::Duration* deadline = request.mutable_deadline();
  deadline->set_seconds(static_cast<int64_t>(seconds));
  deadline->set_nanos(
      static_cast<int32_t>((seconds - static_cast<double>(deadline->seconds())) * 1e9));
}

// The output files must be writable before the job runs: a proof that cannot be saved is a
// GPU's time thrown away.
absl::Status CheckOutputs(const SubmitArgs& args) {
  if (!args.proof_out.empty() && args.proof_out == args.public_out) {
    return absl::InvalidArgumentError("--proof-out and --public-out name the same file");
  }
  for (const auto& [flag, path] :
       {std::pair{"--proof-out", &args.proof_out}, std::pair{"--public-out", &args.public_out},
        std::pair{"--root-out", &args.root_out}}) {
    if (path->empty()) continue;
    if (absl::Status s = CheckWritableDestination(*path); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

// The request `submit` sends; INVALID_ARGUMENT with a message for the operator when a flag or
// the witness file is unusable.
// The stark_commit spec of `submit --stark-columns` / `--stark-columns-name`.
absl::Status BuildStarkSpec(const SubmitArgs& args, provd::v1::StarkCommitSpec& spec) {
  if (!args.zkey.empty() || !args.witness_path.empty() || !args.witness_name.empty() ||
      !args.seed_hex.empty() || !args.proof_out.empty() || !args.public_out.empty()) {
    return absl::InvalidArgumentError(
        "--zkey, --witness, --witness-name, --seed, --proof-out and --public-out are for "
        "Groth16 jobs, not "
        "with --stark-columns or --stark-columns-name");
  }
  if (args.n_cols == 0) return absl::InvalidArgumentError("--n-cols is required (1 to 65536)");
  if (!args.stark_columns_path.empty()) {
    absl::StatusOr<std::string> columns = ReadWholeFile(args.stark_columns_path);
    if (!columns.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--stark-columns ", columns.status().message()));
    }
    spec.set_columns(*std::move(columns));
  } else {
    spec.set_columns_name(args.stark_columns_name);
  }
  spec.set_n_cols(args.n_cols);
  spec.set_n_bits(args.n_bits);
  spec.set_blowup_bits(args.blowup_bits);
  spec.set_hash(args.stark_hash == "poseidon_bn128" ? provd::v1::STARK_HASH_POSEIDON_BN128
                                                    : provd::v1::STARK_HASH_POSEIDON_GL);
  spec.set_merkle_arity(args.merkle_arity);
  spec.set_tree_name(args.tree_name);
  return absl::OkStatus();
}

absl::StatusOr<provd::v1::SubmitJobRequest> BuildSubmitRequest(const SubmitArgs& args) {
  std::optional<provd::v1::Priority> priority = ParsePriority(args.priority);
  if (!priority) return absl::InvalidArgumentError("--priority must be high or low");
  if (absl::Status s = CheckOutputs(args); !s.ok()) return s;
  if (!args.stark_columns_path.empty() || !args.stark_columns_name.empty()) {
    if (!args.stark_columns_path.empty() && !args.stark_columns_name.empty()) {
      return absl::InvalidArgumentError(
          "give one of --stark-columns (a local file, sent inline) and --stark-columns-name (a "
          "file in the daemon's inputs dir)");
    }
    provd::v1::SubmitJobRequest request;
    request.set_priority(*priority);
    request.set_request_id(args.request_id.empty() && args.wait ? RandomRequestId()
                                                                : args.request_id);
    if (absl::Status s = BuildStarkSpec(args, *request.mutable_spec()->mutable_stark_commit());
        !s.ok()) {
      return s;
    }
    if (args.deadline_seconds > 0) SetDeadline(args.deadline_seconds, request);
    return request;
  }
  const bool has_witness = !args.witness_path.empty() || !args.witness_name.empty();
  if (!args.witness_path.empty() && !args.witness_name.empty()) {
    return absl::InvalidArgumentError(
        "give one of --witness (a local file, sent inline) and --witness-name (a file in the "
        "daemon's inputs dir)");
  }
  if (!args.zkey.empty() && !has_witness) {
    return absl::InvalidArgumentError(
        "--witness or --witness-name is required with --zkey (a Groth16 job)");
  }
  if (args.zkey.empty() && has_witness) {
    return absl::InvalidArgumentError(
        "--zkey is required with --witness or --witness-name (a Groth16 job)");
  }
  if (args.zkey.empty()) {
    return absl::InvalidArgumentError(
        "give --zkey and --witness (a Groth16 job) or --stark-columns / --stark-columns-name "
        "with --n-cols (a STARK trace commitment)");
  }
  if (!args.root_out.empty() || !args.tree_name.empty()) {
    return absl::InvalidArgumentError("--root-out and --tree-name are for stark_commit jobs");
  }
  provd::v1::SubmitJobRequest request;
  request.set_priority(*priority);
  request.set_request_id(args.request_id.empty() && args.wait ? RandomRequestId()
                                                              : args.request_id);
  provd::v1::Groth16Spec* spec = request.mutable_spec()->mutable_groth16();
  spec->set_zkey_name(args.zkey);
  if (!args.witness_name.empty()) {
    spec->set_witness_name(args.witness_name);
  } else {
    absl::StatusOr<std::string> witness = ReadWholeFile(args.witness_path);
    if (!witness.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--witness ", witness.status().message()));
    }
    spec->set_witness(*std::move(witness));
  }
  if (!args.seed_hex.empty()) {
    if (absl::Status s = SetSeed(args.seed_hex, *spec); !s.ok()) return s;
  }
  if (args.deadline_seconds > 0) SetDeadline(args.deadline_seconds, request);
  return request;
}

absl::StatusOr<provd::v1::VerifyProofRequest> BuildVerifyRequest(const VerifyArgs& args) {
  if (args.zkey.empty() == args.vkey_path.empty()) {
    return absl::InvalidArgumentError(
        "give one of --zkey (a key in the daemon's key dir) and "
        "--vkey (a verification_key.json here)");
  }
  provd::v1::VerifyProofRequest request;
  if (!args.zkey.empty()) {
    request.set_zkey_name(args.zkey);
  } else {
    absl::StatusOr<std::string> vkey = ReadWholeFile(args.vkey_path);
    if (!vkey.ok())
      return absl::InvalidArgumentError(absl::StrCat("--vkey ", vkey.status().message()));
    request.set_verification_key_json(*std::move(vkey));
  }
  for (const auto& [flag, path, field] :
       {std::tuple{"--proof", &args.proof_path, request.mutable_proof_json()},
        std::tuple{"--public", &args.public_path, request.mutable_public_json()}}) {
    absl::StatusOr<std::string> text = ReadWholeFile(*path);
    if (!text.ok())
      return absl::InvalidArgumentError(absl::StrCat(flag, " ", text.status().message()));
    *field = *std::move(text);
  }
  return request;
}

absl::StatusOr<provd::v1::ListJobsRequest> BuildListRequest(const ListArgs& args) {
  provd::v1::ListJobsRequest request;
  for (const std::string& text : args.states) {
    std::optional<provd::v1::JobState> state = ParseState(text);
    if (!state)
      return absl::InvalidArgumentError(absl::StrCat("--state ", text, ": unknown state"));
    request.add_states(*state);
  }
  if (!args.priority.empty()) {
    std::optional<provd::v1::Priority> priority = ParsePriority(args.priority);
    if (!priority) return absl::InvalidArgumentError("--priority must be high or low");
    request.set_priority(*priority);
  }
  request.set_page_size(args.page_size);
  request.set_page_token(args.page_token);
  return request;
}

std::string FormatSeconds(double seconds) { return absl::FormatDuration(absl::Seconds(seconds)); }

}  // namespace

int UsageError(std::ostream& err, absl::string_view message) {
  err << "provctl: " << message << "\nRun with --help for more information.\n";
  return kExitUsage;
}

int Commands::CallFailed(absl::string_view what, const absl::Status& status) {
  err_ << "provctl: " << what << " failed: " << absl::StatusCodeToString(status.code()) << ": "
       << status.message() << "\n";
  return kExitCallFailed;
}

int Commands::WaitTimedOut(const std::string& job_id, double wait_timeout_seconds) {
  err_ << "provctl: job " << job_id << " has not finished after --wait-timeout "
       << FormatSeconds(wait_timeout_seconds) << "; it keeps running (provctl watch " << job_id
       << " follows it)\n";
  return kExitWaitTimeout;
}

int Commands::ExitForFinalState(const std::string& job_id, provd::v1::JobState state,
                                absl::string_view why) {
  if (state == provd::v1::JOB_STATE_SUCCEEDED) return kExitOk;
  err_ << "provctl: job " << job_id << " " << StateName(state);
  if (!why.empty()) err_ << ": " << why;
  err_ << "\n";
  return state == provd::v1::JOB_STATE_CANCELLED ? kExitJobCancelled : kExitJobFailed;
}

void Commands::PrintLine(absl::string_view line) {
  // Flushed at once: a script or a person reads the lines while the job runs.
  out_ << line << std::endl;
}

void Commands::PrintJob(const provd::v1::Job& job) {
  if (json_) {
    PrintLine(ToJson(job));
  } else {
    out_ << FormatJob(job) << std::flush;
  }
}

void Commands::PrintEvent(const provd::v1::JobEvent& event) {
  PrintLine(json_ ? ToJson(event) : FormatEvent(event));
}

RetryObserver Commands::Announce(absl::string_view what) {
  return [this, what = std::string(what)](const absl::Status& error, absl::Duration delay) {
    err_ << "provctl: " << what << ": " << absl::StatusCodeToString(error.code()) << ": "
         << error.message() << "; retrying in "
         << absl::FormatDuration(absl::Trunc(delay, absl::Milliseconds(100))) << "\n";
  };
}

int Commands::Health(const std::string& service) {
  auto serving = client_.Health(service);
  if (!serving.ok()) return CallFailed("health", serving.status());
  grpc::health::v1::HealthCheckResponse response;
  response.set_status(*serving);
  // With defaults, so that UNKNOWN (0) prints as {"status":"UNKNOWN"} rather than {}.
  PrintLine(json_ ? ToJson(response, /*include_defaults=*/true)
                  : grpc::health::v1::HealthCheckResponse::ServingStatus_Name(*serving));
  return *serving == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk : kExitCallFailed;
}

int Commands::UploadLargeWitness(SubmitArgs& args) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(args.witness_path, ec);
  if (ec || size <= args.upload_threshold_bytes) return kExitOk;  // read (or refused) inline
  // Named by content: a retry or a second job with the same witness replaces it with itself.
  absl::StatusOr<io::FileDigest> digest = io::Sha256OfFile(args.witness_path);
  if (!digest.ok()) return UsageError(err_, absl::StrCat("--witness ", digest.status().message()));
  const io::Sha256Digest& sha = digest->sha256;
  provd::v1::UploadBegin begin;
  begin.set_area(provd::v1::FILE_AREA_INPUTS);
  begin.set_name(absl::StrCat(
      "provctl-", absl::BytesToHexString({reinterpret_cast<const char*>(sha.data()), sha.size()}),
      ".wtns"));
  begin.set_replace(true);
  err_ << "provctl: uploading the witness (" << size << " bytes) as " << begin.name() << "\n";
  absl::StatusOr<provd::v1::UploadFileResponse> uploaded =
      client_.UploadFile(begin, args.witness_path, /*on_progress=*/{}, *digest);
  if (!uploaded.ok()) return CallFailed("upload", uploaded.status());
  args.witness_name = uploaded->name();
  args.witness_path.clear();
  return kExitOk;
}

int Commands::Submit(const SubmitArgs& given) {
  // --wait-timeout counts from the start: it bounds the whole command, submission included.
  const absl::Time deadline = DeadlineAfter(given.wait_timeout_seconds);
  SubmitArgs args = given;
  if (!args.witness_path.empty() && args.witness_name.empty() && !args.zkey.empty()) {
    if (int code = UploadLargeWitness(args); code != kExitOk) return code;
  }
  absl::StatusOr<provd::v1::SubmitJobRequest> request = BuildSubmitRequest(args);
  if (!request.ok()) return UsageError(err_, request.status().message());

  RetryPolicy policy;
  policy.max_attempts = kSubmitAttempts;
  policy.deadline = deadline;
  policy.on_retry = Announce("submit");
  absl::StatusOr<provd::v1::SubmitJobResponse> response =
      SubmitJobWithRetry(client_, *request, policy);
  if (!response.ok()) return CallFailed("submit", response.status());
  PrintLine(json_ ? ToJson(response->job()) : FormatSubmitted(*response));
  if (!args.wait) return kExitOk;

  const std::string& job_id = response->job().id();
  absl::StatusOr<FollowResult> followed =
      Follow(job_id, /*from_sequence=*/1, deadline, /*job_exists=*/true);
  if (!followed.ok()) return CallFailed("watch", followed.status());
  if (!followed->final_state) return WaitTimedOut(job_id, args.wait_timeout_seconds);
  return FinishSubmit(job_id, *followed->final_state, args, deadline);
}

int Commands::FinishSubmit(const std::string& job_id, provd::v1::JobState final_state,
                           const SubmitArgs& args, absl::Time deadline) {
  // The daemon keeps the job, so the result can still be fetched after a restart: retry until
  // the wait deadline, like the watch.
  RetryPolicy policy;
  policy.max_attempts = 0;
  policy.deadline = deadline;
  policy.on_retry = Announce("status");
  absl::StatusOr<provd::v1::Job> job = GetJobWithRetry(client_, job_id, policy);
  if (!job.ok()) return CallFailed("status", job.status());
  if (!json_) out_ << "\n";
  PrintJob(*job);
  if (IsFinalState(job->state())) final_state = job->state();
  if (final_state == provd::v1::JOB_STATE_SUCCEEDED) {
    if (absl::Status saved = SaveResults(*job, args); !saved.ok()) {
      err_ << "provctl: job " << job_id
           << " succeeded but its result was not saved: " << saved.message() << "\n";
      return kExitCallFailed;
    }
  }
  return ExitForFinalState(job_id, final_state,
                           job->has_error() ? FormatError(job->error()) : std::string());
}

absl::Status Commands::SaveResults(const provd::v1::Job& job, const SubmitArgs& args) {
  for (const auto& [path, contents] :
       {std::pair{&args.proof_out, &job.result().proof_json()},
        std::pair{&args.public_out, &job.result().public_json()},
        std::pair{&args.root_out, &job.result().stark_root_json()}}) {
    if (path->empty()) continue;
    if (absl::Status s = WriteFileAtomically(*path, *contents); !s.ok()) return s;
    if (!json_) PrintLine(absl::StrCat("wrote ", *path));
  }
  return absl::OkStatus();
}

absl::StatusOr<FollowResult> Commands::Follow(const std::string& job_id, uint64_t from_sequence,
                                              absl::Time deadline, bool job_exists) {
  FollowOptions options;
  options.from_sequence = from_sequence;
  options.deadline = deadline;
  options.retry_before_first_event = job_exists;
  options.on_event = [this](const provd::v1::JobEvent& event) { PrintEvent(event); };
  options.on_reconnect = Announce("watch interrupted");
  return FollowJob(client_, job_id, options);
}

int Commands::Status(const std::string& job_id) {
  absl::StatusOr<provd::v1::Job> job = client_.GetJob(job_id);
  if (!job.ok()) return CallFailed("status", job.status());
  PrintJob(*job);
  return kExitOk;
}

int Commands::Watch(const WatchArgs& args) {
  const absl::Time deadline = DeadlineAfter(args.wait_timeout_seconds);
  absl::StatusOr<FollowResult> followed =
      Follow(args.job_id, args.from_sequence, deadline, /*job_exists=*/false);
  if (!followed.ok()) return CallFailed("watch", followed.status());
  if (!followed->final_state) return WaitTimedOut(args.job_id, args.wait_timeout_seconds);
  return ExitForFinalState(
      args.job_id, *followed->final_state,
      followed->final_event ? FormatEventDetails(*followed->final_event) : std::string());
}

int Commands::Cancel(const std::string& job_id) {
  absl::StatusOr<provd::v1::Job> job = client_.CancelJob(job_id);
  if (!job.ok()) return CallFailed("cancel", job.status());
  PrintLine(json_ ? ToJson(*job) : FormatCancelled(*job));
  return kExitOk;
}

int Commands::List(const ListArgs& args) {
  absl::StatusOr<provd::v1::ListJobsRequest> request = BuildListRequest(args);
  if (!request.ok()) return UsageError(err_, request.status().message());
  absl::StatusOr<provd::v1::ListJobsResponse> response = client_.ListJobs(*request);
  if (!response.ok()) return CallFailed("list", response.status());
  if (json_) {
    PrintLine(ToJson(*response));
  } else {
    out_ << FormatJobList(*response) << std::flush;
  }
  return kExitOk;
}

int Commands::Verify(const VerifyArgs& args) {
  absl::StatusOr<provd::v1::VerifyProofRequest> request = BuildVerifyRequest(args);
  if (!request.ok()) return UsageError(err_, request.status().message());
  absl::StatusOr<provd::v1::VerifyProofResponse> response = client_.VerifyProof(*request);
  if (!response.ok()) return CallFailed("verify", response.status());
  if (json_) {
    PrintLine(ToJson(*response, /*include_defaults=*/true));
  } else {
    PrintLine(response->valid() ? absl::StrCat("OK (", response->curve(), ")")
                                : absl::StrCat("INVALID: ", response->reason()));
  }
  return response->valid() ? kExitOk : kExitProofInvalid;
}

int Commands::PutFile(const FileArgs& args) {
  provd::v1::UploadBegin begin;
  begin.set_area(args.area);
  begin.set_name(args.name.empty() ? std::filesystem::path(args.path).filename().string()
                                   : args.name);
  begin.set_replace(args.replace);
  absl::StatusOr<provd::v1::UploadFileResponse> uploaded = client_.UploadFile(begin, args.path);
  if (!uploaded.ok()) {
    if (absl::IsNotFound(uploaded.status())) return UsageError(err_, uploaded.status().message());
    return CallFailed("put", uploaded.status());
  }
  if (json_) {
    PrintLine(ToJson(*uploaded));
  } else {
    PrintLine(absl::StrCat(uploaded->name(), ": ", uploaded->size(), " bytes, sha256 ",
                           absl::BytesToHexString(uploaded->sha256())));
  }
  return kExitOk;
}

int Commands::ListFiles(const FileArgs& args) {
  absl::StatusOr<provd::v1::ListFilesResponse> response = client_.ListFiles(args.area);
  if (!response.ok()) return CallFailed("list", response.status());
  if (json_) {
    PrintLine(ToJson(*response));
  } else {
    out_ << FormatFileList(*response) << std::flush;
  }
  return kExitOk;
}

}  // namespace provd::client
