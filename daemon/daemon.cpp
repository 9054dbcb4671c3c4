#include "daemon/daemon.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "daemon/directories.hpp"
#include "daemon/gpu_detect.hpp"
#include "daemon/store/open_job_store.hpp"
#include "provd/version.hpp"
#include "prover_core/io/atomic_output.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

constexpr char kProverServiceName[] = "provd.v1.Prover";
// After the scheduler stopped, open RPCs get what is left of the grace period, and at least
// this long (WatchJob streams end at once; others may be mid-reply).
constexpr absl::Duration kRpcDrain = absl::Seconds(1);

// A pool whose threads run at `nice`: threads inherit their creator's nice value on Linux, so
// the pool is made from a thread that lowered its own priority first.
std::unique_ptr<ThreadPool> MakeNicedPool(size_t threads, int nice) {
  std::unique_ptr<ThreadPool> pool;
  std::thread maker([&] {
    if (nice > 0) (void)::setpriority(PRIO_PROCESS, 0, nice);
    pool = std::make_unique<ThreadPool>(threads);
  });
  maker.join();
  return pool;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const ServeConfig& config) {
  std::unique_ptr<Daemon> daemon(new Daemon());
  daemon->config_ = config;

  if (absl::Status s = PrepareDirectories(config.data_dir, config.key_dir, config.inputs_dir,
                                          config.outputs_dir);
      !s.ok())
    return s;
  // An upload, a devsetup or an output cut short by kill -9 left its temp file behind.
  for (const std::filesystem::path& dir : {config.key_dir, config.inputs_dir, config.outputs_dir}) {
    if (const size_t removed = io::SweepAbandonedTemps(dir); removed > 0) {
      spdlog::info("removed {} abandoned temp file(s) under {}", removed, dir.string());
    }
  }
  if (absl::Status s = daemon->StartJobs(); !s.ok()) return s;

  if (!config.metrics_listen.empty()) {
    auto endpoint = MetricsEndpoint::Start(config.metrics_address, *daemon->metrics_);
    if (!endpoint.ok()) return endpoint.status();
    daemon->metrics_endpoint_ = *std::move(endpoint);
    daemon->metrics_address_ = daemon->metrics_endpoint_->bound_address();
  }
  if (absl::Status s = daemon->StartGrpc(); !s.ok()) return s;
  return daemon;
}

