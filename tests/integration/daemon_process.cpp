#include "tests/integration/daemon_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace provd::testing {
namespace {

absl::StatusOr<sockaddr_in> ParseHostPort(const std::string& host_port) {
  size_t colon = host_port.rfind(':');
  int port = 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (colon == std::string::npos || !absl::SimpleAtoi(host_port.substr(colon + 1), &port) ||
      ::inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("not an IPv4 HOST:PORT: ", host_port));
  }
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonProcess>> DaemonProcess::Start(
    const std::vector<std::string>& extra_flags) {
  return StartIn({}, extra_flags);
}

absl::StatusOr<std::unique_ptr<DaemonProcess>> DaemonProcess::StartIn(
    const std::filesystem::path& state_dir, const std::vector<std::string>& extra_flags) {
  std::unique_ptr<DaemonProcess> daemon(new DaemonProcess());
  daemon->state_dir_ = state_dir.empty() ? daemon->dir_.path() : state_dir;
  const std::filesystem::path& dir = daemon->state_dir_;
  const auto ready_file = dir / "ready.json";
  std::filesystem::remove(ready_file);  // a previous daemon's
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"--listen", "127.0.0.1:0"},
      {"--metrics-listen", "127.0.0.1:0"},
      {"--data-dir", (dir / "data").string()},
      {"--lock-dir", (dir / "locks").string()},
      {"--ready-file", ready_file.string()},
      {"--shutdown-grace", "5"}};
  std::vector<std::string> argv = {PROVD_BINARY, "serve"};
  for (const auto& [flag, value] : defaults) {
    // A flag the test gives replaces the default (provd refuses a flag given twice).
    if (std::find(extra_flags.begin(), extra_flags.end(), flag) != extra_flags.end()) continue;
    argv.push_back(flag);
    argv.push_back(value);
  }
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<Subprocess> process = Subprocess::Start(argv, daemon->dir_.path());
  if (!process.ok()) return process.status();
  daemon->process_.emplace(*std::move(process));

  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (!std::filesystem::exists(ready_file)) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "provd did not become ready within 20s; stderr:\n", daemon->process_->Stderr()));
    }
    absl::StatusOr<ExitInfo> early = daemon->process_->Wait(absl::Milliseconds(20));
    if (early.ok()) {
      return absl::InternalError(absl::StrCat("provd exited with ", early->code,
                                              " before it was ready; stderr:\n",
                                              early->stderr_text));
    }
  }
  nlohmann::json ready = nlohmann::json::parse(ReadFile(ready_file));
  daemon->grpc_address_ = ready["grpc"].get<std::string>();
  daemon->metrics_address_ = ready["metrics"].get<std::string>();
  daemon->health_address_ = ready.value("health", std::string());
  return daemon;
}

absl::StatusOr<ExitInfo> DaemonProcess::Provctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {PROVCTL_BINARY, "--addr", grpc_address_, "--timeout", "10"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunToCompletion(argv, dir_.path(), absl::Seconds(30));
}

absl::StatusOr<std::string> HttpGet(const std::string& host_port, const std::string& path) {
  absl::StatusOr<sockaddr_in> addr = ParseHostPort(host_port);
  if (!addr.ok()) return addr.status();
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket failed");
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof(*addr)) != 0) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", host_port));
  }
  std::string request = absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: ", host_port, "\r\n\r\n");
  (void)::write(fd, request.data(), request.size());
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0;) response.append(buffer, n);
  ::close(fd);
  size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.", 0) != 0 || body == std::string::npos) {
    return absl::InternalError(absl::StrCat("bad HTTP response: ", response.substr(0, 80)));
  }
  if (response.find(" 200 ") > response.find("\r\n")) {
    return absl::InternalError(
        absl::StrCat("HTTP status: ", response.substr(0, response.find("\r\n"))));
  }
  return response.substr(body + 4);
}

bool PortIsFree(const std::string& host_port) {
  absl::StatusOr<sockaddr_in> addr = ParseHostPort(host_port);
  if (!addr.ok()) return false;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  // SO_REUSEADDR as every server sets it: TIME_WAIT leftovers do not count as "held".
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  bool free = ::bind(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof(*addr)) == 0 &&
              ::listen(fd, 1) == 0;
  ::close(fd);
  return free;
}

}  // namespace provd::testing
