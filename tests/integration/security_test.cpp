// Who may talk to `provd serve`: TLS, mutual TLS and the bearer token, through the real provctl
// with certificates made by openssl for each run.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon_process.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {
namespace {

using ::testing::HasSubstr;

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = RunToCompletion({MAKE_TEST_CERTS, certs_.path().string()}, certs_.path(),
                                absl::Seconds(60));
    ASSERT_THAT(made, IsOk());
    ASSERT_EQ(made->code, 0) << made->stderr_text;
  }

  std::string Cert(const std::string& name) const { return (certs_ / name).string(); }

  ExitInfo Provctl(DaemonProcess& daemon, const std::vector<std::string>& args) {
    auto info = daemon.Provctl(args);
    EXPECT_THAT(info, IsOk());
    return info.ok() ? *info : ExitInfo{};
  }

  TempDir certs_;
};

TEST_F(SecurityTest, TlsServesClientsThatTrustItsCaAndNoOneElse) {
  auto daemon =
      DaemonProcess::Start({"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.key")});
  ASSERT_THAT(daemon, IsOk());
  ExitInfo trusted = Provctl(**daemon, {"--tls-ca", Cert("ca.pem"), "list"});
  EXPECT_EQ(trusted.code, 0) << trusted.stderr_text;
  ExitInfo plaintext = Provctl(**daemon, {"list"});
  EXPECT_EQ(plaintext.code, 1);
  EXPECT_THAT(plaintext.stderr_text, HasSubstr("UNAVAILABLE"));
  ExitInfo other_ca = Provctl(**daemon, {"--tls-ca", Cert("other-ca.pem"), "list"});
  EXPECT_EQ(other_ca.code, 1);
  EXPECT_THAT(other_ca.stderr_text, HasSubstr("UNAVAILABLE"));
  // Still serving after the failed handshakes.
  ExitInfo again = Provctl(**daemon, {"--tls-ca", Cert("ca.pem"), "health"});
  EXPECT_EQ(again.code, 0) << again.stderr_text;
}

TEST_F(SecurityTest, MutualTlsRefusesClientsWithoutACertificateFromItsCa) {
  auto daemon =
      DaemonProcess::Start({"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.key"),
                            "--tls-client-ca", Cert("ca.pem"), "--health-listen", "127.0.0.1:0"});
  ASSERT_THAT(daemon, IsOk());
  ExitInfo with_cert =
      Provctl(**daemon, {"--tls-ca", Cert("ca.pem"), "--tls-cert", Cert("client.pem"), "--tls-key",
                         Cert("client.key"), "list"});
  EXPECT_EQ(with_cert.code, 0) << with_cert.stderr_text;
  ExitInfo without = Provctl(**daemon, {"--tls-ca", Cert("ca.pem"), "list"});
  EXPECT_EQ(without.code, 1);
  EXPECT_THAT(without.stderr_text, HasSubstr("UNAVAILABLE"));
  // Probes that cannot present a certificate ask the plaintext health server instead.
  auto probe_target = RunToCompletion({PROVCTL_BINARY, "--addr", (*daemon)->health_address(),
                                       "health", "--service", "provd.v1.Prover"},
                                      certs_.path(), absl::Seconds(30));
  ASSERT_THAT(probe_target, IsOk());
  EXPECT_EQ(probe_target->code, 0) << probe_target->stderr_text;
  EXPECT_EQ(probe_target->stdout_text, "SERVING\n");
  // It serves nothing else.
  auto no_jobs_there =
      RunToCompletion({PROVCTL_BINARY, "--addr", (*daemon)->health_address(), "list"},
                      certs_.path(), absl::Seconds(30));
  ASSERT_THAT(no_jobs_there, IsOk());
  EXPECT_EQ(no_jobs_there->code, 1);
  EXPECT_THAT(no_jobs_there->stderr_text, HasSubstr("UNIMPLEMENTED"));
  // A certificate of another CA is refused as well: the server's CA signs the server only.
  ExitInfo server_as_client =
      Provctl(**daemon, {"--tls-ca", Cert("ca.pem"), "--tls-cert", Cert("other-ca.pem"),
                         "--tls-key", Cert("other-ca.key"), "list"});
  EXPECT_EQ(server_as_client.code, 1);
}

TEST_F(SecurityTest, TheBearerTokenGuardsJobCallsButNotHealthChecks) {
  WriteFile(certs_ / "token", "s3cret-token\n");
  WriteFile(certs_ / "wrong", "s3cret-tokem\n");
  auto daemon = DaemonProcess::Start({"--auth-token-file", Cert("token")});
  ASSERT_THAT(daemon, IsOk());
  ExitInfo none = Provctl(**daemon, {"list"});
  EXPECT_EQ(none.code, 1);
  EXPECT_THAT(none.stderr_text, HasSubstr("UNAUTHENTICATED"));
  ExitInfo wrong = Provctl(**daemon, {"--token-file", Cert("wrong"), "status", "abc"});
  EXPECT_EQ(wrong.code, 1);
  EXPECT_THAT(wrong.stderr_text, HasSubstr("UNAUTHENTICATED"));
  ExitInfo right = Provctl(**daemon, {"--token-file", Cert("token"), "list"});
  EXPECT_EQ(right.code, 0) << right.stderr_text;
  ExitInfo health = Provctl(**daemon, {"health"});
  EXPECT_EQ(health.code, 0) << health.stderr_text;
}

TEST_F(SecurityTest, BadSecurityFlagsFailStartupNamingTheFlag) {
  TempDir dir;
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {PROVD_BINARY, "serve", "--data-dir", (dir / "d").string()});
    auto info = RunToCompletion(args, dir.path(), absl::Seconds(30));
    EXPECT_THAT(info, IsOk());
    return info.ok() ? *info : ExitInfo{};
  };
  ExitInfo half = run({"--tls-cert", Cert("server.pem")});
  EXPECT_EQ(half.code, 2);
  EXPECT_THAT(half.stderr_text, HasSubstr("--tls-cert and --tls-key go together"));
  ExitInfo missing = run({"--auth-token-file", (dir / "nope").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.stderr_text, HasSubstr("--auth-token-file"));
  WriteFile(dir / "empty", "\n");
  ExitInfo empty = run({"--listen", "127.0.0.1:0", "--metrics-listen", "", "--auth-token-file",
                        (dir / "empty").string()});
  EXPECT_EQ(empty.code, 1);
  EXPECT_THAT(empty.stderr_text, HasSubstr("the token is empty"));
}

}  // namespace
}  // namespace provd::testing