absl::Status Daemon::StartJobs() {
  absl::StatusOr<std::unique_ptr<JobStore>> store = OpenJobStore(config_.store, config_.data_dir);
  if (!store.ok()) return store.status();
  store_ = *std::move(store);

  gpus_ = DetectGpus();
  for (const GpuDevice& device : gpus_.devices) spdlog::info("{}", Describe(device));
  metrics_ = std::make_unique<Metrics>(gpus_);
  JobRunnerOptions runner;
  runner.metrics = metrics_.get();
  if (config_.simulated_gpus > 0) {
    absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
        arbiter::Arbiter::Open(config_.lock_dir, config_.simulated_gpus);
    if (!arbiter.ok()) return arbiter.status();
    arbiter_ = *std::move(arbiter);
    runner.arbiter = arbiter_.get();
    runner.simulated_gpus = config_.simulated_gpus;
    runner.simulated.latency_per_call = absl::Milliseconds(config_.simulated_gpu_latency_ms);
    runner.simulated.memory = &device_memory_;
    runner.simulated.lost_at_call = config_.simulated_gpu_lost_at_call;
    runner.simulated.corrupt_probability = config_.simulated_gpu_corrupt;
    runner.simulated.corrupt_seed = config_.simulated_gpu_corrupt_seed;
    if (config_.simulated_gpu_corrupt > 0) {
      spdlog::warn("fault injection: simulated GPUs return wrong MSM results with probability {}",
                   config_.simulated_gpu_corrupt);
    }
    if (config_.simulated_gpu_lost_at_call != 0) {
      spdlog::warn("fault injection: simulated GPUs are lost at kernel call {} of a proof",
                   config_.simulated_gpu_lost_at_call);
    }
    spdlog::info("arbitrating {} simulated GPU(s) through lock dir {}", config_.simulated_gpus,
                 arbiter_->lock_dir().path().string());
  } else if (!gpus_.devices.empty()) {
    absl::StatusOr<std::unique_ptr<GpuBackendFactory>> factory =
        MakeGpuBackendFactory(&device_memory_, config_.gpu_memory_budget_bytes);
    if (!factory.ok()) return factory.status();
    gpu_backends_ = *std::move(factory);
    std::vector<size_t> ids;
    for (const GpuDevice& device : gpus_.devices) ids.push_back(device.index);
    absl::StatusOr<std::unique_ptr<arbiter::Arbiter>> arbiter =
        arbiter::Arbiter::OpenDevices(config_.lock_dir, ids);
    if (!arbiter.ok()) return arbiter.status();
    arbiter_ = *std::move(arbiter);
    runner.arbiter = arbiter_.get();
    runner.gpus = gpu_backends_.get();
    spdlog::info("arbitrating {} GPU(s) through lock dir {}", ids.size(),
                 arbiter_->lock_dir().path().string());
  } else {
    spdlog::info("no GPU in use ({}); proving on the CPU only", gpus_.why_none);
  }

  if (arbiter_ != nullptr && config_.on_gpu_retired == "restart") {
    runner.on_device_retired = [this](size_t device) {
      if (restart_requested_.exchange(true)) return;
      spdlog::error(
          "gpu {} was retired: restarting provd to recover it with a fresh CUDA context "
          "(on_gpu_retired = restart); running jobs get the shutdown grace, the rest are "
          "requeued",
          device);
      // The stop path of a SIGTERM (main's sigwait): every thread blocks it, so this reaches
      // main and nothing else.
      ::kill(::getpid(), SIGTERM);
    };
  }

  runner.verify_proofs = config_.verify_proofs;
  if (!config_.verify_proofs) {
    spdlog::warn("verify_proofs = false: proofs are handed out without being verified");
  }
  gpu_rejections_ = std::make_unique<GpuRejections>(config_.gpu_rejections_to_retire);
  runner.rejections = gpu_rejections_.get();

  ConfigureDefaultThreadPool(config_.threads);
  runner.high_pool = &DefaultThreadPool();
  low_priority_pool_ = MakeNicedPool(runner.high_pool->size(), config_.low_priority_nice);
  runner.low_pool = low_priority_pool_.get();
  runner.high_priority_gpu_wait = absl::Seconds(config_.high_priority_gpu_wait_seconds);
  runner.prove.msm_chunk_points = config_.msm_chunk_points;
  runner.prove.ntt_chunk_stages = config_.ntt_chunk_stages;
  runner.stark.lde_chunk_columns = config_.stark_lde_chunk_columns;
  runner.stark.merkle_chunk_rows = config_.stark_merkle_chunk_rows;
  runner.inputs_dir = config_.inputs_dir;
  runner.outputs_dir = config_.outputs_dir;

  keys_ = std::make_unique<groth16::ProvingKeyCache>(config_.key_dir, config_.key_cache_bytes);
  runner_ = std::make_unique<JobRunner>(*store_, *keys_, hub_, runner);
  SchedulerOptions scheduling;
  const size_t gpu_count = arbiter_ != nullptr ? arbiter_->device_ids().size() : 0;
  scheduling.slots = config_.cpu_workers + gpu_count * config_.gpu_workers;
  if (scheduling.slots == 0) {
    // cpu_workers = 0 keeps the cores for GPU jobs' host work; without a usable GPU no job
    // would ever start. Queued jobs must run: one at a time, on the CPU, and said loudly.
    spdlog::error("cpu_workers = 0 but no GPU is in use ({}): running one job at a time on the CPU",
                  gpus_.why_none);
    scheduling.slots = 1;
  }
  scheduling.max_queued = static_cast<int64_t>(config_.max_queued_jobs);
  scheduling.memory_budget_bytes = config_.memory_budget_bytes;
  scheduling.retention = absl::Seconds(config_.retention_hours * 3600);
  scheduling.low_priority_nice = config_.low_priority_nice;
  scheduling.metrics = metrics_.get();
  scheduler_ = std::make_unique<Scheduler>(*store_, *runner_, hub_, scheduling);
  if (absl::Status s = scheduler_->Start(); !s.ok()) return s;
  AddSampledMetrics();
  spdlog::info("{} job slot(s), {} compute thread(s), job store in {}", scheduling.slots,
               runner.high_pool->size(), config_.data_dir.string());
  return absl::OkStatus();
}

