// The metrics as operators see them: a real Prometheus server (Debian's `prometheus`) scrapes a
// real daemon every second while it runs jobs, one of which preempts another on a simulated
// GPU; the counters and histograms are then read back through Prometheus's HTTP query API.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "client/prover_client.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon_process.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {
namespace {

constexpr char kPrometheus[] = "/usr/bin/prometheus";

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t length = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

class PrometheusTest : public ::testing::Test {
 protected:
  // The value of an instant query with one result; nullopt when it has none (yet).
  std::optional<double> Query(const std::string& promql) {
    auto body = HttpGet(prometheus_address_, "/api/v1/query?query=" + UrlEncode(promql));
    if (!body.ok()) return std::nullopt;
    nlohmann::json reply = nlohmann::json::parse(*body, nullptr, false);
    if (reply.is_discarded() || reply["status"] != "success") return std::nullopt;
    const auto& result = reply["data"]["result"];
    if (result.size() != 1) return std::nullopt;
    return std::stod(result[0]["value"][1].get<std::string>());
  }

  // Waits (at most 60 s) until `promql` is at least `at_least`; the last value seen.
  std::optional<double> WaitFor(const std::string& promql, double at_least) {
    std::optional<double> value;
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    while (absl::Now() < give_up) {
      value = Query(promql);
      if (value && *value >= at_least) break;
      absl::SleepFor(absl::Milliseconds(250));
    }
    return value;
  }

  TempDir dir_;
  std::string prometheus_address_;
};

TEST_F(PrometheusTest, CountersAndHistogramsMoveAsJobsRunAndOnePreemptsAnother) {
  ASSERT_TRUE(std::filesystem::exists(kPrometheus))
      << "install Debian's prometheus package (scripts/install-deps.sh does)";
  std::filesystem::create_directories(dir_ / "keys");
  std::filesystem::copy_file(CircuitCase("poseidon_bn128") / "circuit.zkey",
                             dir_ / "keys/poseidon.zkey");
  auto daemon = DaemonProcess::Start({"--key-dir", (dir_ / "keys").string(), "--cpu-workers", "1",
                                      "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "30",
                                      "--msm-chunk-points", "64"});
  ASSERT_THAT(daemon, IsOk());

  WriteFile(dir_ / "prometheus.yml",
            absl::StrCat("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                         "scrape_configs:\n  - job_name: provd\n    static_configs:\n"
                         "      - targets: ['",
                         (*daemon)->metrics_address(), "']\n"));
  prometheus_address_ = absl::StrCat("127.0.0.1:", FreePort());
  auto prometheus =
      Subprocess::Start({kPrometheus, "--config.file=" + (dir_ / "prometheus.yml").string(),
                         "--storage.tsdb.path=" + (dir_ / "tsdb").string(),
                         "--web.listen-address=" + prometheus_address_, "--log.level=warn"},
                        dir_.path());
  ASSERT_THAT(prometheus, IsOk());
  ASSERT_EQ(WaitFor("up{job=\"provd\"}", 1), 1.0) << prometheus->Stderr();

  client::ProverClient client((*daemon)->grpc_address(), client::ClientOptions{});
  const std::string witness = ReadFile(CircuitCase("poseidon_bn128") / "witness.wtns");
  auto request = [&](provd::v1::Priority priority) {
    provd::v1::SubmitJobRequest r;
    r.set_priority(priority);
    r.mutable_spec()->mutable_groth16()->set_zkey_name("poseidon.zkey");
    r.mutable_spec()->mutable_groth16()->set_witness(witness);
    return r;
  };
  auto low = client.SubmitJob(request(provd::v1::PRIORITY_LOW));
  ASSERT_THAT(low, IsOk());
  // Once the low job holds the GPU, a high one takes it.
  for (int i = 0; i < 200; ++i) {
    auto job = client.GetJob(low->job().id());
    if (job.ok() && job->rounds_size() > 0) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  auto high = client.SubmitJob(request(provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(high, IsOk());
  auto bad = request(provd::v1::PRIORITY_LOW);
  bad.mutable_spec()->mutable_groth16()->set_zkey_name("missing.zkey");
  EXPECT_FALSE(client.SubmitJob(bad).ok());

  EXPECT_EQ(WaitFor("sum(provd_jobs_completed_total{outcome=\"succeeded\"})", 2), 2.0);
  EXPECT_EQ(Query("sum(provd_jobs_submitted_total)"), 2.0);
  EXPECT_EQ(Query("provd_jobs_rejected_total{code=\"invalid_argument\"}"), 1.0);
  EXPECT_GE(Query("provd_gpu_preemptions_total{device=\"0\"}").value_or(0), 1.0);
  EXPECT_GE(Query("provd_gpu_yield_latency_seconds_count{device=\"0\"}").value_or(0), 1.0);
  EXPECT_GE(Query("sum(provd_job_queue_wait_seconds_count)").value_or(0), 2.0);
  EXPECT_EQ(Query("sum(provd_job_duration_seconds_count)"), 2.0);
  EXPECT_EQ(Query("sum(provd_round_duration_seconds_count)"), 20.0);  // 10 rounds per proof
  EXPECT_GT(Query("provd_proving_seconds_total{priority=\"high\",backend=\"gpu\"}").value_or(0),
            0.0);
  // The low job ran on the GPU, then on the CPU after it yielded.
  EXPECT_GT(Query("provd_proving_seconds_total{priority=\"low\",backend=\"cpu\"}").value_or(0),
            0.0);
  EXPECT_GT(Query("provd_proving_seconds_total{priority=\"low\",backend=\"gpu\"}").value_or(0),
            0.0);
  EXPECT_EQ(WaitFor("sum(provd_queue_depth)", 0), 0.0);
  EXPECT_GE(Query("provd_key_cache_hits_total").value_or(0), 1.0);
  EXPECT_EQ(Query("provd_build_info"), 1.0);
  // Every proof gave its device memory back (scraped after both ended).
  absl::SleepFor(absl::Milliseconds(1500));
  EXPECT_EQ(Query("provd_device_memory_bytes{device=\"0\"}"), 0.0);
}

}  // namespace
}  // namespace provd::testing
