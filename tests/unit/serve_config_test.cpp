#include <cstdlib>

#include "CLI/CLI.hpp"
#include "daemon/config.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::daemon {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

ServeConfig Parse(std::vector<std::string> args) {
  CLI::App app;
  ServeConfig config;
  AddServeFlags(app, config);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  app.parse(args);
  return config;
}

TEST(ServeConfigTest, DefaultsAreLoopbackAndDerivedDirectories) {
  ServeConfig config = Parse({"--data-dir", "/srv/provd"});
  ASSERT_THAT(FinalizeServeConfig(config), IsOk());
  EXPECT_EQ(config.listen_address.ToString(), "127.0.0.1:50051");
  EXPECT_EQ(config.metrics_address.ToString(), "127.0.0.1:9464");
  EXPECT_EQ(config.key_dir, "/srv/provd/keys");
  EXPECT_FALSE(config.lock_dir.empty());
  // The memory budget defaults to 90% of what the host (or its cgroup) has: more than nothing,
  // less than all of it.
  EXPECT_EQ(config.memory_budget_bytes, DefaultMemoryBudget());
  EXPECT_GT(config.memory_budget_bytes, uint64_t{64} << 20);
  EXPECT_TRUE(config.uploads);
}

TEST(ServeConfigTest, UploadsAndTheMemoryBudgetAreSettings) {
  ServeConfig config = Parse({"--uploads", "false", "--memory-budget-bytes", "123456"});
  ASSERT_THAT(FinalizeServeConfig(config), IsOk());
  EXPECT_FALSE(config.uploads);
  EXPECT_EQ(config.memory_budget_bytes, 123456u);
  nlohmann::json json = ToJson(config);
  EXPECT_EQ(json["uploads"], false);
  EXPECT_EQ(json["memory_budget_bytes"], 123456u);
}

TEST(ServeConfigTest, FlagsOverrideDefaults) {
  ServeConfig config =
      Parse({"--listen", "unix:/run/p.sock", "--metrics-listen", "", "--data-dir", "/d",
             "--key-dir", "/k", "--lock-dir", "/l", "--log-format", "json", "--log-level", "debug",
             "--shutdown-grace", "5", "--gpu-memory-budget-bytes", "1073741824"});
  ASSERT_THAT(FinalizeServeConfig(config), IsOk());
  EXPECT_EQ(config.listen_address.kind, ListenAddress::Kind::kUnix);
  EXPECT_TRUE(config.metrics_listen.empty());
  EXPECT_EQ(config.key_dir, "/k");
  EXPECT_EQ(config.lock_dir, "/l");
  EXPECT_EQ(config.shutdown_grace_seconds, 5u);
  nlohmann::json json = ToJson(config);
  EXPECT_EQ(json["listen"], "unix:/run/p.sock");
  EXPECT_EQ(json["log_format"], "json");
  EXPECT_EQ(config.gpu_memory_budget_bytes, uint64_t{1} << 30);
  EXPECT_EQ(json["gpu_memory_budget_bytes"], uint64_t{1} << 30);
}

TEST(ServeConfigTest, ReportsEveryBadFlagAtOnce) {
  ServeConfig config = Parse({"--listen", "nope", "--metrics-listen", "x:99999", "--log-level",
                              "loud", "--log-format", "xml", "--max-message-bytes", "10"});
  EXPECT_THAT(
      FinalizeServeConfig(config),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("--listen"), HasSubstr("--metrics-listen"), HasSubstr("--log-level"),
                     HasSubstr("--log-format"), HasSubstr("--max-message-bytes"))));
}

TEST(ServeConfigTest, UnknownFlagsAreParseErrors) {
  EXPECT_THROW(Parse({"--no-such-flag"}), CLI::ParseError);
  EXPECT_THROW(Parse({"--shutdown-grace", "soon"}), CLI::ParseError);
  EXPECT_THROW(Parse({"--on-gpu-retired", "reboot"}), CLI::ParseError);
  EXPECT_EQ(Parse({}).on_gpu_retired, "restart");
  EXPECT_EQ(Parse({"--on-gpu-retired", "continue"}).on_gpu_retired, "continue");
}

TEST(ServeConfigTest, ProofVerificationIsOnByDefaultAndFaultsParse) {
  ServeConfig defaults = Parse({});
  ASSERT_THAT(FinalizeServeConfig(defaults), IsOk());
  EXPECT_TRUE(defaults.verify_proofs);
  EXPECT_EQ(defaults.gpu_rejections_to_retire, 3u);
  EXPECT_EQ(defaults.simulated_gpu_corrupt, 0);

  ServeConfig config = Parse({"--verify-proofs", "false", "--gpu-rejections-to-retire", "0",
                              "--simulated-gpu-faults", "corrupt=0.25,seed=9"});
  ASSERT_THAT(FinalizeServeConfig(config), IsOk());
  EXPECT_FALSE(config.verify_proofs);
  EXPECT_EQ(config.gpu_rejections_to_retire, 0u);
  EXPECT_EQ(config.simulated_gpu_corrupt, 0.25);
  EXPECT_EQ(config.simulated_gpu_corrupt_seed, 9u);
  EXPECT_EQ(ToJson(config)["verify_proofs"], false);

  for (const char* bad :
       {"corrupt=2", "corrupt=-0.1", "corrupt=x", "lie=0.5", "seed=", "corrupt"}) {
    ServeConfig faulty = Parse({"--simulated-gpu-faults", bad});
    EXPECT_THAT(FinalizeServeConfig(faulty),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--simulated-gpu-faults")))
        << bad;
  }
  EXPECT_THROW(Parse({"--verify-proofs", "maybe"}), CLI::ParseError);
}

TEST(ServeConfigTest, DataDirDefaultFollowsSystemdThenXdg) {
  ::setenv("STATE_DIRECTORY", "/var/lib/provd:/var/lib/other", 1);
  EXPECT_EQ(DefaultDataDir(), "/var/lib/provd");
  ::unsetenv("STATE_DIRECTORY");
  ::setenv("XDG_STATE_HOME", "/home/u/.state", 1);
  EXPECT_EQ(DefaultDataDir(), "/home/u/.state/provd");
  ::unsetenv("XDG_STATE_HOME");
}

}  // namespace
}  // namespace provd::daemon
