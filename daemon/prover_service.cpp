#include "daemon/prover_service.hpp"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "daemon/grpc_status.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

absl::Status UnknownJob(absl::string_view job_id) {
  return absl::NotFoundError(absl::StrCat("no job with id \"", job_id, "\""));
}

}  // namespace

grpc::Status ProverService::SubmitJob(grpc::ServerContext* context,
                                      const provd::v1::SubmitJobRequest* request,
                                      provd::v1::SubmitJobResponse* /*response*/) {
  if (draining_.load(std::memory_order_relaxed)) {
    return ToGrpcStatus(absl::UnavailableError("provd is shutting down; retry on another host"));
  }
  if (absl::Status s = ValidateSubmitJob(*request, limits_); !s.ok()) {
    spdlog::info("SubmitJob from {} rejected: {}", context->peer(), s.ToString());
    return ToGrpcStatus(s);
  }
  return ToGrpcStatus(absl::UnimplementedError(
      "this build of provd validates jobs but cannot run them yet: the job service is not "
      "built in (prove one job with `provd prove`)"));
}

grpc::Status ProverService::GetJob(grpc::ServerContext* /*context*/,
                                   const provd::v1::GetJobRequest* request,
                                   provd::v1::Job* /*response*/) {
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  return ToGrpcStatus(UnknownJob(request->job_id()));
}

grpc::Status ProverService::WatchJob(grpc::ServerContext* /*context*/,
                                     const provd::v1::WatchJobRequest* request,
                                     grpc::ServerWriter<provd::v1::JobEvent>* /*writer*/) {
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  return ToGrpcStatus(UnknownJob(request->job_id()));
}

grpc::Status ProverService::CancelJob(grpc::ServerContext* /*context*/,
                                      const provd::v1::CancelJobRequest* request,
                                      provd::v1::Job* /*response*/) {
  if (absl::Status s = ValidateJobId(request->job_id()); !s.ok()) return ToGrpcStatus(s);
  return ToGrpcStatus(UnknownJob(request->job_id()));
}

grpc::Status ProverService::ListJobs(grpc::ServerContext* /*context*/,
                                     const provd::v1::ListJobsRequest* request,
                                     provd::v1::ListJobsResponse* /*response*/) {
  if (absl::Status s = ValidateListJobs(*request); !s.ok()) return ToGrpcStatus(s);
  if (!request->page_token().empty()) {
    return ToGrpcStatus(absl::InvalidArgumentError("page_token: not a token this server issued"));
  }
  return grpc::Status::OK;  // no jobs exist: an empty first and last page
}

}  // namespace provd::daemon
