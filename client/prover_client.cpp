#include "client/prover_client.hpp"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "absl/status/status.h"

namespace provd::client {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

ProverClient::ProverClient(const std::string& target, ClientOptions options) : options_(options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_message_bytes);
  args.SetMaxSendMessageSize(-1);  // the server enforces its own limit and says so
  channel_ = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  prover_ = provd::v1::Prover::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

void ProverClient::SetDeadline(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() + options_.timeout);
}

absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> ProverClient::Health(
    const std::string& service) {
  grpc::ClientContext context;
  SetDeadline(context);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  if (grpc::Status s = health_->Check(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response.status();
}

absl::StatusOr<provd::v1::SubmitJobResponse> ProverClient::SubmitJob(
    const provd::v1::SubmitJobRequest& request) {
  grpc::ClientContext context;
  SetDeadline(context);
  provd::v1::SubmitJobResponse response;
  if (grpc::Status s = prover_->SubmitJob(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response;
}

absl::StatusOr<provd::v1::Job> ProverClient::GetJob(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(context);
  provd::v1::GetJobRequest request;
  request.set_job_id(job_id);
  provd::v1::Job job;
  if (grpc::Status s = prover_->GetJob(&context, request, &job); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return job;
}

absl::StatusOr<provd::v1::Job> ProverClient::CancelJob(const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(context);
  provd::v1::CancelJobRequest request;
  request.set_job_id(job_id);
  provd::v1::Job job;
  if (grpc::Status s = prover_->CancelJob(&context, request, &job); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return job;
}

absl::StatusOr<provd::v1::ListJobsResponse> ProverClient::ListJobs(
    const provd::v1::ListJobsRequest& request) {
  grpc::ClientContext context;
  SetDeadline(context);
  provd::v1::ListJobsResponse response;
  if (grpc::Status s = prover_->ListJobs(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response;
}

absl::Status ProverClient::WatchJob(
    const provd::v1::WatchJobRequest& request,
    const std::function<void(const provd::v1::JobEvent&)>& on_event) {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<provd::v1::JobEvent>> reader =
      prover_->WatchJob(&context, request);
  provd::v1::JobEvent event;
  while (reader->Read(&event)) on_event(event);
  return FromGrpcStatus(reader->Finish());
}

}  // namespace provd::client
