// The daemon's Prometheus registry and its /metrics endpoint. Metrics are registered here, in
// one place, with help text and unit suffixes; subsystems get small handles to update them.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/listen_address.hpp"
#include "prometheus/registry.h"
#include "prover_core/gpu_device.hpp"

namespace prometheus {
class Exposer;
}

namespace provd::daemon {

class Metrics {
 public:
  // Registers the process-wide metrics: provd_build_info and provd_gpu_devices.
  explicit Metrics(const GpuInventory& gpus);

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
};

// Serves a registry over HTTP at /metrics until destroyed.
class MetricsEndpoint {
 public:
  // Binds `address` (port 0 picks a free port); FAILED_PRECONDITION if it cannot.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const ListenAddress& address, std::shared_ptr<prometheus::Registry> registry);
  ~MetricsEndpoint();

  // HOST:PORT actually bound.
  const std::string& bound_address() const { return bound_address_; }

 private:
  MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer, std::string bound_address);

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string bound_address_;
};

}  // namespace provd::daemon
