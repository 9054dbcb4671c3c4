// The provd.v1.Prover gRPC service: checks untrusted requests (syntax, then the key and the
// witness against it), hands accepted jobs to the store and the scheduler, and answers from the
// store. Every error is an absl::Status mapped once onto its gRPC code (grpc_status.hpp).
#pragma once

#include <atomic>

#include "daemon/jobs/event_hub.hpp"
#include "daemon/jobs/scheduler.hpp"
#include "daemon/metrics.hpp"
#include "daemon/request_validation.hpp"
#include "daemon/server_security.hpp"
#include "daemon/store/job_store.hpp"
#include "provd/v1/prover.grpc.pb.h"
#include "prover_core/groth16/key_cache.hpp"

namespace provd::daemon {

class ProverService final : public provd::v1::Prover::Service {
 public:
  // `inputs_dir`: where a stark_commit job's columns_name is resolved.
  ProverService(RequestLimits limits, BearerTokenCheck auth, JobStore& store, Scheduler& scheduler,
                groth16::ProvingKeyCache& keys, std::filesystem::path inputs_dir, EventHub& hub,
                Metrics* metrics /* may be null */)
      : limits_(limits),
        auth_(std::move(auth)),
        store_(store),
        scheduler_(scheduler),
        keys_(keys),
        inputs_dir_(std::move(inputs_dir)),
        hub_(hub),
        metrics_(metrics) {}

  // From now on new jobs are refused with UNAVAILABLE (the daemon is shutting down).
  void StartDraining() { draining_.store(true, std::memory_order_relaxed); }
  // Open WatchJob streams end with UNAVAILABLE (the client watches again after the restart).
  void StopStreams() {
    streams_stopped_.store(true, std::memory_order_relaxed);
    hub_.Notify();
  }

  grpc::Status SubmitJob(grpc::ServerContext* context, const provd::v1::SubmitJobRequest* request,
                         provd::v1::SubmitJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const provd::v1::GetJobRequest* request,
                      provd::v1::Job* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const provd::v1::WatchJobRequest* request,
                        grpc::ServerWriter<provd::v1::JobEvent>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const provd::v1::CancelJobRequest* request,
                         provd::v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const provd::v1::ListJobsRequest* request,
                        provd::v1::ListJobsResponse* response) override;
  grpc::Status VerifyProof(grpc::ServerContext* context,
                           const provd::v1::VerifyProofRequest* request,
                           provd::v1::VerifyProofResponse* response) override;
  grpc::Status UploadFile(grpc::ServerContext* context,
                          grpc::ServerReader<provd::v1::UploadFileRequest>* reader,
                          provd::v1::UploadFileResponse* response) override;
  grpc::Status ListFiles(grpc::ServerContext* context, const provd::v1::ListFilesRequest* request,
                         provd::v1::ListFilesResponse* response) override;

 private:
  absl::Status Submit(const provd::v1::SubmitJobRequest& request,
                      provd::v1::SubmitJobResponse& response);
  // The key and the witness, checked against each other.
  // The witness's size in bytes once the key and the witness (inline or named) are checked.
  // `memory_bytes`: the proof's estimated peak memory, within the budget.
  absl::StatusOr<uint64_t> CheckGroth16(const provd::v1::Groth16Spec& spec, uint64_t& memory_bytes);
  // A file named by columns_name: there, inside the inputs directory, and of the stated shape's
  // size; its bytes are the job's input size. (Inline columns were checked with the request.)
  absl::StatusOr<uint64_t> CheckStarkColumnsFile(const provd::v1::StarkCommitSpec& spec);
  // The request as the store keeps it: the spec without its input bytes, and those bytes.
  absl::StatusOr<JobSubmission> Submission(const provd::v1::SubmitJobRequest& request);
  absl::StatusOr<provd::v1::VerifyProofResponse> Verify(
      const provd::v1::VerifyProofRequest& request);
  absl::StatusOr<provd::v1::UploadFileResponse> ReceiveUpload(
      grpc::ServerReader<provd::v1::UploadFileRequest>& reader);
  // The directory of an area and how messages call it; INVALID_ARGUMENT for no area.
  absl::StatusOr<std::pair<std::filesystem::path, const char*>> AreaDir(
      provd::v1::FileArea area) const;

  const RequestLimits limits_;
  const BearerTokenCheck auth_;
  JobStore& store_;
  Scheduler& scheduler_;
  groth16::ProvingKeyCache& keys_;
  const std::filesystem::path inputs_dir_;
  EventHub& hub_;
  Metrics* metrics_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> streams_stopped_{false};
};

}  // namespace provd::daemon
