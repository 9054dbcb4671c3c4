#include "daemon/metrics.hpp"

#include <exception>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "provd/version.hpp"

namespace provd::daemon {
namespace {

using prometheus::Histogram;

// From a scheduler's blink to a long queue or proof.
const Histogram::BucketBoundaries kJobSeconds = {0.01, 0.05, 0.1, 0.25, 0.5, 1,   2.5,  5,
                                                 10,   30,   60,  120,  300, 600, 1800, 3600};
const Histogram::BucketBoundaries kRoundSeconds = {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5,
                                                   1,     2.5,   5,    10,   30,  60,   300};
// A yield costs freeing device memory and a lock: milliseconds, unless a chunk is slow.
const Histogram::BucketBoundaries kYieldSeconds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                   0.05,   0.1,   0.25,   0.5,   1,    2.5};

std::string Backend(bool on_gpu) { return on_gpu ? "gpu" : "cpu"; }

}  // namespace

void SampledMetrics::AddGauge(std::string name, std::string help, std::function<Sample()> sample) {
  std::lock_guard lock(mutex_);
  metrics_.push_back(
      {std::move(name), std::move(help), prometheus::MetricType::Gauge, std::move(sample)});
}

void SampledMetrics::AddCounter(std::string name, std::string help,
                                std::function<Sample()> sample) {
  std::lock_guard lock(mutex_);
  metrics_.push_back(
      {std::move(name), std::move(help), prometheus::MetricType::Counter, std::move(sample)});
}

std::vector<prometheus::MetricFamily> SampledMetrics::Collect() const {
  std::lock_guard lock(mutex_);
  std::vector<prometheus::MetricFamily> families;
  for (const Sampled& sampled : metrics_) {
    prometheus::MetricFamily& family = families.emplace_back();
    family.name = sampled.name;
    family.help = sampled.help;
    family.type = sampled.type;
    for (const auto& [labels, value] : sampled.sample()) {
      prometheus::ClientMetric& metric = family.metric.emplace_back();
      for (const auto& [name, label_value] : labels) metric.label.push_back({name, label_value});
      if (sampled.type == prometheus::MetricType::Counter) {
        metric.counter.value = value;
      } else {
        metric.gauge.value = value;
      }
    }
  }
  return families;
}

