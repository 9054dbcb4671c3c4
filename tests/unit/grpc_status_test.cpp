// Our errors cross the wire with their code and message intact, in both directions.
#include "daemon/grpc_status.hpp"

#include "client/prover_client.hpp"
#include "gtest/gtest.h"

namespace provd {
namespace {

TEST(GrpcStatusTest, EveryCodeSurvivesTheRoundTrip) {
  for (int code = 0; code <= 16; ++code) {
    absl::Status original(static_cast<absl::StatusCode>(code), code == 0 ? "" : "what went wrong");
    grpc::Status wire = daemon::ToGrpcStatus(original);
    EXPECT_EQ(static_cast<int>(wire.error_code()), code);
    absl::Status back = client::FromGrpcStatus(wire);
    EXPECT_EQ(back, original) << code;
  }
}

TEST(GrpcStatusTest, InvalidArgumentKeepsTheFieldInTheMessage) {
  grpc::Status wire =
      daemon::ToGrpcStatus(absl::InvalidArgumentError("priority: must be PRIORITY_LOW or HIGH"));
  EXPECT_EQ(wire.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(wire.error_message(), "priority: must be PRIORITY_LOW or HIGH");
}

}  // namespace
}  // namespace provd
