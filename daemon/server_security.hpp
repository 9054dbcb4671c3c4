// Who may talk to the daemon: TLS (and mutual TLS) from PEM files, and an optional bearer token
// that every provd.v1.Prover call must carry as `authorization: Bearer <token>`. The gRPC health
// service stays open, so that liveness and readiness probes need no secret; it tells nothing
// but whether the daemon serves.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace grpc {
class ServerContext;
class ServerCredentials;
}  // namespace grpc

namespace provd::daemon {

struct SecurityConfig {
  std::filesystem::path tls_cert;         // server certificate chain (PEM); with tls_key: TLS
  std::filesystem::path tls_key;          // its private key (PEM)
  std::filesystem::path tls_client_ca;    // set: clients must present a certificate it signed
  std::filesystem::path auth_token_file;  // set: Prover calls need this bearer token

  bool tls() const { return !tls_cert.empty(); }
};

// INVALID_ARGUMENT (naming the flags) for combinations that make no sense; no file is read.
absl::Status ValidateSecurityConfig(const SecurityConfig& config);

// Insecure credentials without TLS; otherwise TLS from the PEM files, requiring and verifying a
// client certificate when tls_client_ca is set. FAILED_PRECONDITION naming the flag and the file
// when one cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const SecurityConfig& config);

// Checks the bearer token of each call. An empty token lets every call through.
class BearerTokenCheck {
 public:
  // Reads the token (trailing newline removed) from `path`; none when `path` is empty.
  // FAILED_PRECONDITION for an unreadable file, INVALID_ARGUMENT for an empty or non-printable
  // token.
  static absl::StatusOr<BearerTokenCheck> FromFile(const std::filesystem::path& path);
  BearerTokenCheck() = default;

  // UNAUTHENTICATED unless the call carries the token; compared in constant time.
  absl::Status Check(const grpc::ServerContext& context) const;
  bool enabled() const { return !token_.empty(); }

 private:
  explicit BearerTokenCheck(std::string token) : token_(std::move(token)) {}
  std::string token_;
};

}  // namespace provd::daemon
