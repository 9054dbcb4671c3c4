// `provd serve` as operators and clients see it: health, validation errors over the wire,
// metrics, clean shutdown on SIGTERM/SIGINT, and clear failures on bad configuration.
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <signal.h>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon_process.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kWitnessHeader[] = "wtns\x02\0\0\0\x02\0\0\0";

std::unique_ptr<DaemonProcess> StartDaemon(const std::vector<std::string>& flags = {}) {
  auto daemon = DaemonProcess::Start(flags);
  EXPECT_THAT(daemon, IsOk());
  return daemon.ok() ? *std::move(daemon) : nullptr;
}

ExitInfo RunChild(const std::vector<std::string>& argv, const TempDir& dir) {
  auto info = RunToCompletion(argv, dir.path(), absl::Seconds(30));
  EXPECT_THAT(info, IsOk());
  return info.ok() ? *info : ExitInfo{};
}

TEST(ServeTest, HealthIsServingForTheServerAndTheProverService) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  auto server = daemon->Provctl({"health"});
  ASSERT_THAT(server, IsOk());
  EXPECT_EQ(server->code, 0) << server->stderr_text;
  EXPECT_EQ(server->stdout_text, "SERVING\n");
  auto prover = daemon->Provctl({"health", "--service", "provd.v1.Prover"});
  ASSERT_THAT(prover, IsOk());
  EXPECT_EQ(prover->stdout_text, "SERVING\n");
  auto unknown = daemon->Provctl({"health", "--service", "no.such.Service"});
  ASSERT_THAT(unknown, IsOk());
  EXPECT_EQ(unknown->code, 1);
  EXPECT_THAT(unknown->stderr_text, HasSubstr("NOT_FOUND"));
}

TEST(ServeTest, MalformedJobsAreRejectedWithInvalidArgumentNamingTheField) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  WriteFile(daemon->state_dir() / "w.wtns",
            std::string(kWitnessHeader, sizeof(kWitnessHeader) - 1));
  WriteFile(daemon->state_dir() / "junk.bin", "definitely not a witness");
  const std::string witness = (daemon->state_dir() / "w.wtns").string();
  const std::string junk = (daemon->state_dir() / "junk.bin").string();

  auto escape = daemon->Provctl({"submit", "--zkey", "../../etc/passwd", "--witness", witness});
  ASSERT_THAT(escape, IsOk());
  EXPECT_EQ(escape->code, 1);
  EXPECT_THAT(escape->stderr_text, HasSubstr("INVALID_ARGUMENT: spec.groth16.zkey_name"));

  auto not_wtns = daemon->Provctl({"submit", "--zkey", "a.zkey", "--witness", junk});
  ASSERT_THAT(not_wtns, IsOk());
  EXPECT_EQ(not_wtns->code, 1);
  EXPECT_THAT(not_wtns->stderr_text, HasSubstr("INVALID_ARGUMENT: spec.groth16.witness"));

  auto bad_seed =
      daemon->Provctl({"submit", "--zkey", "a.zkey", "--witness", witness, "--seed", "abcd"});
  ASSERT_THAT(bad_seed, IsOk());
  EXPECT_EQ(bad_seed->code, 2);  // caught by provctl before any call
  EXPECT_THAT(bad_seed->stderr_text, HasSubstr("--seed must be 64 hex digits"));
}

TEST(ServeTest, AKeyThatIsNotInTheKeyDirIsInvalidArgumentNamingTheKey) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  WriteFile(daemon->state_dir() / "w.wtns",
            std::string(kWitnessHeader, sizeof(kWitnessHeader) - 1));
  auto submit = daemon->Provctl({"submit", "--zkey", "multiplier.zkey", "--witness",
                                 (daemon->state_dir() / "w.wtns").string(), "--priority", "high"});
  ASSERT_THAT(submit, IsOk());
  EXPECT_EQ(submit->code, 1);
  EXPECT_THAT(
      submit->stderr_text,
      HasSubstr("INVALID_ARGUMENT: spec.groth16.zkey_name: key \"multiplier.zkey\" not found"));
}

