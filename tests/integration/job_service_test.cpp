// The job service end to end: the real `provd serve` on loopback with temp dirs, driven through
// the C++ client, proving the circuits of the `circuits` fixture; proofs checked by snarkjs.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/prover_client.hpp"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon_process.hpp"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;
using provd::v1::JobState;
using provd::v1::Priority;
using ::testing::_;
using ::testing::HasSubstr;
using TimeUtil = google::protobuf::util::TimeUtil;

class JobServiceTest : public JobServiceFixture {};

TEST_F(JobServiceTest, TwoHundredJobsFromEightClientsAllSucceedAndTheirProofsVerify) {
  StartDaemon({"--cpu-workers", "2"});
  constexpr int kClients = 8;
  constexpr int kJobsPerClient = 26;
  std::vector<std::vector<std::string>> ids(kClients);
  std::vector<std::thread> clients;
  std::atomic<int> refused{0};
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      client::ProverClient client(daemon_->grpc_address(), client::ClientOptions{});
      for (int j = 0; j < kJobsPerClient; ++j) {
        const bool bls = j % 13 == 5;
        auto response = client.SubmitJob(
            Request(bls ? "bls/mult.zkey" : "mult.zkey", bls ? bls_witness_ : mult_witness_,
                    (c + j) % 3 == 0 ? provd::v1::PRIORITY_HIGH : provd::v1::PRIORITY_LOW));
        if (response.ok()) {
          ids[c].push_back(response->job().id());
        } else {
          ++refused;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(refused.load(), 0);
  int succeeded = 0;
  std::vector<Job> samples;
  for (const auto& client_ids : ids) {
    for (const std::string& id : client_ids) {
      Job job = WaitFinal(id, absl::Seconds(120));
      EXPECT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << id << " " << job.error().message();
      if (job.state() == provd::v1::JOB_STATE_SUCCEEDED) ++succeeded;
      if (job.attempts() != 1) ADD_FAILURE() << id << " ran " << job.attempts() << " times";
      if (samples.size() < 3 && job.spec().groth16().zkey_name() == "mult.zkey") {
        samples.push_back(job);
      }
      if (job.spec().groth16().zkey_name() == "bls/mult.zkey" && samples.size() < 4) {
        samples.push_back(job);
      }
    }
  }
  EXPECT_EQ(succeeded, kClients * kJobsPerClient);
  for (const Job& job : samples) {
    const bool bls = job.spec().groth16().zkey_name() == "bls/mult.zkey";
    EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS,
                               CircuitCase(bls ? "mult_bls12381" : "mult_bn128") / "vkey.json",
                               job.result().public_json(), job.result().proof_json()))
        << job.id();
  }
}

