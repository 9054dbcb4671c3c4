#include "daemon/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "arbiter/lock_dir.hpp"
#include "daemon/logging.hpp"
#include "daemon/store/open_job_store.hpp"
#include "nlohmann/json.hpp"

namespace provd::daemon {
namespace {

std::filesystem::path FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? std::filesystem::path(value)
                                              : std::filesystem::path();
}

// The gRPC default of 4 MiB is too small for witnesses; above 2 GiB gRPC's int limits break.
constexpr uint64_t kMinMessageBytes = 1ull << 20;
constexpr uint64_t kMaxMessageBytes = (2ull << 30) - 1;

}  // namespace

uint64_t DefaultMemoryBudget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  uint64_t memory = pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : 0;
  // In a container the cgroup's limit is what the OOM killer enforces ("max": none).
  std::ifstream limit("/sys/fs/cgroup/memory.max");
  uint64_t cgroup = 0;
  if (std::string text; limit >> text && absl::SimpleAtoi(text, &cgroup) && cgroup > 0) {
    memory = memory == 0 ? cgroup : std::min(memory, cgroup);
  }
  return memory == 0 ? uint64_t{1} << 62 : memory / 10 * 9;
}

std::filesystem::path DefaultDataDir() {
  if (auto dir = FromEnv("STATE_DIRECTORY"); !dir.empty()) {
    // systemd may pass several colon-separated directories; the first is ours.
    std::string first = dir.string().substr(0, dir.string().find(':'));
    return first;
  }
  if (auto dir = FromEnv("XDG_STATE_HOME"); !dir.empty()) return dir / "provd";
  if (auto dir = FromEnv("HOME"); !dir.empty()) return dir / ".local/state/provd";
  return "/var/lib/provd";
}