absl::Status Daemon::StartGrpc() {
  RequestLimits limits;
  limits.max_witness_bytes = config_.max_message_bytes;
  limits.uploads = config_.uploads;
  limits.memory_budget_bytes = config_.memory_budget_bytes;
  absl::StatusOr<BearerTokenCheck> auth =
      BearerTokenCheck::FromFile(config_.security.auth_token_file);
  if (!auth.ok()) return auth.status();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials(config_.security);
  if (!credentials.ok()) return credentials.status();
  const bool token = auth->enabled();
  service_ = std::make_unique<ProverService>(limits, *std::move(auth), *store_, *scheduler_, *keys_,
                                             config_.inputs_dir, hub_, metrics_.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(config_.listen_address.ToString(), *credentials, &bound_port);
  // gRPC sets SO_REUSEPORT by default, which would let a second daemon bind the same port and
  // silently take half of the connections. One port, one daemon.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config_.max_message_bytes));
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || bound_port == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--listen ", config_.listen, ": cannot listen (address in use or not available)"));
  }
  if (config_.listen_address.kind == ListenAddress::Kind::kUnix) {
    grpc_address_ = config_.listen_address.ToString();
  } else {
    grpc_address_ = absl::StrCat(config_.listen_address.host, ":", bound_port);
  }
  if (!config_.listen_address.IsLoopback() && !config_.security.tls()) {
    spdlog::warn("listening on {} without TLS: {}", grpc_address_,
                 token ? "the bearer token crosses the network in clear text"
                       : "anyone who can reach it can submit jobs");
  }
  spdlog::info("transport: {}{}; job calls: {}", config_.security.tls() ? "TLS" : "plaintext",
               config_.security.tls_client_ca.empty() ? "" : " with client certificates",
               token ? "bearer token required" : "open");
  if (absl::Status s = StartHealthServer(); !s.ok()) return s;
  SetServing(true);
  spdlog::info("provd {} serving on {}{}", kVersion, grpc_address_,
               metrics_address_.empty()
                   ? ""
                   : absl::StrCat(", metrics on http://", metrics_address_, "/metrics"));
  return absl::OkStatus();
}

absl::Status Daemon::StartHealthServer() {
  if (config_.health_listen.empty()) return absl::OkStatus();
  // A server of its own with nothing but the (default) health service: plaintext, so probes
  // need no client certificate, and nothing on it reaches a job.
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(config_.health_address.ToString(), grpc::InsecureServerCredentials(),
                           &bound_port);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  health_server_ = builder.BuildAndStart();
  if (health_server_ == nullptr || bound_port == 0) {
    return absl::FailedPreconditionError(absl::StrCat("--health-listen ", config_.health_listen,
                                                      ": cannot listen (address in use?)"));
  }
  health_address_ = config_.health_address.kind == ListenAddress::Kind::kUnix
                        ? config_.health_address.ToString()
                        : absl::StrCat(config_.health_address.host, ":", bound_port);
  spdlog::info("health checks also on {} (plaintext, health service only)", health_address_);
  return absl::OkStatus();
}

void Daemon::SetServing(bool serving) {
  for (grpc::Server* server : {server_.get(), health_server_.get()}) {
    if (server == nullptr) continue;
    grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
    health->SetServingStatus(kProverServiceName, serving);
    health->SetServingStatus(serving);
  }
}