TEST_F(JobServiceTest, HighPriorityJobsStartBeforeLowOnesSubmittedEarlier) {
  // One slot, on a slow simulated GPU: the first low job holds it while the rest queue.
  StartDaemon({"--cpu-workers", "0", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "60"});
  auto blocker = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(blocker, IsOk());
  std::vector<std::string> lows, highs;
  for (int i = 0; i < 3; ++i) {
    auto low = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
    ASSERT_THAT(low, IsOk());
    lows.push_back(low->id());
  }
  for (int i = 0; i < 3; ++i) {
    auto high = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_HIGH));
    ASSERT_THAT(high, IsOk());
    highs.push_back(high->id());
  }
  auto started_at = [&](const std::string& id) {
    Job job = WaitFinal(id, absl::Seconds(120));
    EXPECT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
    return TimeUtil::TimestampToNanoseconds(job.started_at());
  };
  int64_t last_high = 0, first_low = INT64_MAX;
  for (const auto& id : highs) last_high = std::max(last_high, started_at(id));
  for (const auto& id : lows) first_low = std::min(first_low, started_at(id));
  EXPECT_LT(last_high, first_low) << "a low job started before a high one submitted after it";
  // FIFO within a priority.
  for (size_t i = 1; i < lows.size(); ++i) EXPECT_LT(started_at(lows[i - 1]), started_at(lows[i]));
  EXPECT_EQ(WaitFinal(blocker->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
}

TEST_F(JobServiceTest, AHighJobNextToALowOneOnTheOnlyGpuTakesAtMostAFifthLongerThanAlone) {
  // The GPU is simulated (a latency per kernel call) so that device time dominates, as on a real
  // GPU host; the low job yields it within a chunk and continues on the CPU at nice 19.
  StartDaemon({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "40",
               "--msm-chunk-points", "64"});
  auto run_high = [&] {
    const absl::Time start = absl::Now();
    auto high = Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_HIGH));
    EXPECT_THAT(high, IsOk());
    if (!high.ok()) return absl::ZeroDuration();
    Job job = WaitFinal(high->id());
    EXPECT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED);
    return absl::Now() - start;
  };
  std::vector<absl::Duration> idle, busy;
  for (int i = 0; i < 3; ++i) idle.push_back(run_high());
  for (int i = 0; i < 3; ++i) {
    auto low = Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_LOW));
    ASSERT_THAT(low, IsOk());
    // Until the low job holds the GPU.
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    for (bool on_gpu = false; !on_gpu && absl::Now() < give_up;) {
      for (const JobEvent& e : Events(low->id(), absl::Milliseconds(50))) {
        on_gpu |= e.has_device_acquired();
      }
      if (!on_gpu) absl::SleepFor(absl::Milliseconds(20));
      if (absl::Now() > give_up) break;
    }
    busy.push_back(run_high());
    Job low_job = WaitFinal(low->id());
    EXPECT_EQ(low_job.state(), provd::v1::JOB_STATE_SUCCEEDED);
    bool yielded = false;
    for (const JobEvent& e : Events(low->id())) yielded |= e.has_device_yielded();
    EXPECT_TRUE(yielded) << "the low job never gave the GPU up";
  }
  std::sort(idle.begin(), idle.end());
  std::sort(busy.begin(), busy.end());
  EXPECT_LE(busy[1], idle[1] * 1.2)
      << "median alone " << idle[1] << ", next to a low job " << busy[1];
}

TEST_F(JobServiceTest, AGpuLostMidProofIsRetiredAndEveryJobStillSucceeds) {
  // Fault injection: the simulated GPU fails its third call of a proof as after a sticky CUDA
  // error. The job falls back, retires the GPU and finishes on the CPU; later jobs never take it.
  StartDaemon({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-lost-at-call", "3",
               "--msm-chunk-points", "8", "--on-gpu-retired", "continue"});
  auto first = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(first, IsOk());
  Job job = WaitFinal(first->id());
  ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             job.result().public_json(), job.result().proof_json()));
  int acquired = 0, fallbacks = 0, retired = 0;
  for (const JobEvent& e : Events(first->id())) {
    acquired += e.has_device_acquired();
    fallbacks += e.has_gpu_fallback();
    if (e.has_device_retired()) {
      ++retired;
      EXPECT_EQ(e.device_retired().gpu_index(), 0u);
      EXPECT_THAT(e.device_retired().reason(), HasSubstr("injected loss"));
    }
  }
  EXPECT_EQ(acquired, 1);
  EXPECT_EQ(fallbacks, 1);  // one failed chunk, then the GPU was never asked again
  EXPECT_EQ(retired, 1);

  // High priority too: it neither takes nor waits for the retired GPU.
  auto second = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(WaitFinal(second->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
  for (const JobEvent& e : Events(second->id())) {
    EXPECT_FALSE(e.has_device_acquired() || e.has_gpu_fallback() || e.has_device_retired())
        << e.DebugString();
  }

  auto metrics = HttpGet(daemon_->metrics_address(), "/metrics");
  ASSERT_THAT(metrics, IsOk());
  EXPECT_THAT(*metrics, HasSubstr("provd_gpu_retired{device=\"0\"} 1"));
}

TEST_F(JobServiceTest, AGpuLostMidProofRestartsTheDaemonAndNoJobIsLost) {
  // The default on_gpu_retired = restart: the daemon stops gracefully and exits 75 for its
  // service manager; started again (here without the fault), every accepted job ends once.
  TempDir state;
  StartDaemon({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-lost-at-call", "3",
               "--msm-chunk-points", "8", "--shutdown-grace", "60"},
              state.path());
  ASSERT_NE(daemon_, nullptr);
  auto job = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(job, IsOk());
  auto exit = daemon_->process().Wait(absl::Seconds(120));
  ASSERT_THAT(exit, IsOk());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->code, 75) << exit->stderr_text;
  EXPECT_THAT(exit->stderr_text, HasSubstr("restarting provd"));

  StartDaemon({"--cpu-workers", "1", "--simulated-gpus", "1"}, state.path());
  ASSERT_NE(daemon_, nullptr);
  const Job done = WaitFinal(job->id());
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED) << done.error().message();
  int retired = 0, finals = 0;
  for (const JobEvent& e : Events(job->id())) {
    retired += e.has_device_retired();
    finals += e.has_succeeded() + e.has_failed() + e.has_cancelled();
  }
  EXPECT_EQ(retired, 1);
  EXPECT_EQ(finals, 1);
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             done.result().public_json(), done.result().proof_json()));
}

