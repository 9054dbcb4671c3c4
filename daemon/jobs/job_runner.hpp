// Runs one started job from its spooled witness to its ending: loads the key (shared through
// the key cache), takes an arbiter lease for its priority, proves with events for every round
// and device move, verifies the proof against the key's own verification key, and says how the
// job ended, or that it must go back to the queue. A proof that fails verification is thrown
// away (ProofRejected): the job is proved again with every round on the CPU, the GPUs that ran
// part of it are counted against, and retired at, the rejection limit.
//
// A stark_commit job (stark_commit_job.cpp) runs the same way from its columns (spooled, or a
// file in the inputs directory) to its root, with the same lease, events and cancellation.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "arbiter/arbiter.hpp"
#include "daemon/jobs/event_hub.hpp"
#include "daemon/jobs/gpu_rejections.hpp"
#include "daemon/jobs/job_control.hpp"
#include "daemon/metrics.hpp"
#include "daemon/store/job_store.hpp"
#include "prover_core/groth16/key_cache.hpp"
#include "prover_core/groth16/witness_file.hpp"
#include "prover_core/simulated_gpu.hpp"
#include "prover_core/stark/trace_commitment.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::daemon {

class JobObserver;

// The ending of a job whose run failed with `error`: CANCELLED when it was stopped for a client
// or its deadline, nullopt (back to the queue) when it was stopped for a shutdown, FAILED
// otherwise.
std::optional<JobEnding> EndingOfError(const absl::Status& error, const JobControl& control);

struct JobRunnerOptions {
  // GPU arbitration; null: every job runs on the CPU and no lock file is touched.
  arbiter::Arbiter* arbiter = nullptr;
  // The arbiter's devices 0 .. simulated_gpus - 1 are simulated GPUs (simulated_gpu.hpp).
  size_t simulated_gpus = 0;
  SimulatedGpuOptions simulated;
  // The backends of the arbiter's real GPUs (devices from simulated_gpus on); may be null.
  GpuBackendFactory* gpus = nullptr;
  // How long a high-priority job waits for a GPU to come free before it starts on the CPU (it
  // keeps asking between chunks after that).
  absl::Duration high_priority_gpu_wait = absl::Seconds(10);
  // Chunking; the seed comes from each job.
  groth16::ProveOptions prove;
  stark::CommitOptions stark;
  // Where stark_commit jobs find columns_name and write tree_name (config inputs_dir,
  // outputs_dir).
  std::filesystem::path inputs_dir;
  std::filesystem::path outputs_dir;
  // CPU work of high-priority jobs, and of low-priority ones (a pool of lower-priority threads,
  // so that background proofs use the cores urgent ones leave idle).
  ThreadPool* high_pool = nullptr;
  ThreadPool* low_pool = nullptr;
  Metrics* metrics = nullptr;  // may be null
  // Told (on the job's thread) when a job retires a GPU after a sticky error; may be empty.
  std::function<void(size_t device)> on_device_retired;
  // Check every proof before the job succeeds (config verify_proofs).
  bool verify_proofs = true;
  // Rejected proofs per GPU, shared by the daemon's jobs; null: GPUs are never retired for them.
  GpuRejections* rejections = nullptr;
};

class JobRunner {
 public:
  JobRunner(JobStore& store, groth16::ProvingKeyCache& keys, EventHub& hub,
            JobRunnerOptions options)
      : store_(store), keys_(keys), hub_(hub), options_(std::move(options)) {}

  // How the job ended, or nullopt when it was stopped for a shutdown and must be requeued.
  std::optional<JobEnding> Run(const StartedJob& job, const JobControl& control);

 private:
  std::optional<JobEnding> RunGroth16(const StartedJob& job, const JobControl& control);
  absl::StatusOr<groth16::Witness> LoadWitness(const StartedJob& job);
  std::optional<JobEnding> RunStarkCommit(const StartedJob& job, const JobControl& control);
  // The CPU pool of the job's priority.
  ThreadPool& PoolFor(const StartedJob& job) const;
  std::optional<arbiter::DeviceLease> Lease(const StartedJob& job, JobObserver& observer);
  struct Rejection {
    std::string reason;     // the verifier's
    bool progress_dropped;  // the job's MSM progress went with the event (JobStore)
  };
  // Verifies a proof of `job`: nullopt when it is valid; otherwise why not, with the rejection
  // recorded (ProofRejected event, metrics, GPU counts, retirements). `retrying_on_cpu` goes
  // into the event.
  std::optional<Rejection> Verify(const StartedJob& job, const groth16::LoadedKey& key,
                                  const groth16::ProofArtifacts& proof, JobObserver& observer,
                                  bool retrying_on_cpu);

  JobStore& store_;
  groth16::ProvingKeyCache& keys_;
  EventHub& hub_;
  JobRunnerOptions options_;
};

}  // namespace provd::daemon