void AddServeFlags(CLI::App& app, ServeConfig& config) {
  app.add_option("--listen", config.listen,
                 "gRPC address: HOST:PORT (port 0 picks a free one) or unix:PATH")
      ->capture_default_str();
  app.add_option("--health-listen", config.health_listen,
                 "Also serve the gRPC health service, and nothing else, in plaintext here "
                 "(HOST:PORT or unix:PATH): for probes that cannot present a client certificate");
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Prometheus /metrics address HOST:PORT; empty disables it")
      ->capture_default_str();
  app.add_option("--data-dir", config.data_dir,
                 "Directory for the job store and spool (default: $STATE_DIRECTORY, "
                 "$XDG_STATE_HOME/provd, ~/.local/state/provd or /var/lib/provd)");
  app.add_option("--store", config.store,
                 "Where jobs are kept: sqlite (a database in --data-dir) or a PostgreSQL URI, "
                 "postgres://USER@HOST/DB?sslmode=verify-full; the password comes from "
                 "passfile=, PGPASSFILE, ~/.pgpass or PGPASSWORD, as libpq reads them")
      ->capture_default_str();
  app.add_option("--key-dir", config.key_dir,
                 "Directory of proving keys (.zkey), referred to by name (default: "
                 "<data-dir>/keys)");
  app.add_option("--inputs-dir", config.inputs_dir,
                 "Directory of job inputs referred to by name (stark_commit's columns_name; "
                 "default: <data-dir>/inputs)");
  app.add_option("--outputs-dir", config.outputs_dir,
                 "Directory where jobs write the outputs they are asked to name (stark_commit's "
                 "tree_name; default: <data-dir>/outputs)");
  app.add_option("--lock-dir", config.lock_dir,
                 "GPU arbitration lock directory shared by every provd on the host (default: " +
                     arbiter::DefaultLockDir().string() + ")");
  app.add_option("--log-level", config.log_level, "trace, debug, info, warn, error or critical")
      ->capture_default_str();
  app.add_option("--log-format", config.log_format, "text or json (one JSON object per line)")
      ->capture_default_str();
  app.add_option("--max-message-bytes", config.max_message_bytes,
                 "Largest gRPC request accepted, in bytes (bounds the witness size)")
      ->capture_default_str();
  app.add_option("--uploads", config.uploads,
                 "Accept UploadFile (provctl keys put, large witnesses) into the key and inputs "
                 "directories; false: those directories are filled by other means")
      ->capture_default_str();
  app.add_option("--shutdown-grace", config.shutdown_grace_seconds,
                 "Seconds running RPCs get to finish after SIGTERM/SIGINT")
      ->capture_default_str();
  app.add_option("--ready-file", config.ready_file,
                 "Once serving, write the bound addresses here as JSON (for scripts and tests)");
  app.add_flag("--print-config", config.print_config,
               "Print the effective configuration as JSON and exit");
  app.add_option("--config", config.config_file,
                 "TOML file of settings named like the flags without dashes, e.g. "
                 "cpu_workers = 2 or listen = \"unix:/run/provd.sock\"; flags win");

  app.add_option("--cpu-workers", config.cpu_workers,
                 "Jobs proving at once besides those on GPUs (0: GPU slots only)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  app.add_option("--gpu-workers", config.gpu_workers, "Jobs proving at once per GPU")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  app.add_option("--max-queued-jobs", config.max_queued_jobs,
                 "Queued jobs beyond which SubmitJob answers RESOURCE_EXHAUSTED")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
  app.add_option("--retention-hours", config.retention_hours,
                 "How long finished jobs (and their results) are kept")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 24.0 * 3650));
  app.add_option("--key-cache-bytes", config.key_cache_bytes,
                 "Proving keys kept loaded, in bytes (least recently used out first)")
      ->capture_default_str();
  app.add_option("--threads", config.threads, "Compute threads (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  app.add_option("--low-priority-nice", config.low_priority_nice,
                 "nice value of low-priority proofs' threads, so urgent ones get the cores "
                 "(0: same as high)")
      ->capture_default_str()
      ->check(CLI::Range(0, 19));
  app.add_option("--high-priority-gpu-wait", config.high_priority_gpu_wait_seconds,
                 "Seconds a high-priority job waits for a GPU before it starts on the CPU")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--msm-chunk-points", config.msm_chunk_points,
                 "Points per MSM chunk: a GPU can change hands between chunks (0: no chunks)")
      ->capture_default_str();
  app.add_option("--ntt-chunk-stages", config.ntt_chunk_stages,
                 "NTT stages per chunk (0: a whole LDE step per chunk, one device call)")
      ->capture_default_str();
  app.add_option("--stark-lde-chunk-columns", config.stark_lde_chunk_columns,
                 "stark_commit: trace columns per LDE chunk (0: one chunk)")
      ->capture_default_str();
  app.add_option("--stark-merkle-chunk-rows", config.stark_merkle_chunk_rows,
                 "stark_commit: rows per leaf-hashing chunk, hashes per level chunk (0: one "
                 "chunk per level)")
      ->capture_default_str();
  app.add_option("--memory-budget-bytes", config.memory_budget_bytes,
                 "Refuse (RESOURCE_EXHAUSTED) a Groth16 job whose proof would need more host "
                 "memory than this, estimated from its key (0: 90% of the host's or the "
                 "cgroup's memory)")
      ->capture_default_str();
  app.add_option("--gpu-memory-budget-bytes", config.gpu_memory_budget_bytes,
                 "Device memory one proof may hold on a GPU; larger MSMs run in batches "
                 "(0: 90% of the memory free when the proof starts there)")
      ->capture_default_str();
  app.add_option("--on-gpu-retired", config.on_gpu_retired,
                 "When a sticky CUDA error retires a GPU: restart (stop gracefully and exit "
                 "75 for the service manager to restart provd with a fresh CUDA context) or "
                 "continue (serve on without that GPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"restart", "continue"}));
  app.add_option("--verify-proofs", config.verify_proofs,
                 "Verify every proof against the key's own verification key before the job "
                 "succeeds; a proof that fails is proved again on the CPU, never handed out")
      ->capture_default_str();
  app.add_option("--gpu-rejections-to-retire", config.gpu_rejections_to_retire,
                 "Retire a GPU once this many proofs it took part in failed verification "
                 "(0: never)")
      ->capture_default_str();
  app.add_option("--tls-cert", config.security.tls_cert,
                 "Serve TLS with this certificate chain (PEM); needs --tls-key");
  app.add_option("--tls-key", config.security.tls_key, "Private key (PEM) of --tls-cert");
  app.add_option("--tls-client-ca", config.security.tls_client_ca,
                 "Mutual TLS: require client certificates signed by this CA (PEM)");
  app.add_option("--auth-token-file", config.security.auth_token_file,
                 "Require `authorization: Bearer <token>` on every job call, the token read "
                 "from this file (health checks stay open)");
  app.add_option("--simulated-gpus", config.simulated_gpus,
                 "Arbitrate this many simulated GPUs (computed on the CPU; for tests and demos)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  app.add_option("--simulated-gpu-latency-ms", config.simulated_gpu_latency_ms,
                 "Added latency of every simulated GPU kernel call")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60000.0));
  app.add_option("--simulated-gpu-lost-at-call", config.simulated_gpu_lost_at_call,
                 "Fault injection (tests): a simulated GPU is lost at its N-th kernel call of a "
                 "proof, as after a sticky CUDA error, and gets retired (0: never)")
      ->capture_default_str();
  app.add_option("--simulated-gpu-faults", config.simulated_gpu_faults,
                 "Fault injection (tests): corrupt=P[,seed=S] makes each MSM result of a "
                 "simulated GPU wrong with probability P, the call reporting success");
}

