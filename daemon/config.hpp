// Configuration of `provd serve`: the flags, their defaults, and the validation that runs once
// before anything starts, reporting every problem at once rather than the first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "daemon/listen_address.hpp"
#include "daemon/server_security.hpp"
#include "nlohmann/json_fwd.hpp"

namespace CLI {
class App;
}

namespace provd::daemon {

struct ServeConfig {
  // As given on the command line.
  std::string listen = "127.0.0.1:50051";
  std::string metrics_listen = "127.0.0.1:9464";  // empty: no metrics endpoint
  std::string health_listen;          // plaintext gRPC health only (probes under mTLS); empty: none
  std::filesystem::path data_dir;     // empty: DefaultDataDir()
  std::string store = "sqlite";       // or a postgres:// URI (store/open_job_store.hpp)
  std::filesystem::path key_dir;      // empty: <data_dir>/keys
  std::filesystem::path inputs_dir;   // empty: <data_dir>/inputs (written by uploads only)
  std::filesystem::path outputs_dir;  // empty: <data_dir>/outputs
  std::filesystem::path lock_dir;     // empty: arbiter::DefaultLockDir()
  std::string log_level = "info";
  std::string log_format = "text";
  uint64_t max_message_bytes = 128ull << 20;
  bool uploads = true;  // UploadFile may write into key_dir and inputs_dir
  uint32_t shutdown_grace_seconds = 30;
  std::filesystem::path ready_file;  // written once serving: {"grpc": ..., "metrics": ...}
  bool print_config = false;
  std::filesystem::path config_file;  // TOML; settings in it yield to flags

  // Jobs.
  uint32_t cpu_workers = 1;          // jobs proving at once without a GPU
  uint32_t gpu_workers = 1;          // jobs per GPU at once
  uint64_t max_queued_jobs = 10000;  // SubmitJob: RESOURCE_EXHAUSTED beyond
  double retention_hours = 168;      // finished jobs are kept this long
  uint64_t key_cache_bytes = 8ull << 30;
  uint32_t threads = 0;  // compute threads; 0: all cores
  int low_priority_nice = 19;
  double high_priority_gpu_wait_seconds = 10;
  uint64_t msm_chunk_points = 1ull << 18;
  uint32_t ntt_chunk_stages = 0;
  // stark_commit chunking (stark::CommitOptions).
  uint64_t stark_lde_chunk_columns = 8;
  uint64_t stark_merkle_chunk_rows = 1ull << 16;
  // Device memory one proof may hold on a GPU (0: 90 % of what is free when it starts there).
  uint64_t gpu_memory_budget_bytes = 0;
  // Host memory a Groth16 proof may need (estimated from its key) before the job is refused
  // with RESOURCE_EXHAUSTED; 0: 90% of the memory the host or the container's cgroup offers.
  uint64_t memory_budget_bytes = 0;
  // What the daemon does when a GPU is retired (a sticky CUDA error ruined its context there):
  // "restart" stops gracefully (running jobs get the shutdown grace, the rest are requeued) and
  // exits with kExitRestart so that systemd or Kubernetes starts it again with a fresh
  // context; "continue" keeps serving without that GPU until someone restarts it.
  std::string on_gpu_retired = "restart";
  // Verify every proof against the key's own verification key before the job succeeds; a
  // proof that fails is proved again on the CPU and never handed out.
  bool verify_proofs = true;
  // A GPU that took part in this many rejected proofs is retired (0: never).
  uint32_t gpu_rejections_to_retire = 3;

  SecurityConfig security;

  // Simulated GPUs (tests, demos): arbitrated like real ones, computed on the CPU.
  uint32_t simulated_gpus = 0;
  double simulated_gpu_latency_ms = 0;
  uint64_t simulated_gpu_lost_at_call = 0;  // fault injection: SimulatedGpuOptions::lost_at_call
  // Fault injection: "corrupt=P[,seed=S]", MSM results wrong with probability P.
  std::string simulated_gpu_faults;
  double simulated_gpu_corrupt = 0;  // from simulated_gpu_faults
  uint64_t simulated_gpu_corrupt_seed = 0;

  // Filled in by FinalizeServeConfig.
  ListenAddress listen_address;
  ListenAddress metrics_address;
  ListenAddress health_address;
};

// Where the daemon keeps its state when --data-dir is not given: $STATE_DIRECTORY (set by
// systemd's StateDirectory=), else $XDG_STATE_HOME/provd, else $HOME/.local/state/provd, else
// /var/lib/provd.
std::filesystem::path DefaultDataDir();
// 90% of the smaller of the host's memory and the cgroup's limit (cgroup v2 memory.max).
uint64_t DefaultMemoryBudget();

// Declares the serve flags on `app`, writing into `config`.
void AddServeFlags(CLI::App& app, ServeConfig& config);

// Reads --config (if given) into the options of `app` that the command line left unset:
// INVALID_ARGUMENT naming the file and every unknown or bad setting. Call after parsing.
absl::Status ApplyConfigFile(CLI::App& app, const ServeConfig& config);

// Fills in the defaults and derived fields and validates everything; INVALID_ARGUMENT listing
// every bad flag otherwise.
absl::Status FinalizeServeConfig(ServeConfig& config);

// The effective configuration, for --print-config and the start-up log.
nlohmann::json ToJson(const ServeConfig& config);

}  // namespace provd::daemon
