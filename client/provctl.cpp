// provctl: the command-line client of provd.
//
//   provctl [GLOBAL FLAGS] COMMAND [FLAGS]
//
// Output is for people by default; with --json every result is protobuf's canonical JSON with
// the .proto's field names, one object per line (submit and cancel: the Job; status: the Job;
// watch: one JobEvent per line; list: the ListJobsResponse; health: {"status":"SERVING"};
// verify: the VerifyProofResponse).
// `submit --wait` prints the Job, then the events, then the finished Job. Diagnostics always go
// to stderr, so stdout stays parseable.
//
// Exit status (scripts rely on it; kept in sync with kFooter below and ExitCode in
// provctl_commands.hpp):
//   0  success; for submit --wait and watch: the job SUCCEEDED; for health: SERVING
//   1  an RPC failed (its gRPC code and the server's message on stderr), a result could not be
//      saved, or health answered something other than SERVING
//   2  bad usage: unknown or missing flags, unreadable input, certificate or token files
//   3  submit --wait / watch: the job ended FAILED
//   4  submit --wait / watch: the job ended CANCELLED
//   5  submit --wait / watch: --wait-timeout passed before the job finished (it keeps running)
//   6  verify: the proof does not verify (the reason on stdout)
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "client/provctl_commands.hpp"
#include "client/provctl_options.hpp"
#include "provd/version.hpp"