absl::Status ApplyConfigFile(CLI::App& app, const ServeConfig& config) {
  if (config.config_file.empty()) return absl::OkStatus();
  const std::string file = config.config_file.string();
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_file(file);
  } catch (const CLI::Error& e) {
    return absl::InvalidArgumentError(absl::StrCat("--config ", file, ": ", e.what()));
  }
  std::vector<std::string> errors;
  for (const CLI::ConfigItem& item : items) {
    if (!item.parents.empty()) {
      errors.push_back(absl::StrCat(file, ": [", absl::StrJoin(item.parents, "."),
                                    "]: sections are not settings of provd serve"));
      continue;
    }
    std::string name = item.name;
    std::replace(name.begin(), name.end(), '_', '-');
    CLI::Option* option = name == "config" ? nullptr : app.get_option_no_throw("--" + name);
    if (option == nullptr) {
      errors.push_back(absl::StrCat(file, ": unknown setting \"", item.name, "\""));
      continue;
    }
    if (option->count() > 0) continue;  // given on the command line, which wins
    try {
      for (const std::string& value : item.inputs) option->add_result(value);
      option->run_callback();
    } catch (const CLI::Error& e) {
      errors.push_back(absl::StrCat(file, ": ", item.name, ": ", e.what()));
    }
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
}

