#include "daemon/devsetup_command.hpp"

#include <filesystem>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "daemon/atomic_file.hpp"
#include "prover_core/groth16/dev_setup.hpp"
#include "prover_core/groth16/verification_key.hpp"
#include "prover_core/groth16/zkey_file.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::daemon {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitRefused = 2;

int Refuse(absl::string_view why) {
  std::cerr << "provd devsetup: " << why << "\n";
  return kExitRefused;
}

int Fail(const absl::Status& status) {
  std::cerr << "provd devsetup: " << status.message() << "\n";
  return kExitFailed;
}

constexpr char kWhyInsecure[] =
    "refusing to run without --insecure. This setup is made by one process that draws the "
    "secrets (tau, alpha, beta, gamma, delta) itself: whoever learns them can forge proofs, and "
    "with --seed anyone can. Use its keys for benchmarks and development only; production keys "
    "come from a multi-party ceremony (snarkjs powersoftau + zkey contribute).";

}  // namespace

void AddDevSetupFlags(CLI::App& app, DevSetupCommand& command) {
  app.add_option("--r1cs", command.r1cs, "the circuit, as circom --r1cs writes it")->required();
  app.add_option("--zkey-out", command.zkey_out, "where to write the proving key")->required();
  app.add_option("--vkey-out", command.vkey_out,
                 "also write the verification key (snarkjs's verification_key.json)");
  app.add_option("--curve", command.curve,
                 "bn128 or bls12381; checked against the r1cs's prime (default: the r1cs's)")
      ->check(CLI::IsMember({"bn128", "bls12381"}));
  app.add_option("--seed", command.seed,
                 "derive the secrets from this text and the circuit's shape: reproducible keys "
                 "for tests and benchmarks (default: from the OS)");
  app.add_flag("--insecure", command.insecure,
               "acknowledge that the key is insecure (required: the secrets are not destroyed by "
               "a ceremony)");
  app.add_flag("--force", command.force, "replace --zkey-out / --vkey-out if they exist");
  app.add_option("--threads", command.threads, "CPU threads (0: all cores)");
}

int RunDevSetup(const DevSetupCommand& command) {
  if (!command.insecure) return Refuse(kWhyInsecure);
  for (const std::string& out : {command.zkey_out, command.vkey_out}) {
    std::error_code error;
    if (!out.empty() && !command.force && std::filesystem::exists(out, error)) {
      return Refuse(absl::StrCat(out, " exists; pass --force to replace it"));
    }
  }
  absl::StatusOr<std::shared_ptr<const groth16::R1csFile>> r1cs =
      groth16::R1csFile::Open(command.r1cs);
  if (!r1cs.ok()) return Refuse(r1cs.status().message());
  const groth16::R1csHeader& h = (*r1cs)->header();
  const char* curve = groth16::SnarkjsCurveName(h.curve);
  if (!command.curve.empty() && command.curve != curve) {
    return Refuse(absl::StrCat("--curve ", command.curve, ", but ", command.r1cs,
                               " is a circuit over ", curve, "'s scalar field"));
  }
  ConfigureDefaultThreadPool(command.threads);
  groth16::DevSetupOptions options;
  if (!command.seed.empty()) options.seed.emplace(command.seed.begin(), command.seed.end());
  std::cerr << "provd devsetup: WARNING: an insecure single-party key, for development only\n";
  absl::StatusOr<groth16::DevSetupSummary> summary =
      groth16::WriteDevZkey(**r1cs, command.zkey_out, options, DefaultThreadPool());
  if (!summary.ok()) {
    return summary.status().code() == absl::StatusCode::kInvalidArgument
               ? Refuse(summary.status().message())
               : Fail(summary.status());
  }
  if (!command.vkey_out.empty()) {
    // From the file just written, so the verification key is the one a reader of it gets.
    absl::StatusOr<std::shared_ptr<const groth16::ZkeyFile>> zkey =
        groth16::ZkeyFile::Open(command.zkey_out);
    if (!zkey.ok()) return Fail(zkey.status());
    absl::StatusOr<groth16::AnyVerificationKey> vkey = groth16::VerificationKeyFromZkey(**zkey);
    if (!vkey.ok()) return Fail(vkey.status());
    if (absl::Status s = WriteFileAtomically(command.vkey_out, groth16::VerificationKeyJson(*vkey));
        !s.ok()) {
      return Fail(s);
    }
  }
  std::cout << absl::StrFormat(
      "%s: %s, %d constraints, %d wires (%d public), domain 2^%d, %d coefficients, %d bytes in "
      "%.2f s (columns at tau %.2f s, points %.2f s)\n",
      command.zkey_out, curve, h.n_constraints, h.n_wires, h.n_public(),
      groth16::DevSetupLogDomain(h), summary->coefficients, summary->zkey_bytes,
      summary->scalar_seconds + summary->point_seconds, summary->scalar_seconds,
      summary->point_seconds);
  return kExitOk;
}

}  // namespace provd::daemon
