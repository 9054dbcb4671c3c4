#include "client/provctl_options.hpp"

#include <chrono>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/local_files.hpp"

namespace provd::client {
namespace {

// TLS settings from the flags; unset when no TLS flag was given.
absl::StatusOr<std::optional<TlsOptions>> LoadTls(const ConnectionFlags& flags) {
  if (!flags.tls && flags.tls_ca.empty() && flags.tls_cert.empty() && flags.tls_key.empty() &&
      flags.tls_server_name.empty()) {
    return std::nullopt;
  }
  TlsOptions tls;
  tls.server_name_override = flags.tls_server_name;
  for (const auto& [flag, path, pem] :
       {std::tuple{"--tls-ca", &flags.tls_ca, &tls.root_certs_pem},
        std::tuple{"--tls-cert", &flags.tls_cert, &tls.cert_chain_pem},
        std::tuple{"--tls-key", &flags.tls_key, &tls.private_key_pem}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::string> contents = ReadPemFile(*path);
    if (!contents.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " ", contents.status().message()));
    }
    *pem = *std::move(contents);
  }
  return tls;
}

absl::StatusOr<std::string> LoadToken(const ConnectionFlags& flags, const char* env_token) {
  if (flags.token_file.empty()) {
    return env_token == nullptr ? std::string() : StripTrailingNewline(env_token);
  }
  absl::StatusOr<std::string> token = ReadTokenFile(flags.token_file);
  if (!token.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--token-file ", token.status().message()));
  }
  return token;
}

}  // namespace

absl::StatusOr<ClientOptions> BuildClientOptions(const ConnectionFlags& flags,
                                                 const char* env_token) {
  ClientOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_seconds * 1000));
  absl::StatusOr<std::optional<TlsOptions>> tls = LoadTls(flags);
  if (!tls.ok()) return tls.status();
  options.tls = *std::move(tls);
  absl::StatusOr<std::string> token = LoadToken(flags, env_token);
  if (!token.ok()) return token.status();
  options.bearer_token = *std::move(token);
  if (absl::Status s = ValidateClientOptions(options); !s.ok()) return s;
  return options;
}

bool IsLocalTarget(absl::string_view target) {
  for (absl::string_view prefix :
       {"unix:", "unix-abstract:", "localhost:", "127.", "[::1]:", "ipv4:127.",
        "ipv6:[::1]:", "dns:localhost:", "dns:///localhost:"}) {
    if (absl::StartsWith(target, prefix)) return true;
  }
  return false;
}

}  // namespace provd::client
