// provctl: the command-line client of provd. Prints responses as JSON (proto field names), one
// object per line for `watch`. Exit status: 0 success, 1 the call failed (the gRPC code and the
// server's message go to stderr), 2 bad usage.
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "client/prover_client.hpp"
#include "google/protobuf/util/json_util.h"
#include "provd/version.hpp"

namespace provd::client {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

int Fail(absl::string_view what, const absl::Status& status) {
  std::cerr << "provctl: " << what << " failed: " << absl::StatusCodeToString(status.code()) << ": "
            << status.message() << "\n";
  return kExitFailed;
}

int Usage(absl::string_view message) {
  std::cerr << "provctl: " << message << "\nRun with --help for more information.\n";
  return kExitUsage;
}

std::optional<provd::v1::Priority> ParsePriority(absl::string_view text) {
  if (text == "high") return provd::v1::PRIORITY_HIGH;
  if (text == "low") return provd::v1::PRIORITY_LOW;
  return std::nullopt;
}

std::optional<provd::v1::JobState> ParseState(absl::string_view text) {
  provd::v1::JobState state;
  std::string name = absl::StrCat("JOB_STATE_", absl::AsciiStrToUpper(text));
  if (text.empty() || !provd::v1::JobState_Parse(name, &state) ||
      state == provd::v1::JOB_STATE_UNSPECIFIED) {
    return std::nullopt;
  }
  return state;
}

struct SubmitArgs {
  std::string zkey;
  std::string witness_path;
  std::string priority = "low";
  std::string seed_hex;
  std::string request_id;
  double deadline_seconds = 0;
};

int Submit(ProverClient& client, const SubmitArgs& args) {
  std::optional<provd::v1::Priority> priority = ParsePriority(args.priority);
  if (!priority) return Usage("--priority must be high or low");
  std::ifstream in(args.witness_path, std::ios::binary);
  if (!in) return Usage(absl::StrCat("cannot read --witness ", args.witness_path));
  std::string witness((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  provd::v1::SubmitJobRequest request;
  request.set_priority(*priority);
  request.set_request_id(args.request_id);
  provd::v1::Groth16Spec* spec = request.mutable_spec()->mutable_groth16();
  spec->set_zkey_name(args.zkey);
  spec->set_witness(std::move(witness));
  if (!args.seed_hex.empty()) {
    if (args.seed_hex.size() != 64 ||
        args.seed_hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      return Usage("--seed must be 64 hex digits (32 bytes)");
    }
    spec->set_seed(absl::HexStringToBytes(args.seed_hex));
  }
  if (args.deadline_seconds > 0) {
    auto* deadline = request.mutable_deadline();
    deadline->set_seconds(static_cast<int64_t>(args.deadline_seconds));
    deadline->set_nanos(static_cast<int32_t>(
        (args.deadline_seconds - static_cast<double>(deadline->seconds())) * 1e9));
  }
  absl::StatusOr<provd::v1::SubmitJobResponse> response = client.SubmitJob(request);
  if (!response.ok()) return Fail("submit", response.status());
  std::cout << ToJson(*response) << "\n";
  return kExitOk;
}

int Main(int argc, char** argv) {
  CLI::App app("provctl: client of the provd prover daemon", "provctl");
  app.require_subcommand(1);
  app.set_version_flag("--version", absl::StrCat("provctl ", kVersion));
  std::string address = "127.0.0.1:50051";
  double timeout_seconds = 10;
  app.add_option("--addr", address, "provd address: HOST:PORT or unix:PATH")->capture_default_str();
  app.add_option("--timeout", timeout_seconds, "Seconds to wait for a reply (not for watch)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));

  std::string health_service;
  CLI::App* health = app.add_subcommand("health", "Ask the gRPC health service; exit 0 if SERVING");
  health->add_option("--service", health_service, "Service to ask about; empty for the server");

  SubmitArgs submit_args;
  CLI::App* submit = app.add_subcommand("submit", "Submit a Groth16 proving job");
  submit->add_option("--zkey", submit_args.zkey, "Proving key name inside the daemon's key dir")
      ->required();
  submit->add_option("--witness", submit_args.witness_path, "Witness file (.wtns)")->required();
  submit->add_option("--priority", submit_args.priority, "high or low")->capture_default_str();
  submit->add_option("--seed", submit_args.seed_hex,
                     "32-byte seed as hex, for reproducible proofs");
  submit->add_option("--request-id", submit_args.request_id, "Idempotency key for retries");
  submit
      ->add_option("--deadline", submit_args.deadline_seconds,
                   "Cancel the job if not done this many seconds after acceptance")
      ->check(CLI::Range(0.0, 30.0 * 24 * 3600));

  std::string job_id;
  CLI::App* status = app.add_subcommand("status", "Show a job (state, result, rounds)");
  status->add_option("job_id", job_id, "Job id")->required();

  uint64_t from_sequence = 0;
  CLI::App* watch = app.add_subcommand("watch", "Stream a job's events until it finishes");
  watch->add_option("job_id", job_id, "Job id")->required();
  watch->add_option("--from", from_sequence, "First event sequence number to show");

  CLI::App* cancel = app.add_subcommand("cancel", "Cancel a job");
  cancel->add_option("job_id", job_id, "Job id")->required();

  std::vector<std::string> list_states;
  std::string list_priority;
  uint32_t page_size = 0;
  std::string page_token;
  CLI::App* list = app.add_subcommand("list", "List jobs, newest first");
  list->add_option("--state", list_states,
                   "queued, running, succeeded, failed or cancelled (repeatable)");
  list->add_option("--priority", list_priority, "high or low");
  list->add_option("--page-size", page_size, "Jobs per page (server default 100)");
  list->add_option("--page-token", page_token, "next_page_token of the previous page");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  ClientOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  ProverClient client(address, options);

  if (health->parsed()) {
    auto serving = client.Health(health_service);
    if (!serving.ok()) return Fail("health", serving.status());
    std::cout << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(*serving) << "\n";
    return *serving == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk : kExitFailed;
  }
  if (submit->parsed()) return Submit(client, submit_args);
  if (status->parsed()) {
    auto job = client.GetJob(job_id);
    if (!job.ok()) return Fail("status", job.status());
    std::cout << ToJson(*job) << "\n";
    return kExitOk;
  }
  if (watch->parsed()) {
    provd::v1::WatchJobRequest request;
    request.set_job_id(job_id);
    request.set_from_sequence(from_sequence);
    absl::Status s = client.WatchJob(
        request, [](const provd::v1::JobEvent& event) { std::cout << ToJson(event) << std::endl; });
    return s.ok() ? kExitOk : Fail("watch", s);
  }
  if (cancel->parsed()) {
    auto job = client.CancelJob(job_id);
    if (!job.ok()) return Fail("cancel", job.status());
    std::cout << ToJson(*job) << "\n";
    return kExitOk;
  }
  if (list->parsed()) {
    provd::v1::ListJobsRequest request;
    for (const std::string& text : list_states) {
      std::optional<provd::v1::JobState> state = ParseState(text);
      if (!state) return Usage(absl::StrCat("--state ", text, ": unknown state"));
      request.add_states(*state);
    }
    if (!list_priority.empty()) {
      std::optional<provd::v1::Priority> priority = ParsePriority(list_priority);
      if (!priority) return Usage("--priority must be high or low");
      request.set_priority(*priority);
    }
    request.set_page_size(page_size);
    request.set_page_token(page_token);
    auto response = client.ListJobs(request);
    if (!response.ok()) return Fail("list", response.status());
    std::cout << ToJson(*response) << "\n";
    return kExitOk;
  }
  return kExitUsage;
}

}  // namespace
}  // namespace provd::client

int main(int argc, char** argv) { return provd::client::Main(argc, argv); }
