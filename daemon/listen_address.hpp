// Listen addresses as the flags spell them: "HOST:PORT" (IPv6 as "[::1]:PORT") or "unix:PATH".
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace provd::daemon {

struct ListenAddress {
  enum class Kind { kTcp, kUnix };
  Kind kind = Kind::kTcp;
  std::string host;       // kTcp: "127.0.0.1", "localhost", "[::1]", "0.0.0.0"
  uint16_t port = 0;      // kTcp: 0 asks the kernel for a free port
  std::string unix_path;  // kUnix

  // The address in gRPC's target syntax.
  std::string ToString() const;
  // True for unix sockets and loopback hosts: only this process's host can connect.
  bool IsLoopback() const;
};

// Parses `text`; errors name `flag` and say what is wrong.
absl::StatusOr<ListenAddress> ParseListenAddress(absl::string_view text, absl::string_view flag,
                                                 bool allow_unix);

}  // namespace provd::daemon
