// A small C++ client of provd: one channel, one call per method, gRPC errors turned into
// absl::Status with the server's code and message. provctl and the tests use it; so can any
// C++ program that submits proving jobs.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "provd/v1/prover.grpc.pb.h"

namespace provd::client {

struct ClientOptions {
  // Per-call deadline for unary calls; WatchJob streams have none.
  std::chrono::milliseconds timeout{10000};
  // Largest response accepted (proofs are small; job lists can be long).
  int max_receive_message_bytes = 64 << 20;
};

class ProverClient {
 public:
  // `target` is a gRPC target: "HOST:PORT" or "unix:PATH". No connection is made until the
  // first call.
  ProverClient(const std::string& target, ClientOptions options);

  // The grpc.health.v1 status of `service` ("" for the whole server).
  absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> Health(
      const std::string& service);

  absl::StatusOr<provd::v1::SubmitJobResponse> SubmitJob(
      const provd::v1::SubmitJobRequest& request);
  absl::StatusOr<provd::v1::Job> GetJob(const std::string& job_id);
  absl::StatusOr<provd::v1::Job> CancelJob(const std::string& job_id);
  absl::StatusOr<provd::v1::ListJobsResponse> ListJobs(const provd::v1::ListJobsRequest& request);
  // Calls `on_event` for every event until the stream ends (after the job's final event).
  absl::Status WatchJob(const provd::v1::WatchJobRequest& request,
                        const std::function<void(const provd::v1::JobEvent&)>& on_event);

 private:
  void SetDeadline(grpc::ClientContext& context) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<provd::v1::Prover::Stub> prover_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// The server's (or the channel's) error as an absl::Status with the same code.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace provd::client
