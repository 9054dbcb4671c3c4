#include "daemon/server_security.hpp"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>
#include <openssl/crypto.h>

#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace provd::daemon {
namespace {

constexpr absl::string_view kBearerPrefix = "Bearer ";

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path, absl::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return absl::FailedPreconditionError(absl::StrCat(flag, " ", path.string(), ": cannot read"));
  }
  if (!in.is_open()) {
    return absl::FailedPreconditionError(absl::StrCat(flag, " ", path.string(), ": cannot open"));
  }
  return contents;
}

}  // namespace

absl::Status ValidateSecurityConfig(const SecurityConfig& config) {
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  if (!config.tls_client_ca.empty() && !config.tls()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const SecurityConfig& config) {
  if (!config.tls()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadFile(config.tls_cert, "--tls-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFile(config.tls_key, "--tls-key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!config.tls_client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadFile(config.tls_client_ca, "--tls-client-ca");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<BearerTokenCheck> BearerTokenCheck::FromFile(const std::filesystem::path& path) {
  if (path.empty()) return BearerTokenCheck();
  absl::StatusOr<std::string> token = ReadFile(path, "--auth-token-file");
  if (!token.ok()) return token.status();
  while (!token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();
  if (token->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-token-file ", path.string(), ": the token is empty"));
  }
  for (char c : *token) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError(absl::StrCat(
          "--auth-token-file ", path.string(), ": the token must be printable ASCII, no spaces"));
    }
  }
  return BearerTokenCheck(*std::move(token));
}

absl::Status BearerTokenCheck::Check(const grpc::ServerContext& context) const {
  if (token_.empty()) return absl::OkStatus();
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError("this provd needs `authorization: Bearer <token>`");
  }
  absl::string_view given(it->second.data(), it->second.size());
  // Compare the whole header in constant time, so timing tells nothing about the token.
  const std::string expected = absl::StrCat(kBearerPrefix, token_);
  if (given.size() != expected.size() ||
      CRYPTO_memcmp(given.data(), expected.data(), expected.size()) != 0) {
    return absl::UnauthenticatedError("the bearer token is not the one this provd accepts");
  }
  return absl::OkStatus();
}

}  // namespace provd::daemon
