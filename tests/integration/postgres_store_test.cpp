// A real `provd serve --store postgres://...` on a real PostgreSQL server of the test's own
// (tests/support/postgres_server.hpp): the daemon proves on it end to end, survives kill -9 at
// random moments with every acknowledged job ending exactly once, and rides out a restart of the
// database under load, with submissions during the outage refused as UNAVAILABLE and nothing
// lost or proved twice.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/circuits.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::testing {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;
using ::testing::HasSubstr;

class PostgresStoreTest : public JobServiceFixture {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start();
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    absl::StatusOr<std::string> uri = server_->CreateDatabase("provd");
    ASSERT_THAT(uri, IsOk());
    uri_ = *uri;
  }

  std::vector<std::string> Flags() const {
    return {"--store",
            uri_,
            "--cpu-workers",
            "1",
            "--simulated-gpus",
            "1",
            "--simulated-gpu-latency-ms",
            "15"};
  }

  // Every job ended once, with a proof; returns how many took more than one attempt.
  int ExpectEachSucceededOnce(const std::vector<std::string>& ids) {
    int restarted = 0;
    for (const std::string& id : ids) {
      Job job = WaitFinal(id, absl::Seconds(120));
      EXPECT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << id << ": " << job.error().message();
      int finals = 0;
      for (const JobEvent& e : Events(id)) {
        finals += e.has_succeeded() + e.has_failed() + e.has_cancelled();
      }
      EXPECT_EQ(finals, 1) << id << " ended " << finals << " times";
      if (job.attempts() > 1) ++restarted;
    }
    return restarted;
  }

  std::unique_ptr<PostgresServer> server_;
  std::string uri_;
};

TEST_F(PostgresStoreTest, AJobIsProvedAndVerifiedWithNothingOfItOnTheHost) {
  TempDir state;
  StartDaemon(Flags(), state.path());
  ASSERT_NE(daemon_, nullptr);
  auto job = Submit(Request("mult.zkey", mult_witness_, provd::v1::PRIORITY_HIGH, "first"));
  ASSERT_THAT(job, IsOk());
  Job done = WaitFinal(job->id());
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED) << done.error().message();
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             done.result().public_json(), done.result().proof_json()));
  // The data dir holds no job store: no SQLite file, no spool.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(state.path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find("jobs.sqlite3"), std::string::npos) << entry.path();
    EXPECT_NE(name, "spool") << entry.path();
  }
  // A second daemon on the same database refuses to start rather than run these jobs again.
  TempDir other;
  auto second = DaemonProcess::StartIn(other.path(), {"--store", uri_, "--key-dir", keys_.path()});
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("in use by another provd"));
}

TEST_F(PostgresStoreTest, KilledAtRandomMomentsItCompletesEveryAcknowledgedJobExactlyOnce) {
  TempDir state;
  const std::vector<std::string> acknowledged =
      SubmitThroughKills(3, Flags(), state.path(), 20261207);
  ASSERT_NE(daemon_, nullptr);
  ASSERT_GE(acknowledged.size(), 3u);
  StartDaemon(Flags(), state.path());
  const int restarted = ExpectEachSucceededOnce(acknowledged);
  Job sample = WaitFinal(acknowledged.back());
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             sample.result().public_json(), sample.result().proof_json()));
  std::cout << acknowledged.size() << " acknowledged jobs, " << restarted
            << " of them interrupted by a kill and finished after a restart\n";
}

TEST_F(PostgresStoreTest, ARestartOfTheDatabaseUnderLoadLosesNothingAndProvesNothingTwice) {
  TempDir state;
  StartDaemon(Flags(), state.path());
  ASSERT_NE(daemon_, nullptr);
  std::vector<std::string> acknowledged;
  std::atomic<int> refused{0};
  std::string refusal;
  std::atomic<bool> outage_over{false};
  std::thread outage([&] {
    absl::SleepFor(absl::Milliseconds(600));
    EXPECT_THAT(server_->Stop(), IsOk());
    absl::SleepFor(absl::Seconds(2));
    EXPECT_THAT(server_->Restart(), IsOk());
    outage_over = true;
  });
  // Submit before, during and after the outage (20 after it).
  int after_outage = 0;
  for (int i = 0; after_outage < 20; ++i) {
    if (outage_over) ++after_outage;
    auto job = Submit(Request("mult.zkey", mult_witness_,
                              i % 3 ? provd::v1::PRIORITY_LOW : provd::v1::PRIORITY_HIGH,
                              absl::StrCat("load-", i)));
    if (job.ok()) {
      acknowledged.push_back(job->id());
    } else {
      EXPECT_TRUE(absl::IsUnavailable(job.status())) << job.status();
      if (refused++ == 0) refusal = std::string(job.status().message());
    }
    absl::SleepFor(absl::Milliseconds(40));
  }
  outage.join();
  EXPECT_GT(refused.load(), 0) << "no submission met the outage";
  EXPECT_THAT(refusal, HasSubstr("cannot be reached"));
  ASSERT_GE(acknowledged.size(), 20u);
  EXPECT_EQ(ExpectEachSucceededOnce(acknowledged), 0)
      << "a job was proved twice: its end was not recorded through the outage";
  Job sample = WaitFinal(acknowledged.front());
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("mult_bn128") / "vkey.json",
                             sample.result().public_json(), sample.result().proof_json()));
}

}  // namespace
}  // namespace provd::testing
