#include "daemon/metrics.hpp"

#include <exception>

#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "provd/version.hpp"

namespace provd::daemon {

Metrics::Metrics(const GpuInventory& gpus) : registry_(std::make_shared<prometheus::Registry>()) {
  prometheus::BuildGauge()
      .Name("provd_build_info")
      .Help("Always 1; the labels say which provd build is running")
      .Register(*registry_)
      .Add({{"version", kVersion}, {"cuda", kBuiltWithCuda ? "on" : "off"}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("provd_gpu_devices")
      .Help("GPUs detected at start-up and usable by this daemon")
      .Register(*registry_)
      .Add({})
      .Set(static_cast<double>(gpus.devices.size()));
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const ListenAddress& address, std::shared_ptr<prometheus::Registry> registry) {
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    // One HTTP thread is plenty for a scrape every few seconds.
    exposer = std::make_unique<prometheus::Exposer>(address.ToString(), /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(
        absl::StrCat("--metrics-listen ", address.ToString(), ": cannot listen: ", e.what()));
  }
  exposer->RegisterCollectable(registry);
  std::vector<int> ports = exposer->GetListeningPorts();
  std::string bound = absl::StrCat(address.host, ":", ports.empty() ? address.port : ports.front());
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(exposer), bound));
}

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer,
                                 std::string bound_address)
    : exposer_(std::move(exposer)), bound_address_(std::move(bound_address)) {}

MetricsEndpoint::~MetricsEndpoint() = default;

}  // namespace provd::daemon