TEST(ServeTest, UnknownJobsAreNotFoundAndTheListIsEmpty) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  for (const char* command : {"status", "cancel", "watch"}) {
    auto result = daemon->Provctl({command, "job-123"});
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(result->code, 1) << command;
    EXPECT_THAT(result->stderr_text, HasSubstr("NOT_FOUND: no job with id \"job-123\"")) << command;
  }
  auto bad_id = daemon->Provctl({"status", "../x"});
  ASSERT_THAT(bad_id, IsOk());
  EXPECT_THAT(bad_id->stderr_text, HasSubstr("INVALID_ARGUMENT: job_id"));
  auto list = daemon->Provctl({"--json", "list", "--state", "queued", "--priority", "low"});
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->code, 0) << list->stderr_text;
  EXPECT_EQ(nlohmann::json::parse(list->stdout_text), nlohmann::json::object());
}

TEST(ServeTest, MetricsEndpointServesBuildInfo) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  auto body = HttpGet(daemon->metrics_address(), "/metrics");
  ASSERT_THAT(body, IsOk());
  EXPECT_THAT(*body, HasSubstr("provd_build_info{"));
  EXPECT_THAT(*body, HasSubstr("version=\"0.1.0\""));
  EXPECT_THAT(*body, HasSubstr("provd_gpu_devices "));
}

void ExpectCleanStopOn(int signal_number) {
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  const std::string grpc = daemon->grpc_address();
  const std::string metrics = daemon->metrics_address();
  EXPECT_FALSE(PortIsFree(grpc));
  daemon->process().Signal(signal_number);
  auto exit = daemon->process().Wait(absl::Seconds(15));
  ASSERT_THAT(exit, IsOk());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->code, 0) << exit->stderr_text;
  EXPECT_THAT(exit->stderr_text, HasSubstr("provd stopped"));
  EXPECT_TRUE(PortIsFree(grpc));
  EXPECT_TRUE(PortIsFree(metrics));
}

TEST(ServeTest, SigtermStopsWithExitZeroAndFreesThePorts) { ExpectCleanStopOn(SIGTERM); }

TEST(ServeTest, SigintStopsWithExitZeroAndFreesThePorts) { ExpectCleanStopOn(SIGINT); }

TEST(ServeTest, ASecondStopSignalExitsWithoutWaitingForTheGracePeriod) {
  auto daemon = StartDaemon();  // --shutdown-grace 5
  ASSERT_NE(daemon, nullptr);
  // A health Watch stream stays open until the server stops, so the first SIGTERM has a running
  // request to wait for (up to the 5 s grace); the second one must not wait.
  auto channel = grpc::CreateChannel(daemon->grpc_address(), grpc::InsecureChannelCredentials());
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  grpc::health::v1::HealthCheckRequest request;
  auto reader = stub->Watch(&context, request);
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  daemon->process().Signal(SIGTERM);
  auto still_running = daemon->process().Wait(absl::Seconds(1));
  if (still_running.ok()) {
    GTEST_SKIP() << "the first SIGTERM did not wait for the Watch stream (exit "
                 << still_running->code << "); nothing to cut short";
  }
  daemon->process().Signal(SIGTERM);
  const absl::Time second_signal = absl::Now();
  auto exit = daemon->process().Wait(absl::Seconds(10));
  ASSERT_THAT(exit, IsOk());
  EXPECT_LT(absl::Now() - second_signal, absl::Seconds(2));  // well before the grace ends
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->code, 1);
  EXPECT_THAT(exit->stderr_text, HasSubstr("second stop signal"));
  context.TryCancel();
}

TEST(ServeTest, ASecondDaemonOnTheSamePortFailsInsteadOfSharingIt) {
  auto first = StartDaemon();
  ASSERT_NE(first, nullptr);
  TempDir dir;
  ExitInfo second = RunChild({PROVD_BINARY, "serve", "--listen", first->grpc_address(),
                              "--metrics-listen", "", "--data-dir", (dir / "data").string()},
                             dir);
  EXPECT_EQ(second.code, 1);
  EXPECT_THAT(second.stderr_text, HasSubstr("cannot listen"));
}

