// provctl's connection flags (--addr, --timeout, --tls-*, --token-file, $PROVD_TOKEN) turned
// into the ClientOptions of the client library. Kept apart from the flag parsing so that tests
// can check what a set of flags produces.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/prover_client.hpp"

namespace provd::client {

struct ConnectionFlags {
  std::string address = "127.0.0.1:50051";
  double timeout_seconds = 10;
  bool tls = false;             // --tls: TLS with the default roots
  std::string tls_ca;           // PEM file of the CAs to trust; implies TLS
  std::string tls_cert;         // client certificate for mutual TLS; implies TLS
  std::string tls_key;          // its private key
  std::string tls_server_name;  // name to check in the server's certificate; implies TLS
  std::string token_file;       // bearer token file; else `env_token`
};

// Reads the files the flags name. INVALID_ARGUMENT naming the flag when a file cannot be read
// or does not hold what it should (provctl exits 2 on it). `env_token` is $PROVD_TOKEN (null
// when unset), used when there is no --token-file.
absl::StatusOr<ClientOptions> BuildClientOptions(const ConnectionFlags& flags,
                                                 const char* env_token);

// Whether traffic to the gRPC target stays on this host (unix socket, loopback), where a bearer
// token sent without TLS is not exposed on the network.
bool IsLocalTarget(absl::string_view target);

}  // namespace provd::client