void Daemon::AddSampledMetrics() {
  SampledMetrics& sampled = *metrics_->sampled();
  // The endpoint that calls these stops before the scheduler and the cache go (Shutdown).
  Scheduler* scheduler = scheduler_.get();
  auto per_priority = [scheduler](auto field) {
    return [scheduler, field] {
      const SchedulerSnapshot s = scheduler->Snapshot();
      return SampledMetrics::Sample{{{{"priority", "high"}}, field(s.high)},
                                    {{{"priority", "low"}}, field(s.low)}};
    };
  };
  sampled.AddGauge("provd_queue_depth", "Jobs waiting in the queue, by priority",
                   per_priority([](const auto& p) { return static_cast<double>(p.queued); }));
  sampled.AddGauge(
      "provd_queue_oldest_age_seconds", "Age of the oldest queued job (0 when none), by priority",
      per_priority([](const auto& p) { return absl::ToDoubleSeconds(p.oldest_queued_age); }));
  sampled.AddGauge("provd_jobs_running", "Jobs being proved, by priority",
                   per_priority([](const auto& p) { return static_cast<double>(p.running); }));
  if (arbiter_ != nullptr) {
    // One sample per arbitrated device, labelled by its number.
    auto per_device = [devices = arbiter_->device_ids()](auto value) {
      return [devices, value] {
        SampledMetrics::Sample sample;
        for (size_t device : devices) {
          sample.push_back({{{"device", absl::StrCat(device)}}, value(device)});
        }
        return sample;
      };
    };
    DeviceMemoryMeter* memory = &device_memory_;
    sampled.AddGauge(
        "provd_device_memory_bytes", "Device memory held by proofs, by device",
        per_device([memory](size_t device) { return static_cast<double>(memory->bytes(device)); }));
    const arbiter::Arbiter* arbiter = arbiter_.get();
    sampled.AddGauge(
        "provd_gpu_retired",
        "1 for a GPU this daemon gave up until it restarts, after an error that left it "
        "unusable (a sticky CUDA error) or too many proofs that failed verification, by device",
        per_device([arbiter](size_t device) { return arbiter->retired(device) ? 1.0 : 0.0; }));
  }
  groth16::ProvingKeyCache* keys = keys_.get();
  auto cache = [keys](auto field) {
    return [keys, field] { return SampledMetrics::Sample{{{}, field(keys->stats())}}; };
  };
  sampled.AddGauge("provd_key_cache_bytes", "Bytes held by loaded proving keys",
                   cache([](const auto& s) { return static_cast<double>(s.bytes); }));
  sampled.AddGauge("provd_key_cache_entries", "Proving keys loaded",
                   cache([](const auto& s) { return static_cast<double>(s.entries); }));
  sampled.AddCounter("provd_key_cache_hits_total", "Key requests answered from the cache",
                     cache([](const auto& s) { return static_cast<double>(s.hits); }));
  sampled.AddCounter("provd_key_cache_loads_total", "Key requests that read a key file",
                     cache([](const auto& s) { return static_cast<double>(s.loads); }));
  sampled.AddCounter("provd_key_cache_evictions_total",
                     "Keys dropped to stay under the byte budget",
                     cache([](const auto& s) { return static_cast<double>(s.evictions); }));
}

void Daemon::Shutdown(absl::Duration grace) {
  if (stopped_) return;
  stopped_ = true;
  spdlog::info("shutting down: refusing new jobs, {} for running ones",
               absl::FormatDuration(grace));
  const absl::Time end_of_grace = absl::Now() + grace;
  SetServing(false);
  if (server_ != nullptr) service_->StartDraining();
  if (scheduler_ != nullptr) scheduler_->Stop(grace);
  if (server_ != nullptr) {
    service_->StopStreams();
    server_->Shutdown(absl::ToChronoTime(std::max(end_of_grace, absl::Now() + kRpcDrain)));
    server_->Wait();
  }
  if (health_server_ != nullptr) {
    health_server_->Shutdown(absl::ToChronoTime(absl::Now() + kRpcDrain));
    health_server_->Wait();
  }
  metrics_endpoint_.reset();
  spdlog::info("provd stopped");
}

Daemon::~Daemon() { Shutdown(absl::ZeroDuration()); }

}  // namespace provd::daemon
