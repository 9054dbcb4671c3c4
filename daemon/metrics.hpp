// The daemon's Prometheus metrics and their /metrics endpoint. Every metric is registered here,
// in one place, with help text and a unit suffix; subsystems report through the small methods
// below and never touch prometheus-cpp. Labels take values from closed sets only (priority,
// outcome, round, backend, device number, status code name): never a job id.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/listen_address.hpp"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "prover_core/gpu_device.hpp"

namespace prometheus {
class Exposer;
}

namespace provd::daemon {

// Metrics whose values are read when Prometheus scrapes (queue depth, key cache counts): the
// owner of the value answers, so nothing has to remember to update them.
class SampledMetrics final : public prometheus::Collectable {
 public:
  using Labels = std::map<std::string, std::string>;
  using Sample = std::vector<std::pair<Labels, double>>;

  void AddGauge(std::string name, std::string help, std::function<Sample()> sample);
  // `sample` must never decrease (a count kept by its owner).
  void AddCounter(std::string name, std::string help, std::function<Sample()> sample);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct Sampled {
    std::string name, help;
    prometheus::MetricType type;
    std::function<Sample()> sample;
  };
  mutable std::mutex mutex_;
  std::vector<Sampled> metrics_;
};

class Metrics {
 public:
  // Registers every metric; provd_build_info and provd_gpu_devices get their values here.
  explicit Metrics(const GpuInventory& gpus);

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }
  const std::shared_ptr<SampledMetrics>& sampled() const { return sampled_; }

  // Jobs. `priority` is "high" or "low"; `outcome` "succeeded", "failed" or "cancelled".
  void JobSubmitted(absl::string_view kind, absl::string_view priority);
  void JobRejected(absl::StatusCode code);
  void JobStarted(absl::string_view priority, absl::Duration queue_wait);
  void JobCompleted(absl::string_view kind, absl::string_view priority, absl::string_view outcome,
                    absl::Duration since_accepted);
  void JobRequeued();

  // Inside proofs.
  void RoundFinished(absl::string_view round, bool on_gpu, absl::Duration wall);
  void GpuYielded(size_t device, absl::Duration latency);
  void GpuReturned(size_t device);
  void GpuFellBack(size_t device, absl::StatusCode reason);
  void ProvingTime(absl::string_view priority, bool on_gpu, absl::Duration time);

  // Verification of every proof before it is handed out. `curve` is snarkjs's name ("bn128",
  // "bls12381"); `gpu` is a GPU that ran part of the rejected proof, or "cpu" for a proof made
  // on the CPU only.
  void ProofVerified(absl::string_view curve, bool valid, absl::Duration took);
  void ProofRejected(absl::string_view gpu);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<SampledMetrics> sampled_;
  prometheus::Family<prometheus::Counter>* submitted_;
  prometheus::Family<prometheus::Counter>* rejected_;
  prometheus::Family<prometheus::Counter>* completed_;
  prometheus::Counter* requeued_;
  prometheus::Family<prometheus::Histogram>* queue_wait_;
  prometheus::Family<prometheus::Histogram>* duration_;
  prometheus::Family<prometheus::Histogram>* round_duration_;
  prometheus::Family<prometheus::Counter>* preemptions_;
  prometheus::Family<prometheus::Histogram>* yield_latency_;
  prometheus::Family<prometheus::Counter>* returns_;
  prometheus::Family<prometheus::Counter>* fallbacks_;
  prometheus::Family<prometheus::Counter>* proving_seconds_;
  prometheus::Family<prometheus::Counter>* verifications_;
  prometheus::Family<prometheus::Histogram>* verification_seconds_;
  prometheus::Family<prometheus::Counter>* proofs_rejected_;
};

// Serves the registry and the sampled gauges over HTTP at /metrics until destroyed.
class MetricsEndpoint {
 public:
  // Binds `address` (port 0 picks a free port); FAILED_PRECONDITION if it cannot.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(const ListenAddress& address,
                                                                const Metrics& metrics);
  ~MetricsEndpoint();

  // HOST:PORT actually bound.
  const std::string& bound_address() const { return bound_address_; }

 private:
  MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer, std::string bound_address);

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string bound_address_;
};

}  // namespace provd::daemon
