// The running daemon: starts its parts in dependency order and stops them in reverse.
//   start: directories -> GPUs -> lock dir (only with GPUs) -> metrics -> gRPC
//   stop:  refuse new work -> gRPC (grace period) -> metrics
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arbiter/lock_dir.hpp"
#include "daemon/config.hpp"
#include "daemon/metrics.hpp"
#include "daemon/prover_service.hpp"
#include "prover_core/gpu_device.hpp"

namespace grpc {
class Server;
}

namespace provd::daemon {

class Daemon {
 public:
  // `config` must have passed FinalizeServeConfig. Errors say which part failed to start.
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const ServeConfig& config);
  ~Daemon();

  // Marks the daemon NOT_SERVING, refuses new jobs, and gives running RPCs `grace` to finish
  // before cancelling them. Idempotent.
  void Shutdown(absl::Duration grace);

  // The addresses actually bound (port 0 resolved); metrics is empty when disabled.
  const std::string& grpc_address() const { return grpc_address_; }
  const std::string& metrics_address() const { return metrics_address_; }

 private:
  Daemon() = default;

  ServeConfig config_;
  GpuInventory gpus_;
  std::optional<arbiter::LockDir> lock_dir_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  std::unique_ptr<ProverService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string grpc_address_;
  std::string metrics_address_;
  bool stopped_ = false;
};

}  // namespace provd::daemon
