#include "daemon/prove_command.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "arbiter/arbiter.hpp"
#include "daemon/atomic_file.hpp"
#include "daemon/gpu_detect.hpp"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/key_cache.hpp"
#include "prover_core/groth16/verifier.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::daemon {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr size_t kMaxSeedBytes = 1024;

// Per-round timings on stderr for --verbose; fallbacks always (they must never be silent).
class StderrObserver final : public plan::ProofObserver {
 public:
  explicit StderrObserver(bool verbose) : verbose_(verbose) {}
  void RoundFinished(plan::Round round, size_t chunks, absl::Duration wall) override {
    if (verbose_) {
      std::cerr << absl::StrFormat("provd prove: %-12s %4d chunk(s) %10.3f s\n",
                                   plan::RoundName(round), chunks, absl::ToDoubleSeconds(wall));
    }
  }
  void DeviceMoved(const plan::ChunkRef& chunk, plan::DeviceMove move, size_t device,
                   absl::Duration took) override {
    // Always printed: operators and tests watch for these.
    // The wall-clock time (unix ms) lets bench/preempt line moves up across processes.
    std::cerr << absl::StrFormat("provd prove: %s chunk %d/%d: %s device %d (%.3f ms) at %d\n",
                                 plan::RoundName(chunk.round), chunk.index + 1, chunk.count,
                                 plan::DeviceMoveName(move), device,
                                 absl::ToDoubleMilliseconds(took), absl::ToUnixMillis(absl::Now()));
  }
  void ChunkFellBack(const plan::ChunkRef& chunk, std::string_view backend,
                     const absl::Status& error) override {
    std::cerr << "provd prove: " << plan::RoundName(chunk.round) << " chunk " << chunk.index
              << " failed on " << backend << " (" << error.ToString()
              << "); rerunning it on the CPU\n";
  }
  void DeviceRetired(const plan::ChunkRef& chunk, size_t device,
                     const absl::Status& /*error*/) override {
    std::cerr << "provd prove: " << plan::RoundName(chunk.round) << " chunk " << chunk.index
              << ": device " << device
              << " is unusable by this process and retired; the proof goes on without it\n";
  }

 private:
  bool verbose_;
};

// The device numbers --gpus names: nullopt for "auto" (every usable one), none for "none".
absl::StatusOr<std::optional<std::vector<size_t>>> ParseGpus(const std::string& text) {
  if (text == "auto") return std::nullopt;
  std::vector<size_t> ids;
  if (text == "none") return ids;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    size_t id = 0;
    if (!absl::SimpleAtoi(part, &id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--gpus: \"", part, "\" is not a device number (auto, none or e.g. 0,2)"));
    }
    ids.push_back(id);
  }
  return ids;
}

// The devices to lock: `requested` (nullopt: all) out of `available`, each of them usable.
absl::StatusOr<std::vector<size_t>> PickGpus(const std::optional<std::vector<size_t>>& requested,
                                             const std::vector<size_t>& available) {
  if (!requested.has_value()) return available;
  for (size_t id : *requested) {
    if (std::find(available.begin(), available.end(), id) == available.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--gpus: device ", id, " is not usable (",
                                                     available.size(), " usable device(s))"));
    }
  }
  return *requested;
}

