// Process-wide logging through spdlog: human-readable text, or one JSON object per line for log
// shippers. Job lines carry the job id as a field (added with the job store).
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/formatter.h"

namespace provd::daemon {

// INVALID_ARGUMENT naming the flag when the level or format is not one we know.
absl::Status ValidateLogSettings(absl::string_view level, absl::string_view format);

// The formatter for `format` ("text" or "json"), timestamps in UTC.
std::unique_ptr<spdlog::formatter> MakeLogFormatter(absl::string_view format);

// Installs the default logger on stderr. Call once, after ValidateLogSettings succeeded.
void InitLogging(absl::string_view level, absl::string_view format);

}  // namespace provd::daemon
