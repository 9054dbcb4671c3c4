// The one place where our absl::Status errors become gRPC statuses. absl's codes are the
// canonical gRPC codes, so the mapping is exact; handlers never throw and never invent codes.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace provd::daemon {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace provd::daemon
