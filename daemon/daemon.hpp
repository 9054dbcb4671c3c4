// The running daemon: starts its parts in dependency order and stops them in reverse.
//   start: directories -> job store -> arbiter (only with GPUs) -> compute pools -> key cache ->
//          scheduler (requeues what was running) -> metrics -> gRPC
//   stop:  refuse new jobs -> scheduler (running jobs get the grace period, the rest are
//          requeued) -> end WatchJob streams -> gRPC -> metrics
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arbiter/arbiter.hpp"
#include "daemon/config.hpp"
#include "daemon/jobs/event_hub.hpp"
#include "daemon/jobs/job_runner.hpp"
#include "daemon/jobs/scheduler.hpp"
#include "daemon/metrics.hpp"
#include "daemon/prover_service.hpp"
#include "daemon/store/job_store.hpp"
#include "prover_core/gpu_backend_factory.hpp"
#include "prover_core/gpu_device.hpp"
#include "prover_core/groth16/key_cache.hpp"
#include "prover_core/thread_pool.hpp"

namespace grpc {
class Server;
}

namespace provd::daemon {

class Daemon {
 public:
  // `config` must have passed FinalizeServeConfig. Errors say which part failed to start.
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const ServeConfig& config);
  ~Daemon();

  // Marks the daemon NOT_SERVING, refuses new jobs, gives running jobs `grace` to finish and
  // requeues the others, then stops serving. Idempotent.
  void Shutdown(absl::Duration grace);

  // True once a retired GPU asked for a restart (on_gpu_retired = "restart"): the daemon has
  // sent itself SIGTERM, and `provd serve` exits with kExitRestart after the shutdown.
  bool restart_requested() const { return restart_requested_.load(); }

  // The addresses actually bound (port 0 resolved); metrics is empty when disabled.
  const std::string& grpc_address() const { return grpc_address_; }
  const std::string& metrics_address() const { return metrics_address_; }
  const std::string& health_address() const { return health_address_; }

 private:
  Daemon() = default;
  absl::Status StartJobs();
  absl::Status StartGrpc();
  absl::Status StartHealthServer();
  // The health status of the daemon and of provd.v1.Prover, on every server.
  void SetServing(bool serving);
  // Metrics read at scrape time: queue depth and age, running jobs, the key cache.
  void AddSampledMetrics();

  ServeConfig config_;
  GpuInventory gpus_;
  std::unique_ptr<Metrics> metrics_;  // before everything that reports to it
  std::unique_ptr<JobStore> store_;
  EventHub hub_;
  std::unique_ptr<arbiter::Arbiter> arbiter_;
  DeviceMemoryMeter device_memory_;
  std::unique_ptr<GpuBackendFactory> gpu_backends_;  // real GPUs' backends; null without CUDA
  std::unique_ptr<ThreadPool> low_priority_pool_;
  std::unique_ptr<groth16::ProvingKeyCache> keys_;
  std::unique_ptr<GpuRejections> gpu_rejections_;  // rejected proofs per GPU, for the runner
  std::unique_ptr<JobRunner> runner_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  std::unique_ptr<ProverService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string grpc_address_;
  std::string metrics_address_;
  std::unique_ptr<grpc::Server> health_server_;  // --health-listen
  std::string health_address_;
  bool stopped_ = false;
  std::atomic<bool> restart_requested_{false};
};

}  // namespace provd::daemon