TEST_F(JobServiceTest, KilledAtRandomMomentsItCompletesEveryAcknowledgedJobExactlyOnce) {
  TempDir state;
  const std::vector<std::string> flags = {
      "--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "15"};
  const std::vector<std::string> acknowledged =
      SubmitThroughKills(5, flags, state.path(), 20261203);
  ASSERT_NE(daemon_, nullptr);
  ASSERT_GE(acknowledged.size(), 5u);
  StartDaemon(flags, state.path());
  std::vector<Job> samples;
  int restarted = 0;
  for (const std::string& id : acknowledged) {
    Job job = WaitFinal(id, absl::Seconds(120));
    ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << id << ": " << job.error().message();
    int finals = 0;
    for (const JobEvent& e : Events(id))
      finals += e.has_succeeded() + e.has_failed() + e.has_cancelled();
    EXPECT_EQ(finals, 1) << id << " ended " << finals << " times";
    if (job.attempts() > 1) ++restarted;
    if (job.attempts() > 1 && samples.size() < 2) samples.push_back(job);
  }
  if (samples.empty()) samples.push_back(WaitFinal(acknowledged.front()));
  for (const Job& job : samples) {
    EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                               job.result().public_json(), job.result().proof_json()));
  }
  // Visible in the test log: how many jobs a kill actually interrupted.
  std::cout << acknowledged.size() << " acknowledged jobs, " << restarted
            << " of them interrupted by a kill and finished after a restart\n";
}

