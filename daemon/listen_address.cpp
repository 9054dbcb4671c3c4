#include "daemon/listen_address.hpp"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace provd::daemon {

std::string ListenAddress::ToString() const {
  if (kind == Kind::kUnix) return absl::StrCat("unix:", unix_path);
  return absl::StrCat(host, ":", port);
}

bool ListenAddress::IsLoopback() const {
  if (kind == Kind::kUnix) return true;
  return host == "localhost" || host == "[::1]" || absl::StartsWith(host, "127.");
}

absl::StatusOr<ListenAddress> ParseListenAddress(absl::string_view text, absl::string_view flag,
                                                 bool allow_unix) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " \"", text, "\": ", why));
  };
  ListenAddress address;
  if (absl::StartsWith(text, "unix:")) {
    if (!allow_unix) return invalid("unix sockets are not supported here; use HOST:PORT");
    address.kind = ListenAddress::Kind::kUnix;
    address.unix_path = std::string(text.substr(5));
    if (address.unix_path.empty()) return invalid("expected unix:PATH");
    return address;
  }
  const size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos) return invalid("expected HOST:PORT or unix:PATH");
  address.host = std::string(text.substr(0, colon));
  absl::string_view port_text = text.substr(colon + 1);
  if (address.host.empty()) return invalid("the host is empty (use 127.0.0.1 or 0.0.0.0)");
  if (address.host.front() == '[' ? address.host.back() != ']'
                                  : address.host.find(':') != std::string::npos) {
    return invalid("write IPv6 hosts in brackets, e.g. [::1]:50051");
  }
  uint32_t port = 0;
  if (port_text.empty() || !absl::SimpleAtoi(port_text, &port) || port > 65535 ||
      port_text.find_first_not_of("0123456789") != absl::string_view::npos) {
    return invalid("the port must be a number from 0 to 65535");
  }
  address.port = static_cast<uint16_t>(port);
  return address;
}

}  // namespace provd::daemon
