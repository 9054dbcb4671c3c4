// `provd prove`: one Groth16 proof from a zkey and a witness, without the daemon. Writes
// snarkjs's proof.json and public.json (and optionally the compact binary proof).
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace provd::daemon {

struct ProveCommand {
  std::string zkey;
  std::string witness;
  std::string proof_out;
  std::string public_out;
  std::string proof_binary_out;  // empty: not written
  std::string seed_hex;          // empty: OS entropy
  std::string backend = "auto";
  uint32_t threads = 0;  // 0: all cores
  uint64_t msm_chunk_points = uint64_t{1} << 18;
  uint64_t gpu_memory_budget_bytes = 0;
  uint32_t ntt_chunk_stages = 0;
  bool verbose = false;
  // Arbitration with other provers on this host (arbiter/).
  std::string priority = "low";
  std::string lock_dir;  // empty: arbiter::DefaultLockDir()
  std::string gpus = "auto";
  uint32_t simulated_gpus = 0;
  uint32_t simulated_gpu_latency_ms = 0;
  double gpu_wait_seconds = 30;
  // The nice value of a low-priority prover's threads, so that its CPU work never slows down a
  // high-priority prover's host work on the same cores.
  int low_priority_nice = 19;
};

void AddProveFlags(CLI::App& app, ProveCommand& command);

// The exit status: 0 proved, 1 failed (the reason on stderr), 2 bad usage.
int RunProve(const ProveCommand& command);

}  // namespace provd::daemon