TEST(ServeTest, BadFlagsExitNonZeroWithAClearMessage) {
  TempDir dir;
  ExitInfo bad_listen = RunChild({PROVD_BINARY, "serve", "--listen", "nowhere"}, dir);
  EXPECT_EQ(bad_listen.code, 2);
  EXPECT_THAT(bad_listen.stderr_text, HasSubstr("--listen \"nowhere\": expected HOST:PORT"));
  ExitInfo unknown = RunChild({PROVD_BINARY, "serve", "--frobnicate"}, dir);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.stderr_text, HasSubstr("--frobnicate"));
  ExitInfo no_command = RunChild({PROVD_BINARY}, dir);
  EXPECT_EQ(no_command.code, 2);
  ExitInfo provctl_bad = RunChild({PROVCTL_BINARY, "submit", "--zkey", "a"}, dir);
  EXPECT_EQ(provctl_bad.code, 2);
  EXPECT_THAT(provctl_bad.stderr_text, HasSubstr("--witness or --witness-name is required"));
}

TEST(ServeTest, AnUnusableDataDirFailsStartupNamingTheFlag) {
  TempDir dir;
  WriteFile(dir / "file", "x");
  ExitInfo info = RunChild({PROVD_BINARY, "serve", "--listen", "127.0.0.1:0", "--metrics-listen",
                            "", "--data-dir", (dir / "file/data").string()},
                           dir);
  EXPECT_EQ(info.code, 1);
  EXPECT_THAT(info.stderr_text, HasSubstr("--data-dir"));
}

TEST(ServeTest, ProvctlWithoutADaemonReportsUnavailable) {
  TempDir dir;
  ExitInfo info =
      RunChild({PROVCTL_BINARY, "--addr", "127.0.0.1:1", "--timeout", "2", "health"}, dir);
  EXPECT_EQ(info.code, 1);
  EXPECT_THAT(info.stderr_text, HasSubstr("health failed: UNAVAILABLE"));
}

TEST(ServeTest, WithoutAGpuNoLockFileIsTouched) {
  TempDir dir;
  ExitInfo version = RunChild({PROVD_BINARY, "version"}, dir);
  ASSERT_EQ(version.code, 0);
  if (version.stdout_text.find("no usable GPU") == std::string::npos) {
    GTEST_SKIP() << "this host has a GPU: " << version.stdout_text;
  }
  auto daemon = StartDaemon();
  ASSERT_NE(daemon, nullptr);
  EXPECT_FALSE(std::filesystem::exists(daemon->state_dir() / "locks"));
}

TEST(ServeTest, JsonLogsAreOneObjectPerLine) {
  auto daemon = StartDaemon({"--log-format", "json"});
  ASSERT_NE(daemon, nullptr);
  daemon->process().Signal(SIGTERM);
  auto exit = daemon->process().Wait(absl::Seconds(15));
  ASSERT_THAT(exit, IsOk());
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(exit->stderr_text, '\n', absl::SkipEmpty())) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(parsed.is_discarded()) << line;
    EXPECT_TRUE(parsed.contains("msg"));
    ++lines;
  }
  EXPECT_GE(lines, 3);
}

TEST(ServeTest, PrintConfigShowsTheEffectiveConfiguration) {
  TempDir dir;
  ExitInfo info =
      RunChild({PROVD_BINARY, "serve", "--data-dir", (dir / "d").string(), "--print-config"}, dir);
  ASSERT_EQ(info.code, 0) << info.stderr_text;
  nlohmann::json config = nlohmann::json::parse(info.stdout_text);
  EXPECT_EQ(config["key_dir"], (dir / "d/keys").string());
  EXPECT_EQ(config["listen"], "127.0.0.1:50051");
  EXPECT_FALSE(std::filesystem::exists(dir / "d"));  // printing starts nothing
}

}  // namespace
}  // namespace provd::testing
