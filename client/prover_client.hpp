// A small C++ client of provd: one channel, one call per method, gRPC errors turned into
// absl::Status with the server's code and message. provctl and the tests use it; so can any
// C++ program that submits proving jobs. Transport security (TLS, mutual TLS) and the bearer
// token are set in ClientOptions, so every user of the library gets the same behaviour as
// provctl.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "provd/v1/prover.grpc.pb.h"
#include "prover_core/io/digest.hpp"

namespace provd::client {

// TLS settings, as PEM contents rather than paths so that callers (tests, embedders) need no
// files; provctl reads its --tls-* files into this.
struct TlsOptions {
  // The CA certificates that may sign the server's certificate. Empty: gRPC's default roots
  // (the system's, or GRPC_DEFAULT_SSL_ROOTS_FILE_PATH).
  std::string root_certs_pem;
  // The client's certificate chain and private key for mutual TLS: both or neither.
  std::string cert_chain_pem;
  std::string private_key_pem;
  // The name to check in the server's certificate instead of the target's host, for dialing an
  // IP address or a unix socket (gRPC's GRPC_SSL_TARGET_NAME_OVERRIDE_ARG). Empty: the host.
  std::string server_name_override;
};

struct ClientOptions {
  // Per-call deadline for unary calls; WatchJob streams have none unless given one.
  std::chrono::milliseconds timeout{10000};
  // Largest response accepted (proofs are small; job lists can be long).
  int max_receive_message_bytes = 64 << 20;
  // Unset: plaintext (fine on a unix socket or loopback). Set: TLS with these settings.
  std::optional<TlsOptions> tls;
  // Sent as `authorization: Bearer <token>` metadata on every call (health and streams too).
  // Empty: no authorization metadata.
  std::string bearer_token;
};

// OK when the options can make a working channel; INVALID_ARGUMENT naming the problem otherwise
// (PEM that does not parse, a client key that does not match its certificate, a token that
// cannot be sent as metadata). gRPC would otherwise only fail at the first call, with a vague
// UNAVAILABLE.
absl::Status ValidateClientOptions(const ClientOptions& options);

class ProverClient {
 public:
  // `target` is a gRPC target: "HOST:PORT" or "unix:PATH". No connection is made until the
  // first call. `options` should pass ValidateClientOptions.
  ProverClient(const std::string& target, ClientOptions options);

  // The grpc.health.v1 status of `service` ("" for the whole server).
  absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> Health(
      const std::string& service);

  absl::StatusOr<provd::v1::SubmitJobResponse> SubmitJob(
      const provd::v1::SubmitJobRequest& request);
  absl::StatusOr<provd::v1::Job> GetJob(const std::string& job_id);
  absl::StatusOr<provd::v1::Job> CancelJob(const std::string& job_id);
  absl::StatusOr<provd::v1::ListJobsResponse> ListJobs(const provd::v1::ListJobsRequest& request);
  absl::StatusOr<provd::v1::VerifyProofResponse> VerifyProof(
      const provd::v1::VerifyProofRequest& request);
  // Uploads the local file `path` into the daemon's key or inputs directory as `begin` says
  // (begin.size is the file's size): UploadFile in chunks of kUploadChunkBytes with the file's
  // SHA-256 at the end: `known`, when the caller has read the file already, else taken by a
  // first read of the whole file. `on_progress(bytes_sent)` after each chunk. A file that
  // changes between the digest and the stream fails the daemon's digest check, so nothing
  // half-old, half-new is stored.
  static constexpr size_t kUploadChunkBytes = 1 << 20;
  absl::StatusOr<provd::v1::UploadFileResponse> UploadFile(
      provd::v1::UploadBegin begin, const std::string& path,
      const std::function<void(uint64_t)>& on_progress = {},
      std::optional<io::FileDigest> known = std::nullopt);
  absl::StatusOr<provd::v1::ListFilesResponse> ListFiles(provd::v1::FileArea area);
  // Calls `on_event` for every event until the stream ends (after the job's final event).
  absl::Status WatchJob(const provd::v1::WatchJobRequest& request,
                        const std::function<void(const provd::v1::JobEvent&)>& on_event);
  // The same, but the stream is cut with DEADLINE_EXCEEDED at `deadline` (time_point::max():
  // never).
  absl::Status WatchJob(const provd::v1::WatchJobRequest& request,
                        std::chrono::system_clock::time_point deadline,
                        const std::function<void(const provd::v1::JobEvent&)>& on_event);

  // Waits until `until` before a retry, meanwhile making the channel (re)connect, so that the
  // retry finds it connected when the daemon is back. A plain sleep would not do: a synchronous
  // channel only makes progress on its connection attempts while a call or a wait polls it
  // (otherwise every 5 s), so a retry after a sleep fails again on a stale TRANSIENT_FAILURE.
  void PauseBeforeRetry(std::chrono::system_clock::time_point until);

 private:
  // Adds the authorization metadata and, unless `deadline` is time_point::max(), the deadline.
  void PrepareContext(grpc::ClientContext& context,
                      std::chrono::system_clock::time_point deadline) const;
  // PrepareContext with the unary timeout from now.
  void PrepareUnaryContext(grpc::ClientContext& context) const;
  // One unary call: `call(context, response)` makes it on a prepared context; a gRPC error
  // becomes an absl::Status.
  template <typename Response, typename Call>
  absl::StatusOr<Response> Unary(Call call) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<provd::v1::Prover::Stub> prover_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// The server's (or the channel's) error as an absl::Status with the same code.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace provd::client