Metrics::Metrics(const GpuInventory& gpus)
    : registry_(std::make_shared<prometheus::Registry>()),
      sampled_(std::make_shared<SampledMetrics>()) {
  prometheus::Registry& r = *registry_;
  prometheus::BuildGauge()
      .Name("provd_build_info")
      .Help("Always 1; the labels say which provd build is running")
      .Register(r)
      .Add({{"version", kVersion}, {"cuda", kBuiltWithCuda ? "on" : "off"}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("provd_gpu_devices")
      .Help("GPUs detected at start-up and usable by this daemon")
      .Register(r)
      .Add({})
      .Set(static_cast<double>(gpus.devices.size()));
  submitted_ = &prometheus::BuildCounter()
                    .Name("provd_jobs_submitted_total")
                    .Help("Jobs accepted (durably queued), by kind and priority")
                    .Register(r);
  rejected_ = &prometheus::BuildCounter()
                   .Name("provd_jobs_rejected_total")
                   .Help("SubmitJob calls refused, by gRPC status code")
                   .Register(r);
  completed_ = &prometheus::BuildCounter()
                    .Name("provd_jobs_completed_total")
                    .Help("Jobs that reached a final state, by kind, priority and outcome")
                    .Register(r);
  requeued_ = &prometheus::BuildCounter()
                   .Name("provd_jobs_requeued_total")
                   .Help("Running jobs put back in the queue by a shutdown or a restart")
                   .Register(r)
                   .Add({});
  queue_wait_ = &prometheus::BuildHistogram()
                     .Name("provd_job_queue_wait_seconds")
                     .Help("From acceptance (or requeue) to the start of a job, by priority")
                     .Register(r);
  duration_ = &prometheus::BuildHistogram()
                   .Name("provd_job_duration_seconds")
                   .Help("From acceptance to the final state, by kind and priority")
                   .Register(r);
  round_duration_ = &prometheus::BuildHistogram()
                         .Name("provd_round_duration_seconds")
                         .Help(
                             "Wall time of one proof round, by round and the backend that "
                             "ran its last chunk")
                         .Register(r);
  preemptions_ = &prometheus::BuildCounter()
                      .Name("provd_gpu_preemptions_total")
                      .Help("Times a job gave its GPU to a higher-priority prover, by device")
                      .Register(r);
  yield_latency_ = &prometheus::BuildHistogram()
                        .Name("provd_gpu_yield_latency_seconds")
                        .Help("From noticing a higher-priority prover to the GPU being free")
                        .Register(r);
  returns_ = &prometheus::BuildCounter()
                  .Name("provd_gpu_returns_total")
                  .Help("Times a job moved from the CPU back to a GPU, by device")
                  .Register(r);
  fallbacks_ = &prometheus::BuildCounter()
                    .Name("provd_gpu_fallbacks_total")
                    .Help(
                        "Chunks rerun on the CPU because the GPU failed (not preemption), by "
                        "device and error code")
                    .Register(r);
  proving_seconds_ = &prometheus::BuildCounter()
                          .Name("provd_proving_seconds_total")
                          .Help("Time spent proving, by job priority and backend")
                          .Register(r);
  verifications_ = &prometheus::BuildCounter()
                        .Name("provd_proof_verifications_total")
                        .Help(
                            "Proofs checked against their key's verification key before being "
                            "handed out, by curve and result (valid or rejected)")
                        .Register(r);
  verification_seconds_ = &prometheus::BuildHistogram()
                               .Name("provd_proof_verification_seconds")
                               .Help("Time to verify one proof, by curve")
                               .Register(r);
  proofs_rejected_ = &prometheus::BuildCounter()
                          .Name("provd_proof_rejected_total")
                          .Help(
                              "Proofs that failed verification and were proved again, by each GPU "
                              "that ran part of them (gpu=\"cpu\": made on the CPU only)")
                          .Register(r);
}

void Metrics::JobSubmitted(absl::string_view kind, absl::string_view priority) {
  submitted_->Add({{"kind", std::string(kind)}, {"priority", std::string(priority)}}).Increment();
}

void Metrics::JobRejected(absl::StatusCode code) {
  rejected_->Add({{"code", absl::AsciiStrToLower(absl::StatusCodeToString(code))}}).Increment();
}

void Metrics::JobStarted(absl::string_view priority, absl::Duration queue_wait) {
  queue_wait_->Add({{"priority", std::string(priority)}}, kJobSeconds)
      .Observe(absl::ToDoubleSeconds(queue_wait));
}

void Metrics::JobCompleted(absl::string_view kind, absl::string_view priority,
                           absl::string_view outcome, absl::Duration since_accepted) {
  completed_
      ->Add({{"kind", std::string(kind)},
             {"priority", std::string(priority)},
             {"outcome", std::string(outcome)}})
      .Increment();
  duration_->Add({{"kind", std::string(kind)}, {"priority", std::string(priority)}}, kJobSeconds)
      .Observe(absl::ToDoubleSeconds(since_accepted));
}

void Metrics::JobRequeued() { requeued_->Increment(); }

void Metrics::RoundFinished(absl::string_view round, bool on_gpu, absl::Duration wall) {
  round_duration_->Add({{"round", std::string(round)}, {"backend", Backend(on_gpu)}}, kRoundSeconds)
      .Observe(absl::ToDoubleSeconds(wall));
}

void Metrics::GpuYielded(size_t device, absl::Duration latency) {
  const std::string label = absl::StrCat(device);
  preemptions_->Add({{"device", label}}).Increment();
  yield_latency_->Add({{"device", label}}, kYieldSeconds).Observe(absl::ToDoubleSeconds(latency));
}

void Metrics::GpuReturned(size_t device) {
  returns_->Add({{"device", absl::StrCat(device)}}).Increment();
}

void Metrics::GpuFellBack(size_t device, absl::StatusCode reason) {
  fallbacks_
      ->Add({{"device", absl::StrCat(device)},
             {"reason", absl::AsciiStrToLower(absl::StatusCodeToString(reason))}})
      .Increment();
}

void Metrics::ProvingTime(absl::string_view priority, bool on_gpu, absl::Duration time) {
  proving_seconds_->Add({{"priority", std::string(priority)}, {"backend", Backend(on_gpu)}})
      .Increment(absl::ToDoubleSeconds(time));
}

void Metrics::ProofVerified(absl::string_view curve, bool valid, absl::Duration took) {
  verifications_->Add({{"curve", std::string(curve)}, {"result", valid ? "valid" : "rejected"}})
      .Increment();
  verification_seconds_->Add({{"curve", std::string(curve)}}, kRoundSeconds)
      .Observe(absl::ToDoubleSeconds(took));
}

void Metrics::ProofRejected(absl::string_view gpu) {
  proofs_rejected_->Add({{"gpu", std::string(gpu)}}).Increment();
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const ListenAddress& address, const Metrics& metrics) {
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    // One HTTP thread is plenty for a scrape every few seconds.
    exposer = std::make_unique<prometheus::Exposer>(address.ToString(), /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(
        absl::StrCat("--metrics-listen ", address.ToString(), ": cannot listen: ", e.what()));
  }
  exposer->RegisterCollectable(metrics.registry());
  exposer->RegisterCollectable(metrics.sampled());
  std::vector<int> ports = exposer->GetListeningPorts();
  std::string bound = absl::StrCat(address.host, ":", ports.empty() ? address.port : ports.front());
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(exposer), bound));
}

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<prometheus::Exposer> exposer,
                                 std::string bound_address)
    : exposer_(std::move(exposer)), bound_address_(std::move(bound_address)) {}

MetricsEndpoint::~MetricsEndpoint() = default;

}  // namespace provd::daemon