namespace provd::client {
namespace {

constexpr char kFooter[] =
    "Exit status:\n"
    "  0  success (submit --wait, watch: the job succeeded; health: SERVING)\n"
    "  1  the call failed (gRPC code and message on stderr), or health not SERVING\n"
    "  2  bad usage or an unreadable file\n"
    "  3  submit --wait, watch: the job failed\n"
    "  4  submit --wait, watch: the job was cancelled\n"
    "  5  submit --wait, watch: --wait-timeout passed first (the job keeps running)\n"
    "  6  verify: the proof does not verify\n"
    "Environment: PROVD_ADDR (default for --addr), PROVD_TOKEN (bearer token, when no\n"
    "--token-file).";

// Upper bound for --wait-timeout: a year, i.e. any value an operator means.
constexpr double kMaxWaitSeconds = 365.0 * 24 * 3600;

// Every flag and argument of the command line, filled in by CLI11.
struct CommandLine {
  ConnectionFlags connection;
  bool json = false;
  std::string health_service;
  SubmitArgs submit;
  std::string job_id;  // status, cancel
  WatchArgs watch;
  ListArgs list;
  VerifyArgs verify;
  FileArgs keys_put, keys_list, inputs_put, inputs_list;
};

void AddGlobalFlags(CLI::App& app, CommandLine& line) {
  ConnectionFlags& flags = line.connection;
  app.add_option("--addr", flags.address, "provd address: HOST:PORT or unix:PATH")
      ->envname("PROVD_ADDR")
      ->capture_default_str();
  app.add_option("--timeout", flags.timeout_seconds,
                 "Seconds to wait for each reply (not for watch or --wait)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_flag("--json", line.json, "Print protobuf JSON (proto field names), one per line");
  app.add_flag("--tls", flags.tls, "Use TLS, verifying the server against the system's CAs");
  app.add_option("--tls-ca", flags.tls_ca, "Use TLS; verify the server against this CA (PEM)");
  CLI::Option* cert = app.add_option("--tls-cert", flags.tls_cert,
                                     "Client certificate (PEM) for mutual TLS; implies TLS");
  CLI::Option* key = app.add_option("--tls-key", flags.tls_key, "Private key (PEM) of --tls-cert");
  cert->needs(key);
  key->needs(cert);
  app.add_option("--tls-server-name", flags.tls_server_name,
                 "Name to expect in the server's certificate instead of the address's host");
  app.add_option("--token-file", flags.token_file,
                 "Send 'authorization: Bearer <token>' with every call, the token read from this "
                 "file (default: $PROVD_TOKEN)");
}

CLI::App* AddHealth(CLI::App& app, CommandLine& line) {
  CLI::App* health = app.add_subcommand("health", "Ask the gRPC health service; exit 0 if SERVING");
  health->add_option("--service", line.health_service,
                     "Service to ask about; empty for the server");
  return health;
}

CLI::App* AddSubmit(CLI::App& app, SubmitArgs& args) {
  CLI::App* submit = app.add_subcommand(
      "submit",
      "Submit a job: a Groth16 proof (--zkey, --witness) or a STARK trace commitment "
      "(--stark-columns or --stark-columns-name, --n-cols)");
  submit->add_option("--zkey", args.zkey, "Groth16: proving key name inside the daemon's key dir");
  submit->add_option("--witness", args.witness_path, "Groth16: witness file (.wtns), sent inline");
  submit->add_option("--witness-name", args.witness_name,
                     "Groth16: a witness file in the daemon's inputs dir, for witnesses of any "
                     "size (read by the daemon, not sent)");
  submit
      ->add_option("--upload-threshold-bytes", args.upload_threshold_bytes,
                   "Groth16: a --witness larger than this is uploaded into the daemon's inputs "
                   "dir first (provctl-<sha256>.wtns) and named, instead of sent inline")
      ->capture_default_str();
  submit->add_option("--stark-columns", args.stark_columns_path,
                     "STARK: trace columns, sent inline (pilcom's .const / .cm: 2^n rows of "
                     "--n-cols little-endian u64, row-major)");
  submit->add_option("--stark-columns-name", args.stark_columns_name,
                     "STARK: trace columns in a file of the daemon's inputs dir");
  submit->add_option("--n-cols", args.n_cols, "STARK: columns of the trace");
  submit->add_option("--n-bits", args.n_bits, "STARK: log2 of the rows (default: from the size)");
  submit->add_option("--blowup-bits", args.blowup_bits, "STARK: log2 of the blow-up factor")
      ->capture_default_str();
  submit
      ->add_option("--stark-hash", args.stark_hash,
                   "STARK: the Merkle hash, pil-stark's MerkleHashGL or MerkleHashBN128")
      ->check(CLI::IsMember({"poseidon_gl", "poseidon_bn128"}))
      ->capture_default_str();
  submit->add_option("--merkle-arity", args.merkle_arity,
                     "STARK: children per node of a poseidon_bn128 tree, 2, 4, 8 or 16 (default "
                     "16, pil-stark's)");
  submit->add_option("--tree-name", args.tree_name,
                     "STARK: also write the extended trace and the tree (pil-stark's tree file) "
                     "under this name in the daemon's outputs dir");
  submit->add_option("--priority", args.priority, "high or low")->capture_default_str();
  submit->add_option("--seed", args.seed_hex, "32-byte seed as hex, for reproducible proofs");
  submit->add_option("--request-id", args.request_id,
                     "Idempotency key: a retry with the same id returns the same job (--wait "
                     "makes one up when not given)");
  submit
      ->add_option("--deadline", args.deadline_seconds,
                   "Cancel the job if not done this many seconds after acceptance")
      ->check(CLI::Range(0.0, 30.0 * 24 * 3600));
  CLI::Option* wait = submit->add_flag(
      "--wait", args.wait,
      "Follow the job's events until it finishes, surviving daemon restarts; exit 0/3/4 for "
      "succeeded/failed/cancelled");
  submit
      ->add_option("--wait-timeout", args.wait_timeout_seconds,
                   "Give up waiting after this many seconds in all (exit 5); 0: no limit")
      ->check(CLI::Range(0.0, kMaxWaitSeconds))
      ->needs(wait);
  submit->add_option("--proof-out", args.proof_out, "Write the proof (proof.json) here")
      ->needs(wait);
  submit->add_option("--public-out", args.public_out, "Write the public signals (public.json) here")
      ->needs(wait);
  submit
      ->add_option("--root-out", args.root_out,
                   "STARK: write the root here, as pil-stark writes its verification key")
      ->needs(wait);
  return submit;
}

CLI::App* AddWatch(CLI::App& app, WatchArgs& args) {
  CLI::App* watch = app.add_subcommand(
      "watch",
      "Stream a job's events until it finishes; exit 0/3/4 for succeeded/failed/cancelled");
  watch->add_option("job_id", args.job_id, "Job id")->required();
  watch->add_option("--from", args.from_sequence, "First event sequence number to show");
  watch
      ->add_option("--wait-timeout", args.wait_timeout_seconds,
                   "Give up after this many seconds (exit 5); 0: no limit")
      ->check(CLI::Range(0.0, kMaxWaitSeconds));
  return watch;
}

CLI::App* AddList(CLI::App& app, ListArgs& args) {
  CLI::App* list = app.add_subcommand("list", "List jobs, newest first");
  list->add_option("--state", args.states,
                   "queued, running, succeeded, failed or cancelled (repeatable)");
  list->add_option("--priority", args.priority, "high or low");
  list->add_option("--page-size", args.page_size, "Jobs per page (server default 100)");
  list->add_option("--page-token", args.page_token, "next_page_token of the previous page");
  return list;
}

CLI::App* AddVerify(CLI::App& app, VerifyArgs& args) {
  CLI::App* verify = app.add_subcommand(
      "verify", "Have the daemon verify a Groth16 proof; exit 0 if valid, 6 if not");
  CLI::Option* zkey =
      verify->add_option("--zkey", args.zkey,
                         "Verify against this key in the daemon's key dir (its verification key)");
  CLI::Option* vkey = verify->add_option("--vkey", args.vkey_path,
                                         "Verify against this verification_key.json (sent inline)");
  zkey->excludes(vkey);
  verify->add_option("--proof", args.proof_path, "proof.json")->required();
  verify->add_option("--public", args.public_path, "public.json")->required();
  return verify;
}

// `provctl keys|inputs put FILE [--name N] [--replace]` and `... list`.
struct FileCommands {
  CLI::App* put;
  CLI::App* list;
};

FileCommands AddFileCommands(CLI::App& app, const std::string& name, provd::v1::FileArea area,
                             const std::string& what, FileArgs& put_args, FileArgs& list_args) {
  CLI::App* group = app.add_subcommand(name, "Files in the daemon's " + what);
  group->require_subcommand(1);
  put_args.area = area;
  list_args.area = area;
  CLI::App* put = group->add_subcommand(
      "put", "Upload a file into the daemon's " + what +
                 " (in chunks, SHA-256 checked; it appears there whole or not at all)");
  put->add_option("file", put_args.path, "Local file")->required();
  put->add_option("--name", put_args.name,
                  "Name in the daemon's " + what + " (default: the file's name)");
  put->add_flag("--replace", put_args.replace, "Replace a file of that name");
  CLI::App* list = group->add_subcommand("list", "List the daemon's " + what);
  return {put, list};
}

// A command that takes one job id (status, cancel).
CLI::App* AddJobCommand(CLI::App& app, const std::string& name, const std::string& description,
                        std::string& job_id) {
  CLI::App* command = app.add_subcommand(name, description);
  command->add_option("job_id", job_id, "Job id")->required();
  return command;
}

// The client for the connection flags; nullptr after reporting a usage error.
std::unique_ptr<ProverClient> MakeClient(const ConnectionFlags& flags) {
  absl::StatusOr<ClientOptions> options = BuildClientOptions(flags, std::getenv("PROVD_TOKEN"));
  if (!options.ok()) {
    UsageError(std::cerr, options.status().message());
    return nullptr;
  }
  if (!options->bearer_token.empty() && !options->tls && !IsLocalTarget(flags.address)) {
    std::cerr << "provctl: warning: sending the bearer token to " << flags.address
              << " without TLS (use --tls-ca or --tls)\n";
  }
  return std::make_unique<ProverClient>(flags.address, *std::move(options));
}

int Main(int argc, char** argv) {
  CLI::App app("provctl: client of the provd prover daemon", "provctl");
  app.require_subcommand(1);
  // Global flags are accepted after the command too (`provctl status ID --json`).
  app.fallthrough();
  app.footer(kFooter);
  app.set_version_flag("--version", absl::StrCat("provctl ", kVersion));
  CommandLine line;
  AddGlobalFlags(app, line);
  CLI::App* health = AddHealth(app, line);
  CLI::App* submit = AddSubmit(app, line.submit);
  CLI::App* status =
      AddJobCommand(app, "status", "Show a job (state, times, rounds, result)", line.job_id);
  CLI::App* watch = AddWatch(app, line.watch);
  CLI::App* cancel = AddJobCommand(app, "cancel", "Cancel a job", line.job_id);
  CLI::App* list = AddList(app, line.list);
  CLI::App* verify = AddVerify(app, line.verify);
  const FileCommands keys = AddFileCommands(app, "keys", provd::v1::FILE_AREA_KEYS, "key dir",
                                            line.keys_put, line.keys_list);
  const FileCommands inputs = AddFileCommands(app, "inputs", provd::v1::FILE_AREA_INPUTS,
                                              "inputs dir", line.inputs_put, line.inputs_list);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  std::unique_ptr<ProverClient> client = MakeClient(line.connection);
  if (client == nullptr) return kExitUsage;
  Commands commands(*client, line.json, std::cout, std::cerr);
  if (health->parsed()) return commands.Health(line.health_service);
  if (submit->parsed()) return commands.Submit(line.submit);
  if (status->parsed()) return commands.Status(line.job_id);
  if (watch->parsed()) return commands.Watch(line.watch);
  if (cancel->parsed()) return commands.Cancel(line.job_id);
  if (list->parsed()) return commands.List(line.list);
  if (verify->parsed()) return commands.Verify(line.verify);
  if (keys.put->parsed()) return commands.PutFile(line.keys_put);
  if (keys.list->parsed()) return commands.ListFiles(line.keys_list);
  if (inputs.put->parsed()) return commands.PutFile(line.inputs_put);
  if (inputs.list->parsed()) return commands.ListFiles(line.inputs_list);
  return kExitUsage;
}

}  // namespace
}  // namespace provd::client

int main(int argc, char** argv) { return provd::client::Main(argc, argv); }
