// Configuration of `provd serve`: the flags, their defaults, and the validation that runs once
// before anything starts, reporting every problem at once rather than the first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "daemon/listen_address.hpp"
#include "nlohmann/json_fwd.hpp"

namespace CLI {
class App;
}

namespace provd::daemon {

struct ServeConfig {
  // As given on the command line.
  std::string listen = "127.0.0.1:50051";
  std::string metrics_listen = "127.0.0.1:9464";  // empty: no metrics endpoint
  std::filesystem::path data_dir;                 // empty: DefaultDataDir()
  std::filesystem::path key_dir;                  // empty: <data_dir>/keys
  std::filesystem::path lock_dir;                 // empty: arbiter::DefaultLockDir()
  std::string log_level = "info";
  std::string log_format = "text";
  uint64_t max_message_bytes = 128ull << 20;
  uint32_t shutdown_grace_seconds = 30;
  std::filesystem::path ready_file;  // written once serving: {"grpc": ..., "metrics": ...}
  bool print_config = false;

  // Filled in by FinalizeServeConfig.
  ListenAddress listen_address;
  ListenAddress metrics_address;
};

// Where the daemon keeps its state when --data-dir is not given: $STATE_DIRECTORY (set by
// systemd's StateDirectory=), else $XDG_STATE_HOME/provd, else $HOME/.local/state/provd, else
// /var/lib/provd.
std::filesystem::path DefaultDataDir();

// Declares the serve flags on `app`, writing into `config`.
void AddServeFlags(CLI::App& app, ServeConfig& config);

// Fills in the defaults and derived fields and validates everything; INVALID_ARGUMENT listing
// every bad flag otherwise.
absl::Status FinalizeServeConfig(ServeConfig& config);

// The effective configuration, for --print-config and the start-up log.
nlohmann::json ToJson(const ServeConfig& config);

}  // namespace provd::daemon
