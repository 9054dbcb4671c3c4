// The provd.v1.Prover gRPC service. Requests are validated here, then handed to the job
// machinery; until the prover and the job store exist, valid submissions are refused with
// UNIMPLEMENTED (never silently dropped), and no job ids exist to be found.
#pragma once

#include <atomic>

#include "daemon/request_validation.hpp"
#include "provd/v1/prover.grpc.pb.h"

namespace provd::daemon {

class ProverService final : public provd::v1::Prover::Service {
 public:
  explicit ProverService(RequestLimits limits) : limits_(limits) {}

  // From now on new work is refused with UNAVAILABLE (the daemon is shutting down).
  void StartDraining() { draining_.store(true, std::memory_order_relaxed); }

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

 private:
  const RequestLimits limits_;
  std::atomic<bool> draining_{false};
};

}  // namespace provd::daemon