namespace {

absl::Status ParseSimulatedGpuFaults(ServeConfig& config) {
  config.simulated_gpu_corrupt = 0;
  config.simulated_gpu_corrupt_seed = 0;
  if (config.simulated_gpu_faults.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(config.simulated_gpu_faults, ',')) {
    const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    const bool ok = kv.first == "corrupt"
                        ? absl::SimpleAtod(kv.second, &config.simulated_gpu_corrupt) &&
                              config.simulated_gpu_corrupt >= 0 && config.simulated_gpu_corrupt <= 1
                    : kv.first == "seed"
                        ? absl::SimpleAtoi(kv.second, &config.simulated_gpu_corrupt_seed)
                        : false;
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("--simulated-gpu-faults \"", config.simulated_gpu_faults, "\": \"", item,
                       "\" is not corrupt=P (0 <= P <= 1) or seed=N"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FinalizeServeConfig(ServeConfig& config) {
  std::vector<std::string> errors;
  if (auto address = ParseListenAddress(config.listen, "--listen", /*allow_unix=*/true);
      address.ok()) {
    config.listen_address = *address;
  } else {
    errors.emplace_back(address.status().message());
  }
  if (!config.health_listen.empty()) {
    if (auto address = ParseListenAddress(config.health_listen, "--health-listen",
                                          /*allow_unix=*/true);
        address.ok()) {
      config.health_address = *address;
    } else {
      errors.emplace_back(address.status().message());
    }
  }
  if (!config.metrics_listen.empty()) {
    if (auto address =
            ParseListenAddress(config.metrics_listen, "--metrics-listen", /*allow_unix=*/false);
        address.ok()) {
      config.metrics_address = *address;
    } else {
      errors.emplace_back(address.status().message());
    }
  }
  if (config.data_dir.empty()) config.data_dir = DefaultDataDir();
  if (config.key_dir.empty()) config.key_dir = config.data_dir / "keys";
  if (config.inputs_dir.empty()) config.inputs_dir = config.data_dir / "inputs";
  if (config.outputs_dir.empty()) config.outputs_dir = config.data_dir / "outputs";
  if (config.lock_dir.empty()) config.lock_dir = arbiter::DefaultLockDir();
  if (config.memory_budget_bytes == 0) config.memory_budget_bytes = DefaultMemoryBudget();
  for (auto [path, flag] :
       {std::pair{&config.data_dir, "--data-dir"}, std::pair{&config.key_dir, "--key-dir"},
        std::pair{&config.inputs_dir, "--inputs-dir"},
        std::pair{&config.outputs_dir, "--outputs-dir"},
        std::pair{&config.lock_dir, "--lock-dir"}}) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(*path, ec);
    if (ec) {
      errors.push_back(absl::StrCat(flag, " ", path->string(), ": ", ec.message()));
    } else {
      *path = absolute;
    }
  }
  if (absl::Status s = ValidateStoreSetting(config.store); !s.ok()) {
    errors.emplace_back(s.message());
  }
  if (absl::Status s = ValidateLogSettings(config.log_level, config.log_format); !s.ok()) {
    errors.emplace_back(s.message());
  }
  if (absl::Status s = ValidateSecurityConfig(config.security); !s.ok()) {
    errors.emplace_back(s.message());
  }
  for (auto [path, flag] : {std::pair{&config.security.tls_cert, "--tls-cert"},
                            std::pair{&config.security.tls_key, "--tls-key"},
                            std::pair{&config.security.tls_client_ca, "--tls-client-ca"},
                            std::pair{&config.security.auth_token_file, "--auth-token-file"}}) {
    if (!path->empty() && !std::filesystem::is_regular_file(*path)) {
      errors.push_back(absl::StrCat(flag, " ", path->string(), ": no such file"));
    }
  }
  if (absl::Status s = ParseSimulatedGpuFaults(config); !s.ok()) errors.emplace_back(s.message());
  if (config.max_message_bytes < kMinMessageBytes || config.max_message_bytes > kMaxMessageBytes) {
    errors.push_back(absl::StrCat("--max-message-bytes ", config.max_message_bytes,
                                  ": must be from ", kMinMessageBytes, " to ", kMaxMessageBytes));
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
}

nlohmann::json ToJson(const ServeConfig& config) {
  return {
      {"config", config.config_file.string()},
      {"listen", config.listen},
      {"metrics_listen", config.metrics_listen},
      {"health_listen", config.health_listen},
      {"data_dir", config.data_dir.string()},
      {"store", DescribeStoreSetting(config.store)},
      {"key_dir", config.key_dir.string()},
      {"inputs_dir", config.inputs_dir.string()},
      {"outputs_dir", config.outputs_dir.string()},
      {"lock_dir", config.lock_dir.string()},
      {"log_level", config.log_level},
      {"log_format", config.log_format},
      {"max_message_bytes", config.max_message_bytes},
      {"uploads", config.uploads},
      {"shutdown_grace", config.shutdown_grace_seconds},
      {"ready_file", config.ready_file.string()},
      {"cpu_workers", config.cpu_workers},
      {"gpu_workers", config.gpu_workers},
      {"max_queued_jobs", config.max_queued_jobs},
      {"retention_hours", config.retention_hours},
      {"key_cache_bytes", config.key_cache_bytes},
      {"threads", config.threads},
      {"low_priority_nice", config.low_priority_nice},
      {"high_priority_gpu_wait", config.high_priority_gpu_wait_seconds},
      {"msm_chunk_points", config.msm_chunk_points},
      {"stark_lde_chunk_columns", config.stark_lde_chunk_columns},
      {"stark_merkle_chunk_rows", config.stark_merkle_chunk_rows},
      {"ntt_chunk_stages", config.ntt_chunk_stages},
      {"gpu_memory_budget_bytes", config.gpu_memory_budget_bytes},
      {"memory_budget_bytes", config.memory_budget_bytes},
      {"tls_cert", config.security.tls_cert.string()},
      {"tls_key", config.security.tls_key.string()},
      {"tls_client_ca", config.security.tls_client_ca.string()},
      {"auth_token_file", config.security.auth_token_file.string()},
      {"simulated_gpus", config.simulated_gpus},
      {"simulated_gpu_latency_ms", config.simulated_gpu_latency_ms},
      {"simulated_gpu_lost_at_call", config.simulated_gpu_lost_at_call},
      {"on_gpu_retired", config.on_gpu_retired},
      {"verify_proofs", config.verify_proofs},
      {"gpu_rejections_to_retire", config.gpu_rejections_to_retire},
      {"simulated_gpu_faults", config.simulated_gpu_faults},
  };
}

}  // namespace provd::daemon