TEST_F(JobServiceTest, BadInputOnTheWireGetsAClearErrorAndTheDaemonKeepsServing) {
  StartDaemon({"--max-message-bytes", "1048576"});
  TempDir outside;
  WriteFile(outside / "secret.zkey", "not yours");
  std::filesystem::create_symlink(outside / "secret.zkey", keys_ / "escape.zkey");
  WriteFile(keys_ / "garbage.zkey", std::string(1000, 'z'));
  std::string truncated = mult_witness_.substr(0, mult_witness_.size() / 2);
  std::string random_bytes = "wtns";
  std::mt19937 random(7);
  for (int i = 0; i < 4000; ++i) random_bytes.push_back(static_cast<char>(random()));

  struct Case {
    const char* what;
    provd::v1::SubmitJobRequest request;
    absl::StatusCode code;
    const char* message;
  };
  const Priority low = provd::v1::PRIORITY_LOW;
  std::vector<Case> cases = {
      {"truncated witness", Request("mult.zkey", truncated, low),
       absl::StatusCode::kInvalidArgument, "spec.groth16.witness"},
      {"random witness", Request("mult.zkey", random_bytes, low),
       absl::StatusCode::kInvalidArgument, "spec.groth16.witness"},
      {"other circuit's witness", Request("mult.zkey", poseidon_witness_, low),
       absl::StatusCode::kInvalidArgument, "another circuit"},
      {"other curve's witness", Request("mult.zkey", bls_witness_, low),
       absl::StatusCode::kInvalidArgument, "another field"},
      {"unknown key", Request("nope.zkey", mult_witness_, low), absl::StatusCode::kInvalidArgument,
       "spec.groth16.zkey_name"},
      {"escaping name", Request("../secret.zkey", mult_witness_, low),
       absl::StatusCode::kInvalidArgument, "spec.groth16.zkey_name"},
      {"absolute name", Request((outside / "secret.zkey").string(), mult_witness_, low),
       absl::StatusCode::kInvalidArgument, "spec.groth16.zkey_name"},
      {"symlink out", Request("escape.zkey", mult_witness_, low),
       absl::StatusCode::kInvalidArgument, "outside the key directory"},
      {"directory", Request("bls", mult_witness_, low), absl::StatusCode::kInvalidArgument,
       "spec.groth16.zkey_name"},
      {"not a zkey", Request("garbage.zkey", mult_witness_, low),
       absl::StatusCode::kInvalidArgument, "spec.groth16.zkey_name"},
      {"no priority", Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_UNSPECIFIED),
       absl::StatusCode::kInvalidArgument, "priority"},
      {"huge message", Request("mult.zkey", std::string(2 << 20, 'w'), low),
       absl::StatusCode::kResourceExhausted, ""},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(client_->SubmitJob(c.request), StatusIs(c.code, HasSubstr(c.message))) << c.what;
  }
  EXPECT_THAT(client_->CancelJob("0123abcd"), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(client_->GetJob("0123abcd"), StatusIs(absl::StatusCode::kNotFound, _));
  provd::v1::WatchJobRequest watch;
  watch.set_job_id("no/such/id");
  EXPECT_THAT(client_->WatchJob(watch, [](const JobEvent&) {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job_id")));
  provd::v1::ListJobsRequest list;
  list.set_page_token("forged");
  EXPECT_THAT(client_->ListJobs(list),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_token")));

  // Garbage bytes where a TLS or HTTP/2 handshake should be; then a TLS client at a plaintext
  // port.
  {
    const std::string address = daemon_->grpc_address();
    const int port = std::stoi(address.substr(address.rfind(':') + 1));
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const std::string hello = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage-client-hello";
    EXPECT_GT(::write(fd, hello.data(), hello.size()), 0);
    char buffer[256];
    (void)::read(fd, buffer, sizeof(buffer));
    ::close(fd);
    client::ClientOptions tls;
    tls.tls.emplace();
    tls.timeout = std::chrono::milliseconds(3000);
    client::ProverClient tls_client(address, tls);
    EXPECT_THAT(tls_client.Health(""), StatusIs(absl::StatusCode::kUnavailable, _));
  }

  auto serving = client_->Health("");
  ASSERT_THAT(serving, IsOk());
  EXPECT_EQ(*serving, grpc::health::v1::HealthCheckResponse::SERVING);
  auto job = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(WaitFinal(job->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
  absl::StatusOr<ExitInfo> alive = daemon_->process().Wait(absl::Milliseconds(1));
  EXPECT_FALSE(alive.ok()) << "the daemon exited";
}

TEST_F(JobServiceTest, RetriesCancellationDeadlinesAndTheQueueLimit) {
  // One slot on a slow simulated GPU, so that jobs stay queued long enough to act on.
  StartDaemon({"--cpu-workers", "0", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "80",
               "--max-queued-jobs", "3"});
  auto running = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW, "retry-me"));
  ASSERT_THAT(running, IsOk());
  auto retried =
      client_->SubmitJob(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW, "retry-me"));
  ASSERT_THAT(retried, IsOk());
  EXPECT_TRUE(retried->deduplicated());
  EXPECT_EQ(retried->job().id(), running->id());

  auto queued = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  auto request = Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW);
  request.mutable_deadline()->set_nanos(300'000'000);
  auto expiring = Submit(request);
  auto third = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(queued, IsOk());
  ASSERT_THAT(expiring, IsOk());
  ASSERT_THAT(third, IsOk());
  EXPECT_THAT(Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW)),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("queue is full")));
  // A retry of an accepted request still gets its job when the queue is full.
  EXPECT_THAT(
      client_->SubmitJob(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW, "retry-me")),
      IsOk());

  auto cancelled = client_->CancelJob(queued->id());
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(cancelled->state(), provd::v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(cancelled->error().code(), static_cast<int>(absl::StatusCode::kCancelled));
  Job expired = WaitFinal(expiring->id());
  EXPECT_EQ(expired.state(), provd::v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(expired.error().code(), static_cast<int>(absl::StatusCode::kDeadlineExceeded));
  std::vector<JobEvent> events = Events(expiring->id());
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().cancelled().reason(), "deadline");

  // The running job stops at its next chunk and frees its slot for the next one.
  auto stopped = client_->CancelJob(running->id());
  ASSERT_THAT(stopped, IsOk());
  Job ended = WaitFinal(running->id());
  EXPECT_EQ(ended.state(), provd::v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(Events(running->id()).back().cancelled().reason(), "client");
  EXPECT_EQ(WaitFinal(third->id()).state(), provd::v1::JOB_STATE_SUCCEEDED);
  // Cancelling a finished job changes nothing.
  auto again = client_->CancelJob(third->id());
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->state(), provd::v1::JOB_STATE_SUCCEEDED);
}

