// A real `provd serve` with the fixture's keys, and a client for it: what the daemon tests of
// jobs share (job_service_test, proof_verification_test).
#pragma once

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/prover_client.hpp"
#include "gtest/gtest.h"
#include "tests/integration/daemon_process.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {

inline bool IsFinal(provd::v1::JobState state) {
  return state == provd::v1::JOB_STATE_SUCCEEDED || state == provd::v1::JOB_STATE_FAILED ||
         state == provd::v1::JOB_STATE_CANCELLED;
}

// A key directory holding the fixture's keys by short names.
class KeyDir {
 public:
  KeyDir() {
    std::filesystem::create_directories(dir_ / "bls");
    std::filesystem::copy_file(CircuitCase("mult_bn128") / "circuit.zkey", dir_ / "mult.zkey");
    std::filesystem::copy_file(CircuitCase("poseidon_bn128") / "circuit.zkey",
                               dir_ / "poseidon.zkey");
    std::filesystem::copy_file(CircuitCase("mult_bls12381") / "circuit.zkey",
                               dir_ / "bls/mult.zkey");
  }
  std::string path() const { return dir_.path().string(); }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  TempDir dir_;
};

inline provd::v1::SubmitJobRequest Request(const std::string& zkey, const std::string& witness,
                                           provd::v1::Priority priority,
                                           const std::string& request_id = "") {
  provd::v1::SubmitJobRequest request;
  request.set_priority(priority);
  request.set_request_id(request_id);
  request.mutable_spec()->mutable_groth16()->set_zkey_name(zkey);
  request.mutable_spec()->mutable_groth16()->set_witness(witness);
  return request;
}

class JobServiceFixture : public ::testing::Test {
 protected:
  void StartDaemon(std::vector<std::string> flags, const std::filesystem::path& state = {}) {
    flags.insert(flags.end(), {"--key-dir", keys_.path()});
    auto daemon = DaemonProcess::StartIn(state, flags);
    ASSERT_THAT(daemon, IsOk());
    daemon_ = *std::move(daemon);
    client_ =
        std::make_unique<client::ProverClient>(daemon_->grpc_address(), client::ClientOptions{});
  }

  absl::StatusOr<provd::v1::Job> Submit(const provd::v1::SubmitJobRequest& request) {
    auto response = client_->SubmitJob(request);
    if (!response.ok()) return response.status();
    return response->job();
  }

  // Polls until the job is final (or `timeout` passes: the last state seen).
  provd::v1::Job WaitFinal(const std::string& id, absl::Duration timeout = absl::Seconds(60)) {
    const absl::Time give_up = absl::Now() + timeout;
    for (;;) {
      absl::StatusOr<provd::v1::Job> job = client_->GetJob(id);
      EXPECT_THAT(job, IsOk());
      if (!job.ok() || IsFinal(job->state()) || absl::Now() > give_up)
        return job.ok() ? *job : provd::v1::Job();
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  // The job's events so far: the stream is cut after `wait` unless the job ends first.
  std::vector<provd::v1::JobEvent> Events(const std::string& id,
                                          absl::Duration wait = absl::Seconds(60)) {
    std::vector<provd::v1::JobEvent> events;
    provd::v1::WatchJobRequest request;
    request.set_job_id(id);
    absl::Status status =
        client_->WatchJob(request, absl::ToChronoTime(absl::Now() + wait),
                          [&](const provd::v1::JobEvent& e) { events.push_back(e); });
    if (!absl::IsDeadlineExceeded(status)) {
      EXPECT_THAT(status, IsOk());
    }
    return events;
  }

  // `lives` times: starts the daemon in `state`, submits mult jobs (alternating priorities,
  // request ids "crash-N") until a SIGKILL lands 150-900 ms in, and waits for it to die.
  // Returns the ids of the submissions that were answered: the jobs the daemon accepted.
  std::vector<std::string> SubmitThroughKills(int lives, const std::vector<std::string>& flags,
                                              const std::filesystem::path& state, uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<std::string> acknowledged;
    int request_number = 0;
    for (int life = 0; life < lives; ++life) {
      StartDaemon(flags, state);
      if (daemon_ == nullptr) return acknowledged;
      std::atomic<bool> killed{false};
      const auto kill_after =
          absl::Milliseconds(std::uniform_int_distribution<int>(150, 900)(random));
      std::thread killer([&] {
        absl::SleepFor(kill_after);
        daemon_->process().Signal(SIGKILL);
        killed = true;
      });
      while (!killed) {
        const std::string request_id = absl::StrCat("crash-", request_number++);
        auto job = Submit(Request(
            "mult.zkey", mult_witness_,
            request_number % 2 ? provd::v1::PRIORITY_LOW : provd::v1::PRIORITY_HIGH, request_id));
        if (job.ok()) acknowledged.push_back(job->id());
        absl::SleepFor(absl::Milliseconds(30));
      }
      killer.join();
      auto exit = daemon_->process().Wait(absl::Seconds(10));
      EXPECT_THAT(exit, IsOk());
      if (exit.ok()) {
        EXPECT_FALSE(exit->exited) << "the daemon ended by itself: " << exit->stderr_text;
      }
    }
    return acknowledged;
  }

  const std::string mult_witness_ = ReadFile(CircuitCase("mult_bn128") / "witness.wtns");
  const std::string poseidon_witness_ = ReadFile(CircuitCase("poseidon_bn128") / "witness.wtns");
  const std::string bls_witness_ = ReadFile(CircuitCase("mult_bls12381") / "witness.wtns");
  KeyDir keys_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<client::ProverClient> client_;
};

}  // namespace provd::testing
