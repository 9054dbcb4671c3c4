#include "daemon/jobs/job_runner.hpp"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/input_files.hpp"
#include "daemon/jobs/job_checkpoint.hpp"
#include "daemon/jobs/job_observer.hpp"
#include "daemon/jobs/labels.hpp"
#include "google/protobuf/util/time_util.h"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/verifier.hpp"
#include "prover_core/groth16/witness_file.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

JobEnding Failed(absl::Status error) {
  JobEnding ending;
  ending.state = provd::v1::JOB_STATE_FAILED;
  ending.error = std::move(error);
  return ending;
}

}  // namespace

std::optional<JobEnding> EndingOfError(const absl::Status& error, const JobControl& control) {
  if (absl::IsCancelled(error) && control.reason() != StopReason::kNone) {
    if (control.reason() == StopReason::kShutdown) return std::nullopt;
    JobEnding ending;
    ending.state = provd::v1::JOB_STATE_CANCELLED;
    ending.cancel_reason = StopReasonName(control.reason());
    ending.error = control.reason() == StopReason::kDeadline
                       ? absl::DeadlineExceededError("the job's deadline passed")
                       : absl::CancelledError("cancelled by a client");
    return ending;
  }
  return Failed(error);
}

ThreadPool& JobRunner::PoolFor(const StartedJob& job) const {
  return job.priority == provd::v1::PRIORITY_HIGH || options_.low_pool == nullptr
             ? *options_.high_pool
             : *options_.low_pool;
}

std::optional<JobEnding> JobRunner::Run(const StartedJob& job, const JobControl& control) {
  if (job.spec.has_stark_commit()) return RunStarkCommit(job, control);
  return RunGroth16(job, control);
}

std::optional<arbiter::DeviceLease> JobRunner::Lease(const StartedJob& job, JobObserver& observer) {
  if (options_.arbiter == nullptr) return std::nullopt;
  const bool high = job.priority == provd::v1::PRIORITY_HIGH;
  const absl::Time start = absl::Now();
  absl::StatusOr<arbiter::DeviceLease> lease =
      options_.arbiter->Acquire(high ? arbiter::Priority::kHigh : arbiter::Priority::kLow,
                                high ? options_.high_priority_gpu_wait : absl::ZeroDuration());
  if (!lease.ok()) {
    // The lock directory failed under us: prove on the CPU, and say so.
    spdlog::error("job {}: GPU arbitration failed, proving on the CPU: {}", job.id,
                  lease.status().ToString());
    return std::nullopt;
  }
  if (std::optional<size_t> device = lease->device()) {
    provd::v1::JobEvent event;
    auto* acquired = event.mutable_device_acquired();
    acquired->set_gpu_index(static_cast<uint32_t>(*device));
    *acquired->mutable_wait() = google::protobuf::util::TimeUtil::NanosecondsToDuration(
        absl::ToInt64Nanoseconds(absl::Now() - start));
    spdlog::info("job {}: acquired gpu {} after {}", job.id, *device,
                 absl::FormatDuration(absl::Now() - start));
    observer.Record(std::move(event));
  } else {
    spdlog::info("job {}: no GPU free, starting on the CPU", job.id);
  }
  return *std::move(lease);
}

std::optional<JobRunner::Rejection> JobRunner::Verify(const StartedJob& job,
                                                      const groth16::LoadedKey& key,
                                                      const groth16::ProofArtifacts& proof,
                                                      JobObserver& observer, bool retrying_on_cpu) {
  const absl::Time start = absl::Now();
  const groth16::VerifyOutcome outcome = groth16::VerifyArtifacts(key.verifying, proof);
  const std::string curve = groth16::SnarkjsCurveName(proof.curve);
  if (options_.metrics != nullptr) {
    options_.metrics->ProofVerified(curve, outcome.valid, absl::Now() - start);
  }
  if (outcome.valid) {
    spdlog::debug("job {}: proof verified in {}", job.id,
                  absl::FormatDuration(absl::Now() - start));
    return std::nullopt;
  }
  provd::v1::JobEvent::ProofRejected rejected = observer.EndRejectedAttempt(outcome.reason);
  rejected.set_retrying_on_cpu(retrying_on_cpu);
  if (options_.metrics != nullptr && rejected.gpu_indices().empty()) {
    options_.metrics->ProofRejected("cpu");
  }
  for (uint32_t gpu : rejected.gpu_indices()) {
    if (options_.metrics != nullptr) options_.metrics->ProofRejected(absl::StrCat(gpu));
    if (options_.rejections == nullptr || options_.arbiter == nullptr) continue;
    if (options_.rejections->Count(gpu)) {
      // A lease of this daemon that holds it now yields at its next chunk; none takes it again.
      options_.arbiter->Retire(gpu);
      rejected.add_retired_gpu_indices(gpu);
      spdlog::error(
          "gpu {} is retired until the daemon restarts: {} proofs it took part in failed "
          "verification (gpu_rejections_to_retire = {})",
          gpu, options_.rejections->count(gpu), options_.rejections->limit());
    }
  }
  spdlog::error(
      "job {}: the {} proof {} failed verification ({}); {}", job.id, curve,
      rejected.gpu_indices().empty()
          ? std::string("made on the CPU")
          : absl::StrCat("made partly on gpu ", absl::StrJoin(rejected.gpu_indices(), ",")),
      outcome.reason,
      retrying_on_cpu ? "it is thrown away and the job is proved again on the CPU"
                      : "it is thrown away and the job fails");
  const bool dropped = observer.RecordRejection(std::move(rejected)).ok();
  return Rejection{outcome.reason, dropped};
}

