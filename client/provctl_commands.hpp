// What each provctl command does once its flags are parsed: the calls, the output (JSON lines
// with --json, readable text otherwise) and the exit status. The flag parsing is in provctl.cpp.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/job_follow.hpp"
#include "client/prover_client.hpp"

namespace provd::client {

// provctl's exit statuses; scripts rely on them, so values never change. Documented in
// provctl.cpp's header comment and in `provctl --help`.
enum ExitCode : int {
  kExitOk = 0,            // success; for submit --wait and watch: the job succeeded
  kExitCallFailed = 1,    // an RPC failed (or a result could not be saved); health: not SERVING
  kExitUsage = 2,         // bad flags, or an input file that cannot be read
  kExitJobFailed = 3,     // submit --wait / watch: the job ended FAILED
  kExitJobCancelled = 4,  // submit --wait / watch: the job ended CANCELLED
  kExitWaitTimeout = 5,   // submit --wait / watch: --wait-timeout passed first
  kExitProofInvalid = 6,  // verify: the proof is well-formed but does not verify
};

struct SubmitArgs {
  // A Groth16 job: both of these.
  std::string zkey;
  std::string witness_path;  // sent inline
  std::string witness_name;  // or a file in the daemon's inputs dir
  // Or a stark_commit job: one of the columns' sources, and the shape.
  std::string stark_columns_path;  // sent inline
  std::string stark_columns_name;  // a file in the daemon's inputs dir
  uint32_t n_cols = 0;
  uint32_t n_bits = 0;  // 0: from the columns' size
  uint32_t blowup_bits = 1;
  std::string stark_hash = "poseidon_gl";  // or poseidon_bn128
  uint32_t merkle_arity = 0;               // 0: the hash's default
  std::string tree_name;                   // in the daemon's outputs dir
  std::string root_out;                    // the root as pil-stark's verification key file
  std::string priority = "low";
  std::string seed_hex;
  std::string request_id;
  double deadline_seconds = 0;
  bool wait = false;
  double wait_timeout_seconds = 0;  // 0: wait as long as it takes
  std::string proof_out;
  std::string public_out;
  // A --witness file larger than this is uploaded into the daemon's inputs dir (UploadFile) and
  // named, instead of sent inside SubmitJob (whose message size the daemon bounds).
  uint64_t upload_threshold_bytes = 32ull << 20;
};

// provctl keys|inputs put / list.
struct FileArgs {
  provd::v1::FileArea area = provd::v1::FILE_AREA_KEYS;
  std::string path;  // put: the local file
  std::string name;  // put: the name in the daemon's directory (default: the file's name)
  bool replace = false;
};

struct WatchArgs {
  std::string job_id;
  uint64_t from_sequence = 0;
  double wait_timeout_seconds = 0;  // 0: wait as long as it takes
};

struct VerifyArgs {
  std::string zkey;       // a key name in the daemon's key dir, or
  std::string vkey_path;  // a local verification_key.json, sent inline
  std::string proof_path;
  std::string public_path;
};

struct ListArgs {
  std::vector<std::string> states;
  std::string priority;
  uint32_t page_size = 0;
  std::string page_token;
};

// Prints "provctl: MESSAGE" and the --help hint to `err`; returns kExitUsage.
int UsageError(std::ostream& err, absl::string_view message);

class Commands {
 public:
  // `json`: print protobuf JSON lines instead of text. Results go to `out`, diagnostics to
  // `err`, so that `out` stays parseable.
  Commands(ProverClient& client, bool json, std::ostream& out, std::ostream& err)
      : client_(client), json_(json), out_(out), err_(err) {}

  int Health(const std::string& service);
  int Submit(const SubmitArgs& args);
  int Status(const std::string& job_id);
  int Watch(const WatchArgs& args);
  int Cancel(const std::string& job_id);
  int List(const ListArgs& args);
  int Verify(const VerifyArgs& args);
  int PutFile(const FileArgs& args);
  int ListFiles(const FileArgs& args);

 private:
  // "provctl: WHAT failed: CODE: message" on err; returns kExitCallFailed.
  int CallFailed(absl::string_view what, const absl::Status& status);
  // Says on err that the job outlived --wait-timeout; returns kExitWaitTimeout.
  int WaitTimedOut(const std::string& job_id, double wait_timeout_seconds);
  // The exit status for a job that ended in `state`, with a line on err when it did not
  // succeed (`why`, when not empty, says why).
  int ExitForFinalState(const std::string& job_id, provd::v1::JobState state,
                        absl::string_view why);
  // FollowJob, printing the events and announcing reconnections.
  absl::StatusOr<FollowResult> Follow(const std::string& job_id, uint64_t from_sequence,
                                      absl::Time deadline, bool job_exists);
  // submit --wait after the job finished: fetches it, prints it, saves its results.
  int FinishSubmit(const std::string& job_id, provd::v1::JobState final_state,
                   const SubmitArgs& args, absl::Time deadline);
  // submit --witness with a file over the threshold: uploaded as provctl-<sha256>.wtns into the
  // inputs dir; the args then name it. Returns the usage or call error's exit status, or 0.
  int UploadLargeWitness(SubmitArgs& args);
  absl::Status SaveResults(const provd::v1::Job& job, const SubmitArgs& args);
  void PrintLine(absl::string_view line);
  void PrintJob(const provd::v1::Job& job);
  void PrintEvent(const provd::v1::JobEvent& event);
  // A RetryObserver that tells the operator, on err, what is retried and when.
  RetryObserver Announce(absl::string_view what);

  ProverClient& client_;
  bool json_;
  std::ostream& out_;
  std::ostream& err_;
};

}  // namespace provd::client