absl::StatusOr<std::optional<std::vector<uint8_t>>> ParseSeed(const std::string& hex) {
  if (hex.empty()) return std::nullopt;
  std::string digits = hex;
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits = digits.substr(2);
  const bool all_hex = std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
  if (digits.empty() || digits.size() % 2 != 0 || !all_hex) {
    return absl::InvalidArgumentError("--seed must be an even number of hex digits");
  }
  if (digits.size() / 2 > kMaxSeedBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seed is longer than ", kMaxSeedBytes, " bytes"));
  }
  const std::string bytes = absl::HexStringToBytes(digits);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace

void AddProveFlags(CLI::App& app, ProveCommand& command) {
  app.add_option("--zkey", command.zkey, "snarkjs Groth16 proving key (.zkey)")->required();
  app.add_option("--witness", command.witness, "witness (.wtns)")->required();
  app.add_option("--proof-out", command.proof_out, "where to write proof.json")->required();
  app.add_option("--public-out", command.public_out, "where to write public.json")->required();
  app.add_option("--proof-binary-out", command.proof_binary_out,
                 "also write the compact binary proof here");
  app.add_option("--seed", command.seed_hex,
                 "hex seed: derive the proof's randomness from it (same inputs and seed, same "
                 "proof bytes); default: OS entropy");
  app.add_option("--backend", command.backend, "where the kernels run")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  app.add_option("--threads", command.threads, "CPU threads (0: all cores)");
  app.add_option("--msm-chunk-points", command.msm_chunk_points,
                 "points per MSM chunk (0: one chunk per round)");
  app.add_option("--gpu-memory-budget-bytes", command.gpu_memory_budget_bytes,
                 "device memory the proof may hold on a GPU (0: 90% of what is free)");
  app.add_option("--ntt-chunk-stages", command.ntt_chunk_stages,
                 "NTT stages per chunk (0: a whole LDE step per chunk, one device call)");
  app.add_flag("--verbose", command.verbose, "print per-round timings to stderr");
  app.add_option("--priority", command.priority,
                 "high: take a GPU from low-priority provers; low: yield it to them")
      ->check(CLI::IsMember({"high", "low"}));
  app.add_option("--lock-dir", command.lock_dir,
                 "the lock directory shared by every prover of this host (default: "
                 "<temp dir>/provd-locks)");
  app.add_option("--gpus", command.gpus,
                 "auto: every GPU; none: CPU only; or a list of device numbers, e.g. 0,2");
  app.add_option("--simulated-gpus", command.simulated_gpus,
                 "arbitrate N simulated GPUs (for machines without one: tests, demos)");
  app.add_option("--simulated-gpu-latency-ms", command.simulated_gpu_latency_ms,
                 "latency of every simulated GPU kernel call");
  app.add_option("--low-priority-nice", command.low_priority_nice,
                 "nice value of a low-priority prover's threads (0: leave as is)")
      ->check(CLI::Range(0, 19));
  app.add_option("--gpu-wait", command.gpu_wait_seconds,
                 "seconds a high-priority prover waits for a GPU before using the CPU");
}

int RunProve(const ProveCommand& command) {
  absl::StatusOr<std::optional<std::vector<uint8_t>>> seed = ParseSeed(command.seed_hex);
  if (!seed.ok()) {
    std::cerr << "provd prove: " << seed.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::optional<std::vector<size_t>>> requested = ParseGpus(command.gpus);
  if (!requested.ok()) {
    std::cerr << "provd prove: " << requested.status().message() << "\n";
    return kExitUsage;
  }
  // Simulated GPUs stand in for real ones; real ones are only probed when they may be used,
  // and only those --gpus names are self-tested (each test leaves a CUDA context behind).
  std::vector<size_t> available;
  std::string why_no_gpu = "--gpus none";
  if (command.simulated_gpus > 0) {
    for (size_t n = 0; n < command.simulated_gpus; ++n) available.push_back(n);
  } else if (command.backend != "cpu" && command.gpus != "none") {
    GpuInventory inventory = DetectGpus(requested->has_value() ? &**requested : nullptr);
    for (const GpuDevice& device : inventory.devices) available.push_back(device.index);
    why_no_gpu = inventory.why_none;
  }
  absl::StatusOr<std::vector<size_t>> gpu_ids = PickGpus(*requested, available);
  if (!gpu_ids.ok()) {
    std::cerr << "provd prove: " << gpu_ids.status().message() << "\n";
    return kExitUsage;
  }
  if (command.backend == "gpu" && gpu_ids->empty()) {
    // Refuse rather than quietly prove on the CPU.
    std::cerr << "provd prove: --backend gpu: no usable GPU (" << why_no_gpu << ")\n";
    return kExitFailed;
  }
  std::unique_ptr<GpuBackendFactory> gpu_backends;
  if (command.simulated_gpus == 0 && !gpu_ids->empty()) {
    absl::StatusOr<std::unique_ptr<GpuBackendFactory>> factory =
        MakeGpuBackendFactory(nullptr, command.gpu_memory_budget_bytes);
    if (!factory.ok()) {
      std::cerr << "provd prove: " << factory.status().message() << "\n";
      return kExitUsage;
    }
    gpu_backends = *std::move(factory);
  }
  const bool arbitrating = !gpu_ids->empty() && command.backend != "cpu";
  if (arbitrating && command.priority == "low" && command.low_priority_nice > 0) {
    // Only a prover that arbitrates has someone to make room for. Before the pool exists:
    // Linux applies a nice value per thread, and new threads inherit the creator's.
    if (::setpriority(PRIO_PROCESS, 0, command.low_priority_nice) != 0) {
      std::cerr << "provd prove: cannot lower the CPU priority: " << std::strerror(errno) << "\n";
    }
  }
  ConfigureDefaultThreadPool(command.threads);
  ThreadPool& pool = DefaultThreadPool();

  const absl::Time start = absl::Now();
  // With its verification key: what is handed out is verified first, as the daemon does.
  absl::StatusOr<groth16::LoadedKey> key = groth16::LoadKey(command.zkey);
  if (!key.ok()) {
    std::cerr << "provd prove: " << key.status().ToString() << "\n";
    return kExitFailed;
  }
  absl::StatusOr<groth16::Witness> witness = groth16::ReadWitnessFile(command.witness);
  if (!witness.ok()) {
    std::cerr << "provd prove: " << witness.status().ToString() << "\n";
    return kExitFailed;
  }
  const absl::Duration load_time = absl::Now() - start;

  groth16::ProveOptions options;
  options.seed = *seed;
  options.msm_chunk_points = command.msm_chunk_points;
  options.ntt_chunk_stages = command.ntt_chunk_stages;
  StderrObserver observer(command.verbose);
  groth16::DevicePlan devices;
  std::unique_ptr<arbiter::Arbiter> arbiter;
  std::optional<arbiter::DeviceLease> lease;
  if (arbitrating) {
    absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> opened = arbiter::Arbiter::OpenDevices(
        command.lock_dir.empty() ? arbiter::DefaultLockDir()
                                 : std::filesystem::path(command.lock_dir),
        *gpu_ids);
    if (!opened.ok()) {
      std::cerr << "provd prove: " << opened.status().ToString() << "\n";
      return kExitFailed;
    }
    arbiter = *std::move(opened);
    const arbiter::Priority priority =
        command.priority == "high" ? arbiter::Priority::kHigh : arbiter::Priority::kLow;
    const absl::Time asked = absl::Now();
    absl::StatusOr<arbiter::DeviceLease> acquired =
        arbiter->Acquire(priority, absl::Seconds(command.gpu_wait_seconds));
    if (!acquired.ok()) {
      std::cerr << "provd prove: " << acquired.status().ToString() << "\n";
      return kExitFailed;
    }
    lease.emplace(*std::move(acquired));
    if (lease->device().has_value()) {
      std::cerr << absl::StrFormat("provd prove: %s priority: granted device %d (%.3f ms)\n",
                                   command.priority, *lease->device(),
                                   absl::ToDoubleMilliseconds(absl::Now() - asked));
    } else {
      std::cerr << "provd prove: " << command.priority
                << " priority: no device free, starting on the CPU\n";
    }
    devices.lease = &*lease;
    devices.simulated_gpus = command.simulated_gpus;
    devices.simulated.latency_per_call = absl::Milliseconds(command.simulated_gpu_latency_ms);
    devices.gpus = gpu_backends.get();
  }
  absl::StatusOr<groth16::ProofArtifacts> proof =
      groth16::Prove(key->proving, *witness, options, pool, devices, &observer);
  if (lease.has_value()) {
    const std::optional<size_t> device = lease->device();
    lease.reset();  // the device is free from here on, before the outputs are written
    if (device.has_value()) {
      std::cerr << absl::StrFormat("provd prove: released device %d at %d\n", *device,
                                   absl::ToUnixMillis(absl::Now()));
    }
  }
  if (!proof.ok()) {
    std::cerr << "provd prove: " << proof.status().ToString() << "\n";
    return kExitFailed;
  }
  const absl::Time verify_start = absl::Now();
  const groth16::VerifyOutcome verdict = groth16::VerifyArtifacts(key->verifying, *proof);
  if (command.verbose) {
    std::cerr << absl::StrFormat("provd prove: verified in %.2f ms\n",
                                 absl::ToDoubleMilliseconds(absl::Now() - verify_start));
  }
  if (!verdict.valid) {
    std::cerr << "provd prove: the proof fails verification against the key's own verification "
                 "key ("
              << verdict.reason << "); nothing written\n";
    return kExitFailed;
  }
  for (const auto& [path, contents] : {std::pair{command.proof_out, &proof->proof_json},
                                       std::pair{command.public_out, &proof->public_json}}) {
    if (absl::Status s = WriteFileAtomically(path, *contents); !s.ok()) {
      std::cerr << "provd prove: " << s.message() << "\n";
      return kExitFailed;
    }
  }
  if (!command.proof_binary_out.empty()) {
    if (absl::Status s = WriteFileAtomically(command.proof_binary_out, proof->proof_bytes);
        !s.ok()) {
      std::cerr << "provd prove: " << s.message() << "\n";
      return kExitFailed;
    }
  }
  if (command.verbose) {
    const groth16::ZkeyHeader& h = groth16::KeyFile(key->proving).header();
    std::cerr << absl::StrFormat(
        "provd prove: %s, %d variables, %d public, domain 2^%d, %d threads, %s; "
        "load %.3f s, total %.3f s\n",
        groth16::SnarkjsCurveName(h.curve), h.n_vars, h.n_public, h.log_domain, pool.size(),
        devices.simulated_gpus > 0
            ? absl::StrCat("cpu + ", devices.simulated_gpus, " simulated gpu(s)")
        : devices.gpus != nullptr ? absl::StrCat("cpu + ", gpu_ids->size(), " cuda gpu(s)")
                                  : std::string("cpu backend"),
        absl::ToDoubleSeconds(load_time), absl::ToDoubleSeconds(absl::Now() - start));
  }
  return kExitOk;
}

}  // namespace provd::daemon
