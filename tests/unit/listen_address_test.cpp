#include "daemon/listen_address.hpp"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.hpp"

namespace provd::daemon {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ListenAddressTest, ParsesHostAndPort) {
  auto address = ParseListenAddress("127.0.0.1:50051", "--listen", true);
  ASSERT_THAT(address, IsOk());
  EXPECT_EQ(address->kind, ListenAddress::Kind::kTcp);
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 50051);
  EXPECT_EQ(address->ToString(), "127.0.0.1:50051");
  EXPECT_TRUE(address->IsLoopback());
}

TEST(ListenAddressTest, ParsesBracketedIpv6) {
  auto address = ParseListenAddress("[::1]:0", "--listen", true);
  ASSERT_THAT(address, IsOk());
  EXPECT_EQ(address->host, "[::1]");
  EXPECT_EQ(address->port, 0);
  EXPECT_TRUE(address->IsLoopback());
}

TEST(ListenAddressTest, WildcardIsNotLoopback) {
  auto address = ParseListenAddress("0.0.0.0:50051", "--listen", true);
  ASSERT_THAT(address, IsOk());
  EXPECT_FALSE(address->IsLoopback());
}

TEST(ListenAddressTest, ParsesUnixSocketsWhereAllowed) {
  auto address = ParseListenAddress("unix:/run/provd/provd.sock", "--listen", true);
  ASSERT_THAT(address, IsOk());
  EXPECT_EQ(address->kind, ListenAddress::Kind::kUnix);
  EXPECT_EQ(address->unix_path, "/run/provd/provd.sock");
  EXPECT_TRUE(address->IsLoopback());
  EXPECT_THAT(ParseListenAddress("unix:/x.sock", "--metrics-listen", false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--metrics-listen \"unix:/x.sock\": unix sockets")));
}

TEST(ListenAddressTest, RejectsMalformedAddressesNamingTheFlag) {
  for (const char* bad : {"", "50051", ":50051", "host:", "host:65536", "host:-1", "host:12a",
                          "::1:50051", "[::1:50051", "unix:"}) {
    EXPECT_THAT(ParseListenAddress(bad, "--listen", true),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--listen")))
        << bad;
  }
}

}  // namespace
}  // namespace provd::daemon
