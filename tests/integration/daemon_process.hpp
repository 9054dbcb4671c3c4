// A real `provd serve` for integration tests: own temp dirs, a kernel-chosen loopback port
// (read back from --ready-file), and helpers to run provctl against it.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::testing {

class DaemonProcess {
 public:
  // Starts provd with `extra_flags` (which replace the defaults of the flags they name: the
  // loopback ports, --data-dir, --lock-dir, --ready-file, --shutdown-grace 5) and waits (at most 20
  // s) until it reports its addresses.
  static absl::StatusOr<std::unique_ptr<DaemonProcess>> Start(
      const std::vector<std::string>& extra_flags = {});
  // The same with its data dir, lock dir and logs under `state_dir`, which outlives it: a
  // daemon started again there finds the jobs of the one before.
  static absl::StatusOr<std::unique_ptr<DaemonProcess>> StartIn(
      const std::filesystem::path& state_dir, const std::vector<std::string>& extra_flags = {});

  const std::string& grpc_address() const { return grpc_address_; }
  const std::string& metrics_address() const { return metrics_address_; }
  // With --health-listen: where the plaintext health server listens.
  const std::string& health_address() const { return health_address_; }
  Subprocess& process() { return *process_; }
  const std::filesystem::path& state_dir() const { return state_dir_; }

  // Runs provctl --addr <this daemon> `args`.
  absl::StatusOr<ExitInfo> Provctl(const std::vector<std::string>& args);

 private:
  DaemonProcess() = default;

  TempDir dir_;
  std::filesystem::path state_dir_;
  std::optional<Subprocess> process_;
  std::string grpc_address_;
  std::string metrics_address_;
  std::string health_address_;
};

// The body of an HTTP GET on 127.0.0.1:port, or an error.
absl::StatusOr<std::string> HttpGet(const std::string& host_port, const std::string& path);

// True if a TCP listener can bind `host_port` right now (i.e. nobody holds it).
bool PortIsFree(const std::string& host_port);

}  // namespace provd::testing