// The job's witness: spooled in the store, or the file it names in the inputs directory (read
// again here: it may have changed or gone since the submission was checked).
absl::StatusOr<groth16::Witness> JobRunner::LoadWitness(const StartedJob& job) {
  if (job.spec.groth16().has_witness_name()) {
    const std::string& name = job.spec.groth16().witness_name();
    absl::StatusOr<io::MappedFile> file = OpenInput(options_.inputs_dir, name);
    if (!file.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.groth16.witness_name \"", name, "\": ", file.status().message()));
    }
    return groth16::ParseWitness(file->bytes(),
                                 absl::StrCat("spec.groth16.witness_name \"", name, "\""));
  }
  absl::StatusOr<std::string> bytes = store_.ReadWitness(job.id);
  if (!bytes.ok()) return bytes.status();
  return groth16::ParseWitness(
      std::span(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()),
      absl::StrCat("job ", job.id, " witness"));
}

std::optional<JobEnding> JobRunner::RunGroth16(const StartedJob& job, const JobControl& control) {
  absl::StatusOr<groth16::Witness> witness = LoadWitness(job);
  if (!witness.ok()) return Failed(witness.status());
  absl::StatusOr<groth16::LoadedKey> key = keys_.Get(job.zkey_name);
  if (!key.ok()) return Failed(key.status());

  JobObserver observer(job.id, PriorityLabel(job.priority), store_, hub_, options_.metrics);
  observer.set_on_device_retired(options_.on_device_retired);
  std::optional<arbiter::DeviceLease> lease = Lease(job, observer);
  observer.set_lease(lease ? &*lease : nullptr);

  groth16::ProveOptions options = options_.prove;
  if (!job.seed.empty()) options.seed.emplace(job.seed.begin(), job.seed.end());
  groth16::DevicePlan devices;
  if (lease) {
    devices.lease = &*lease;
    devices.simulated_gpus = options_.simulated_gpus;
    devices.simulated = options_.simulated;
    devices.gpus = options_.gpus;
  }
  ThreadPool& pool = PoolFor(job);
  JobCheckpoint checkpoint(job.id, store_);
  const absl::Time start = absl::Now();
  absl::StatusOr<groth16::ProofArtifacts> proof = groth16::Prove(
      key->proving, *witness, options, pool, devices, &observer, control.flag(), &checkpoint);
  observer.Finish();
  if (proof.ok() && options_.verify_proofs) {
    if (std::optional<Rejection> rejection =
            Verify(job, *key, *proof, observer, /*retrying_on_cpu=*/true)) {
      // Every round on the CPU this time, and the GPU free for others meanwhile. Nothing of
      // the rejected attempt is reused: its MSM progress went with the event, or, if the store
      // failed there, the retry keeps none.
      lease.reset();
      observer.set_lease(nullptr);
      proof =
          groth16::Prove(key->proving, *witness, options, pool, groth16::DevicePlan{}, &observer,
                         control.flag(), rejection->progress_dropped ? &checkpoint : nullptr);
      observer.Finish();
      if (proof.ok()) {
        if (std::optional<Rejection> again =
                Verify(job, *key, *proof, observer, /*retrying_on_cpu=*/false)) {
          return Failed(absl::FailedPreconditionError(absl::StrCat(
              "the proof fails verification also when made on the CPU (", again->reason,
              "): the key \"", job.zkey_name,
              "\" is inconsistent, its verification key does not match its proving key")));
        }
      }
    }
  }
  if (proof.ok()) {
    spdlog::info("job {}: proved in {}", job.id, absl::FormatDuration(absl::Now() - start));
    JobEnding ending;
    ending.state = provd::v1::JOB_STATE_SUCCEEDED;
    ending.result.set_proof_json(proof->proof_json);
    ending.result.set_public_json(proof->public_json);
    return ending;
  }
  return EndingOfError(proof.status(), control);
}

}  // namespace provd::daemon
