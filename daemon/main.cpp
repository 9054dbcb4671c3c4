// provd: the prover daemon. `provd serve` runs the gRPC job service until SIGTERM/SIGINT;
// `provd prove` makes one Groth16 proof without the service; `provd locks` shows the GPU locks;
// `provd devsetup` makes an insecure dev key; `provd version` prints the build and the GPUs this
// process can use.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/atomic_file.hpp"
#include "daemon/config.hpp"
#include "daemon/daemon.hpp"
#include "daemon/devsetup_command.hpp"
#include "daemon/gpu_detect.hpp"
#include "daemon/locks_command.hpp"
#include "daemon/logging.hpp"
#include "daemon/prove_command.hpp"
#include "daemon/stark_commit_command.hpp"
#include "daemon/verify_command.hpp"
#include "nlohmann/json.hpp"
#include "provd/version.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitRuntimeError = 1;
constexpr int kExitUsage = 2;
// A GPU was retired and on_gpu_retired = restart: a failure for systemd's Restart=on-failure
// (EX_TEMPFAIL), so provd comes back with a fresh CUDA context.
constexpr int kExitRestart = 75;

absl::Status WriteReadyFile(const std::filesystem::path& path, const Daemon& daemon) {
  nlohmann::json ready = {{"grpc", daemon.grpc_address()},
                          {"metrics", daemon.metrics_address()},
                          {"health", daemon.health_address()},
                          {"pid", ::getpid()}};
  absl::Status status = WriteFileAtomically(path, ready.dump() + "\n");
  if (!status.ok())
    return absl::FailedPreconditionError(absl::StrCat("--ready-file ", status.message()));
  return status;
}

int Serve(ServeConfig config) {
  if (absl::Status s = FinalizeServeConfig(config); !s.ok()) {
    std::cerr << "provd serve: " << s.message() << "\nRun with --help for more information.\n";
    return kExitUsage;
  }
  if (config.print_config) {
    std::cout << ToJson(config).dump(2) << "\n";
    return kExitOk;
  }
  InitLogging(config.log_level, config.log_format);

  // Block the stop signals before any thread exists, so that every thread inherits the mask
  // and only sigwait() below ever receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  spdlog::info("configuration: {}", ToJson(config).dump());
  absl::StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Start(config);
  if (!daemon.ok()) {
    spdlog::critical("cannot start: {}", daemon.status().ToString());
    return kExitRuntimeError;
  }
  if (!config.ready_file.empty()) {
    if (absl::Status s = WriteReadyFile(config.ready_file, **daemon); !s.ok()) {
      spdlog::critical("{}", s.ToString());
      return kExitRuntimeError;
    }
  }
  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) != 0) {
  }
  spdlog::info("received {}", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  // A second stop signal during the grace period means "now": exit without waiting.
  std::thread([stop_signals] {
    int second = 0;
    if (sigwait(&stop_signals, &second) == 0) {
      spdlog::warn("second stop signal: exiting without waiting for running requests");
      spdlog::default_logger()->flush();
      std::_Exit(kExitRuntimeError);
    }
  }).detach();
  (*daemon)->Shutdown(absl::Seconds(config.shutdown_grace_seconds));
  const bool restart = (*daemon)->restart_requested();
  daemon->reset();
  if (restart) {
    spdlog::warn("exiting with status {} so that the service manager starts provd again",
                 kExitRestart);
    return kExitRestart;
  }
  return kExitOk;
}

int PrintVersion() {
  std::cout << "provd " << kVersion << " (CUDA " << (kBuiltWithCuda ? "on" : "off") << ")\n";
  InitLogging("warn", "text");
  GpuInventory gpus = DetectGpus();
  if (gpus.devices.empty()) std::cout << "no usable GPU: " << gpus.why_none << "\n";
  for (const GpuDevice& device : gpus.devices) std::cout << Describe(device) << "\n";
  return kExitOk;
}

int Main(int argc, char** argv) {
  CLI::App app("provd: prover daemon with GPU priority arbitration", "provd");
  app.require_subcommand(1);
  app.set_version_flag("--version", absl::StrCat("provd ", kVersion));

  ServeConfig serve_config;
  CLI::App* serve = app.add_subcommand("serve", "Run the gRPC proving service");
  AddServeFlags(*serve, serve_config);
  ProveCommand prove_command;
  CLI::App* prove = app.add_subcommand("prove", "Make one Groth16 proof from a zkey and a witness");
  AddProveFlags(*prove, prove_command);
  LocksCommand locks_command;
  CLI::App* locks = app.add_subcommand("locks", "Show who holds and who waits for each GPU");
  AddLocksFlags(*locks, locks_command);
  VkeyCommand vkey_command;
  CLI::App* vkey = app.add_subcommand("vkey", "Write a zkey's verification key (snarkjs's JSON)");
  AddVkeyFlags(*vkey, vkey_command);
  VerifyCommand verify_command;
  CLI::App* verify = app.add_subcommand("verify", "Check a Groth16 proof against its key");
  AddVerifyFlags(*verify, verify_command);
  StarkCommitCommand stark_commit_command;
  CLI::App* stark_commit = app.add_subcommand(
      "stark-commit", "Commit to a STARK trace: coset LDE and Poseidon Merkle tree (pil-stark's)");
  AddStarkCommitFlags(*stark_commit, stark_commit_command);
  DevSetupCommand devsetup_command;
  CLI::App* devsetup = app.add_subcommand(
      "devsetup", "Make an INSECURE Groth16 key from a circom .r1cs (development, benchmarks)");
  AddDevSetupFlags(*devsetup, devsetup_command);
  CLI::App* version = app.add_subcommand("version", "Print the build and the usable GPUs");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (serve->parsed()) {
    if (absl::Status s = ApplyConfigFile(*serve, serve_config); !s.ok()) {
      std::cerr << "provd serve: " << s.message() << "\n";
      return kExitUsage;
    }
    return Serve(serve_config);
  }
  if (prove->parsed()) return RunProve(prove_command);
  if (locks->parsed()) return RunLocks(locks_command);
  if (vkey->parsed()) return RunVkey(vkey_command);
  if (verify->parsed()) return RunVerify(verify_command);
  if (stark_commit->parsed()) return RunStarkCommit(stark_commit_command);
  if (devsetup->parsed()) return RunDevSetup(devsetup_command);
  if (version->parsed()) return PrintVersion();
  return kExitUsage;
}

}  // namespace
}  // namespace provd::daemon

int main(int argc, char** argv) { return provd::daemon::Main(argc, argv); }