TEST_F(JobServiceTest, SigtermRequeuesARunningJobThatTheNextStartResumesAfterItsFinishedMsms) {
  TempDir state;
  const std::vector<std::string> flags = {
      "--cpu-workers",    "0", "--simulated-gpus",   "1", "--simulated-gpu-latency-ms", "60",
      "--shutdown-grace", "0", "--msm-chunk-points", "16"};
  StartDaemon(flags, state.path());
  auto job = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_LOW));
  ASSERT_THAT(job, IsOk());
  // Stop it once msm_a is done (its progress saved) and msm_b1 has begun.
  bool in_msm_b1 = false;
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (!in_msm_b1 && absl::Now() < give_up) {
    for (const JobEvent& e : Events(job->id(), absl::Milliseconds(100))) {
      in_msm_b1 |= e.has_round_started() && e.round_started().round_name() == "msm_b1";
    }
  }
  ASSERT_TRUE(in_msm_b1);
  daemon_->process().Signal(SIGTERM);
  auto exit = daemon_->process().Wait(absl::Seconds(20));
  ASSERT_THAT(exit, IsOk());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->code, 0) << exit->stderr_text;
  EXPECT_THAT(exit->stderr_text, HasSubstr("queued again"));

  StartDaemon(flags, state.path());
  Job done = WaitFinal(job->id());
  EXPECT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(done.attempts(), 2u);
  bool requeued = false;
  for (const JobEvent& e : Events(job->id())) requeued |= e.has_queued() && e.queued().requeued();
  EXPECT_TRUE(requeued);
  EXPECT_THAT(daemon_->process().Stderr(), HasSubstr("msm_a resumes after chunk 3/3"));
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             done.result().public_json(), done.result().proof_json()));
}

TEST_F(JobServiceTest, ProvctlSubmitWaitSurvivesAKillAndRestartOfTheDaemon) {
  TempDir state;
  std::vector<std::string> flags = {
      "--cpu-workers", "0", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "60"};
  StartDaemon(flags, state.path());
  const std::string address = daemon_->grpc_address();
  WriteFile(state / "witness.wtns", mult_witness_);
  auto provctl = Subprocess::Start(
      {PROVCTL_BINARY, "--addr", address, "submit", "--zkey", "mult.zkey", "--witness",
       (state / "witness.wtns").string(), "--priority", "high", "--wait", "--proof-out",
       (state / "proof.json").string(), "--public-out", (state / "public.json").string()},
      state.path());
  ASSERT_THAT(provctl, IsOk());
  // Kill the daemon once the job is running, and bring it back on the same address.
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  bool running = false;
  while (!running && absl::Now() < give_up) {
    auto list = client_->ListJobs({});
    running = list.ok() && list->jobs_size() == 1 &&
              list->jobs(0).state() == provd::v1::JOB_STATE_RUNNING;
    if (!running) absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(running);
  daemon_->process().Signal(SIGKILL);
  ASSERT_THAT(daemon_->process().Wait(absl::Seconds(10)), IsOk());
  flags.insert(flags.end(), {"--listen", address});
  StartDaemon(flags, state.path());

  auto exit = provctl->Wait(absl::Seconds(90));
  ASSERT_THAT(exit, IsOk());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->code, 0) << exit->stdout_text << exit->stderr_text;
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             ReadFile(state / "public.json"), ReadFile(state / "proof.json")));
}

}  // namespace
}  // namespace provd::testing
