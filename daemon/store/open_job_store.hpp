// The job store a daemon's --store names.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/store/job_store.hpp"

namespace provd::daemon {

// Empty or "sqlite": the embedded store in `data_dir` (SqliteJobStore). A postgres:// or
// postgresql:// URI: that database (PostgresJobStore). Anything else: INVALID_ARGUMENT.
absl::Status ValidateStoreSetting(const std::string& store);
absl::StatusOr<std::unique_ptr<JobStore>> OpenJobStore(const std::string& store,
                                                       const std::filesystem::path& data_dir);
// The setting as it may be logged or printed: a URI without its password.
std::string DescribeStoreSetting(const std::string& store);

}  // namespace provd::daemon
