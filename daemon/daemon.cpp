#include "daemon/daemon.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"
#include "daemon/directories.hpp"
#include "daemon/gpu_detect.hpp"
#include "provd/version.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

constexpr char kProverServiceName[] = "provd.v1.Prover";

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const ServeConfig& config) {
  std::unique_ptr<Daemon> daemon(new Daemon());
  daemon->config_ = config;

  if (absl::Status s = PrepareDirectories(config.data_dir, config.key_dir); !s.ok()) return s;

  daemon->gpus_ = DetectGpus();
  for (const GpuDevice& device : daemon->gpus_.devices) spdlog::info("{}", Describe(device));
  if (daemon->gpus_.devices.empty()) {
    // No GPU: nothing to arbitrate, so no lock file is touched at all.
    spdlog::info("no GPU in use ({}); proving on the CPU only", daemon->gpus_.why_none);
  } else {
    absl::StatusOr<arbiter::LockDir> lock_dir = arbiter::LockDir::Open(config.lock_dir);
    if (!lock_dir.ok()) return lock_dir.status();
    daemon->lock_dir_ = *std::move(lock_dir);
    spdlog::info("arbitrating {} GPU(s) through lock dir {}", daemon->gpus_.devices.size(),
                 daemon->lock_dir_->path().string());
  }

  daemon->metrics_ = std::make_unique<Metrics>(daemon->gpus_);
  if (!config.metrics_listen.empty()) {
    auto endpoint = MetricsEndpoint::Start(config.metrics_address, daemon->metrics_->registry());
    if (!endpoint.ok()) return endpoint.status();
    daemon->metrics_endpoint_ = *std::move(endpoint);
    daemon->metrics_address_ = daemon->metrics_endpoint_->bound_address();
  }

  RequestLimits limits;
  limits.max_witness_bytes = config.max_message_bytes;
  daemon->service_ = std::make_unique<ProverService>(limits);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int bound_port = 0;
  // TLS and bearer tokens come with the job service; until then a non-loopback listener is
  // allowed but loudly flagged.
  builder.AddListeningPort(config.listen_address.ToString(), grpc::InsecureServerCredentials(),
                           &bound_port);
  // gRPC sets SO_REUSEPORT by default, which would let a second daemon bind the same port and
  // silently take half of the connections. One port, one daemon.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  builder.RegisterService(daemon->service_.get());
  daemon->server_ = builder.BuildAndStart();
  if (daemon->server_ == nullptr || bound_port == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--listen ", config.listen, ": cannot listen (address in use or not available)"));
  }
  if (config.listen_address.kind == ListenAddress::Kind::kUnix) {
    daemon->grpc_address_ = config.listen_address.ToString();
  } else {
    daemon->grpc_address_ = absl::StrCat(config.listen_address.host, ":", bound_port);
  }
  if (!config.listen_address.IsLoopback()) {
    spdlog::warn("listening on {} without TLS: anyone who can reach it can submit jobs",
                 daemon->grpc_address_);
  }
  grpc::HealthCheckServiceInterface* health = daemon->server_->GetHealthCheckService();
  health->SetServingStatus(kProverServiceName, true);
  health->SetServingStatus(true);
  spdlog::info("provd {} serving on {}{}", kVersion, daemon->grpc_address_,
               daemon->metrics_address_.empty()
                   ? ""
                   : absl::StrCat(", metrics on http://", daemon->metrics_address_, "/metrics"));
  return daemon;
}

void Daemon::Shutdown(absl::Duration grace) {
  if (stopped_) return;
  stopped_ = true;
  spdlog::info("shutting down: refusing new work, {}s for running requests",
               absl::ToInt64Seconds(grace));
  if (server_ != nullptr) {
    server_->GetHealthCheckService()->SetServingStatus(false);
    service_->StartDraining();
    server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
    server_->Wait();
  }
  metrics_endpoint_.reset();
  spdlog::info("provd stopped");
}

Daemon::~Daemon() { Shutdown(absl::ZeroDuration()); }

}  // namespace provd::daemon
