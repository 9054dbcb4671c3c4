// stark_commit jobs in a real daemon: the root and tree equal the library's (which
// tests/stark checks against pil-stark), bad input of every kind gets INVALID_ARGUMENT (or, for
// a named file's elements, a FAILED job with that code) and leaves the daemon serving, and a
// high-priority Groth16 job takes the simulated GPU from a low stark_commit job between its
// chunks, both results exact; a GPU lost mid-commitment is retired and the root stays exact; a
// kill -9 mid-commitment loses nothing (the job runs again after the restart, once).
#include <signal.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/stark/trace_commitment.hpp"
#include "tests/integration/job_service_fixture.hpp"
#include "tests/support/random.hpp"

namespace provd::testing {
namespace {

using provd::v1::Job;
using provd::v1::JobEvent;
using ::testing::HasSubstr;

constexpr uint64_t kP = stark::Goldilocks::kP;

std::string RandomColumns(uint64_t seed, const stark::TraceShape& shape) {
  TestRng rng(seed);
  std::string bytes(shape.elements() * sizeof(uint64_t), '\0');
  for (size_t i = 0; i < shape.elements(); ++i) {
    const uint64_t v = rng.Next() % kP;
    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
  }
  return bytes;
}

// What the library commits to for these columns: the expected root file and tree file.
std::pair<std::string, std::string> Expected(const std::string& columns,
                                             const stark::TraceShape& shape) {
  std::vector<stark::Goldilocks> trace(shape.elements());
  std::memcpy(trace.data(), columns.data(), columns.size());
  ThreadPool pool(2);
  absl::StatusOr<stark::TraceCommitment> c = stark::CommitTrace(trace, shape, pool);
  EXPECT_THAT(c, IsOk());
  if (!c.ok()) return {};
  const std::array<uint64_t, 2> header = stark::TreeFileHeader(*c);
  std::string tree(reinterpret_cast<const char*>(header.data()), sizeof header);
  tree.append(reinterpret_cast<const char*>(c->extended.data()),
              c->extended.size() * sizeof(uint64_t));
  tree.append(reinterpret_cast<const char*>(c->nodes.data()), c->nodes.size() * sizeof(uint64_t));
  return {stark::RootJson(*c), tree};
}

provd::v1::SubmitJobRequest StarkRequest(const stark::TraceShape& shape,
                                         provd::v1::Priority priority) {
  provd::v1::SubmitJobRequest request;
  request.set_priority(priority);
  provd::v1::StarkCommitSpec* spec = request.mutable_spec()->mutable_stark_commit();
  spec->set_n_cols(static_cast<uint32_t>(shape.n_cols));
  spec->set_blowup_bits(static_cast<uint32_t>(shape.blowup_bits));
  if (shape.merkle.hash == stark::MerkleHash::kPoseidonBn128) {
    spec->set_hash(provd::v1::STARK_HASH_POSEIDON_BN128);
    spec->set_merkle_arity(static_cast<uint32_t>(shape.merkle.arity));
  } else {
    spec->set_hash(provd::v1::STARK_HASH_POSEIDON_GL);
  }
  return request;
}

class StarkJobTest : public JobServiceFixture {
 protected:
  void StartWithDirs(std::vector<std::string> flags) {
    flags.insert(flags.end(), {"--inputs-dir", inputs_.path().string(), "--outputs-dir",
                               outputs_.path().string()});
    StartDaemon(flags);
  }
  void ExpectInvalid(const provd::v1::SubmitJobRequest& request, const std::string& message) {
    absl::StatusOr<Job> job = Submit(request);
    EXPECT_THAT(job, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  }

  TempDir inputs_;
  TempDir outputs_;
};

TEST_F(StarkJobTest, InlineAndNamedColumnsGiveTheLibrarysRootAndTree) {
  StartWithDirs({});
  const stark::TraceShape shape{6, 9, 2};
  const std::string columns = RandomColumns(1, shape);
  const auto [root_json, tree] = Expected(columns, shape);
  WriteFile(inputs_ / "trace.cm", columns);

  provd::v1::SubmitJobRequest inline_request = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  inline_request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  inline_request.mutable_spec()->mutable_stark_commit()->set_tree_name("a/tree.bin");
  absl::StatusOr<Job> inline_job = Submit(inline_request);
  ASSERT_THAT(inline_job, IsOk());
  EXPECT_EQ(inline_job->input_size_bytes(), columns.size());
  EXPECT_FALSE(inline_job->spec().stark_commit().has_columns()) << "inputs are never echoed";

  provd::v1::SubmitJobRequest named_request = StarkRequest(shape, provd::v1::PRIORITY_HIGH);
  named_request.mutable_spec()->mutable_stark_commit()->set_columns_name("trace.cm");
  named_request.mutable_spec()->mutable_stark_commit()->set_n_bits(6);
  absl::StatusOr<Job> named_job = Submit(named_request);
  ASSERT_THAT(named_job, IsOk());
  EXPECT_EQ(named_job->input_size_bytes(), columns.size());

  for (const std::string& id : {inline_job->id(), named_job->id()}) {
    const Job job = WaitFinal(id);
    ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
    EXPECT_EQ(job.result().stark_root_json(), root_json);
    ASSERT_EQ(job.result().stark_root_size(), 4);
    EXPECT_THAT(root_json, HasSubstr(std::to_string(job.result().stark_root(0))));
    EXPECT_EQ(job.spec().stark_commit().n_cols(), 9u);
    std::vector<std::string> rounds;
    for (const auto& round : job.rounds()) rounds.push_back(round.round_name());
    EXPECT_EQ(rounds, (std::vector<std::string>{"trace_lde", "merkle_leaves", "merkle_levels"}));
  }
  EXPECT_EQ(WaitFinal(inline_job->id()).result().stark_tree_name(), "a/tree.bin");
  EXPECT_TRUE(ReadFile(outputs_ / "a/tree.bin") == tree) << "the tree file differs";
}

TEST_F(StarkJobTest, Bn128TreesGiveTheLibrarysRootAndTree) {
  StartWithDirs({"--simulated-gpus", "1"});
  const stark::TraceShape shape{5, 7, 2, {stark::MerkleHash::kPoseidonBn128, 16}};
  const std::string columns = RandomColumns(9, shape);
  const auto [root_json, tree] = Expected(columns, shape);
  provd::v1::SubmitJobRequest request = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  request.mutable_spec()->mutable_stark_commit()->set_merkle_arity(0);  // 16, the default
  request.mutable_spec()->mutable_stark_commit()->set_tree_name("bn.tree");
  absl::StatusOr<Job> submitted = Submit(request);
  ASSERT_THAT(submitted, IsOk());
  const Job job = WaitFinal(submitted->id());
  ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
  EXPECT_EQ(job.result().stark_root_json(), root_json);
  EXPECT_THAT(root_json, ::testing::StartsWith("{\n \"constRoot\": "));
  EXPECT_THAT(root_json, ::testing::Not(HasSubstr("[")));
  ASSERT_EQ(job.result().stark_root_size(), 4);
  EXPECT_TRUE(ReadFile(outputs_ / "bn.tree") == tree) << "the tree file differs";
}

TEST_F(StarkJobTest, BadInputGetsInvalidArgumentAndTheDaemonKeepsServing) {
  StartWithDirs({});
  const stark::TraceShape shape{3, 2, 1};
  const std::string good = RandomColumns(2, shape);
  auto with_columns = [&](const std::string& columns) {
    provd::v1::SubmitJobRequest r = StarkRequest(shape, provd::v1::PRIORITY_LOW);
    r.mutable_spec()->mutable_stark_commit()->set_columns(columns);
    return r;
  };
  ExpectInvalid(with_columns(good.substr(8)), "spec.stark_commit.columns: 120 bytes is not a");
  std::string too_big = good;
  const uint64_t p = kP;
  std::memcpy(too_big.data() + 5 * 8, &p, 8);
  ExpectInvalid(with_columns(too_big), "the element at row 2, column 1 is 18446744069414584321");
  provd::v1::SubmitJobRequest r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_n_bits(4);
  ExpectInvalid(r, "but spec.stark_commit.n_bits is 4");
  for (uint32_t blowup : {0u, 9u}) {
    r = with_columns(good);
    r.mutable_spec()->mutable_stark_commit()->set_blowup_bits(blowup);
    ExpectInvalid(r, "spec.stark_commit.blowup_bits");
  }
  r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_n_cols(0);
  ExpectInvalid(r, "spec.stark_commit.n_cols");
  r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_hash(provd::v1::STARK_HASH_UNSPECIFIED);
  ExpectInvalid(r, "spec.stark_commit.hash");
  r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_merkle_arity(16);
  ExpectInvalid(r, "spec.stark_commit.merkle_arity: merkle arity 16: the Goldilocks Poseidon");
  r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_hash(provd::v1::STARK_HASH_POSEIDON_BN128);
  r.mutable_spec()->mutable_stark_commit()->set_merkle_arity(3);
  ExpectInvalid(r, "takes 2, 4, 8 or 16");
  r = with_columns(good);
  r.mutable_spec()->mutable_stark_commit()->set_tree_name("../escape.tree");
  ExpectInvalid(r, "spec.stark_commit.tree_name");
  ExpectInvalid(StarkRequest(shape, provd::v1::PRIORITY_LOW), "set columns (inline) or");

  auto named = [&](const std::string& name) {
    provd::v1::SubmitJobRequest n = StarkRequest(shape, provd::v1::PRIORITY_LOW);
    n.mutable_spec()->mutable_stark_commit()->set_columns_name(name);
    return n;
  };
  ExpectInvalid(named("absent.cm"),
                "spec.stark_commit.columns_name: input \"absent.cm\" not found");
  ExpectInvalid(named("../x.cm"), "spec.stark_commit.columns_name");
  TempDir outside;
  WriteFile(outside / "secret.cm", good);
  std::filesystem::create_symlink(outside / "secret.cm", inputs_ / "link.cm");
  ExpectInvalid(named("link.cm"), "leads outside the inputs directory");
  WriteFile(inputs_ / "short.cm", good.substr(16));
  ExpectInvalid(named("short.cm"), "112 bytes is not a power-of-two number of rows");

  // A named file's elements are read when the job runs: it fails with INVALID_ARGUMENT.
  WriteFile(inputs_ / "bad.cm", too_big);
  absl::StatusOr<Job> bad = Submit(named("bad.cm"));
  ASSERT_THAT(bad, IsOk());
  const Job failed = WaitFinal(bad->id());
  EXPECT_EQ(failed.state(), provd::v1::JOB_STATE_FAILED);
  EXPECT_EQ(failed.error().code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(failed.error().message(), HasSubstr("row 2, column 1"));

  // And the daemon serves on.
  WriteFile(inputs_ / "good.cm", good);
  absl::StatusOr<Job> ok = Submit(named("good.cm"));
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ(WaitFinal(ok->id()).result().stark_root_json(), Expected(good, shape).first);
}

TEST_F(StarkJobTest, ATreeThatCannotBeWrittenFailsTheJobAndACancelStopsOneMidRun) {
  StartWithDirs({"--simulated-gpus", "1", "--simulated-gpu-latency-ms", "20",
                 "--stark-merkle-chunk-rows", "16"});
  const stark::TraceShape shape{8, 4, 2};
  const std::string columns = RandomColumns(4, shape);
  // A file where the tree's directory should be: the job fails, saying why.
  WriteFile(outputs_ / "blocker", "x");
  provd::v1::SubmitJobRequest blocked = StarkRequest(shape, provd::v1::PRIORITY_HIGH);
  blocked.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  blocked.mutable_spec()->mutable_stark_commit()->set_tree_name("blocker/t.tree");
  absl::StatusOr<Job> job = Submit(blocked);
  ASSERT_THAT(job, IsOk());
  const Job failed = WaitFinal(job->id());
  EXPECT_EQ(failed.state(), provd::v1::JOB_STATE_FAILED);
  EXPECT_THAT(failed.error().message(), HasSubstr("the tree \"blocker/t.tree\""));

  // 1024 rows in chunks of 16 at 20 ms a call: seconds of work, cancelled at its next chunk.
  provd::v1::SubmitJobRequest slow = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  slow.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  absl::StatusOr<Job> running = Submit(slow);
  ASSERT_THAT(running, IsOk());
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  for (bool started = false; !started && absl::Now() < give_up;) {
    for (const JobEvent& e : Events(running->id(), absl::Milliseconds(50))) {
      started |= e.has_round_started();
    }
  }
  absl::StatusOr<Job> cancelled = client_->CancelJob(running->id());
  ASSERT_THAT(cancelled, IsOk());
  const Job ended = WaitFinal(running->id());
  EXPECT_EQ(ended.state(), provd::v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(ended.error().code(), static_cast<int>(absl::StatusCode::kCancelled));

  // The daemon and its GPU serve the next job.
  absl::StatusOr<Job> next = Submit(slow);
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(WaitFinal(next->id()).result().stark_root_json(), Expected(columns, shape).first);
}

TEST_F(StarkJobTest, AHighGroth16JobPreemptsALowStarkCommitBetweenChunksBothExact) {
  // One simulated GPU with a latency per call, so that the low job's many small chunks keep it
  // on the device long enough for the high job to ask.
  StartWithDirs({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-latency-ms", "15",
                 "--stark-lde-chunk-columns", "1", "--stark-merkle-chunk-rows", "64",
                 "--msm-chunk-points", "64"});
  const stark::TraceShape shape{9, 16, 2};
  const std::string columns = RandomColumns(3, shape);
  provd::v1::SubmitJobRequest low_request = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  low_request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  absl::StatusOr<Job> low = Submit(low_request);
  ASSERT_THAT(low, IsOk());
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  for (bool on_gpu = false; !on_gpu && absl::Now() < give_up;) {
    for (const JobEvent& e : Events(low->id(), absl::Milliseconds(50))) {
      on_gpu |= e.has_device_acquired();
    }
  }
  absl::StatusOr<Job> high =
      Submit(Request("poseidon.zkey", poseidon_witness_, provd::v1::PRIORITY_HIGH));
  ASSERT_THAT(high, IsOk());

  const Job high_job = WaitFinal(high->id());
  ASSERT_EQ(high_job.state(), provd::v1::JOB_STATE_SUCCEEDED) << high_job.error().message();
  EXPECT_TRUE(SnarkjsAccepts(PROVD_SNARKJS, CircuitCase("poseidon_bn128") / "vkey.json",
                             high_job.result().public_json(), high_job.result().proof_json()));
  bool high_on_gpu = false;
  for (const JobEvent& e : Events(high->id())) high_on_gpu |= e.has_device_acquired();
  EXPECT_TRUE(high_on_gpu) << "the high job never got the GPU";

  const Job low_job = WaitFinal(low->id());
  ASSERT_EQ(low_job.state(), provd::v1::JOB_STATE_SUCCEEDED) << low_job.error().message();
  EXPECT_EQ(low_job.result().stark_root_json(), Expected(columns, shape).first);
  bool yielded = false;
  for (const JobEvent& e : Events(low->id())) yielded |= e.has_device_yielded();
  EXPECT_TRUE(yielded) << "the low stark_commit job never gave the GPU up";
  // The rounds show where the chunks ran: some on the GPU, some on the CPU.
  bool cpu_span = false, gpu_span = false;
  for (const auto& round : low_job.rounds()) {
    for (const auto& span : round.spans()) {
      cpu_span |= span.backend() == provd::v1::BACKEND_CPU;
      gpu_span |= span.backend() == provd::v1::BACKEND_GPU;
    }
  }
  EXPECT_TRUE(cpu_span && gpu_span);
}

TEST_F(StarkJobTest, AGpuLostMidCommitmentIsRetiredAndTheRootStaysExact) {
  // Fault injection: the simulated GPU is lost at its third call, as after a sticky CUDA error.
  // The chunk falls back to the CPU, the GPU is retired (event, metric), and the root is exact.
  StartWithDirs({"--cpu-workers", "1", "--simulated-gpus", "1", "--simulated-gpu-lost-at-call", "3",
                 "--stark-merkle-chunk-rows", "64", "--on-gpu-retired", "continue"});
  const stark::TraceShape shape{7, 5, 2};
  const std::string columns = RandomColumns(5, shape);
  provd::v1::SubmitJobRequest request = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  absl::StatusOr<Job> submitted = Submit(request);
  ASSERT_THAT(submitted, IsOk());
  const Job job = WaitFinal(submitted->id());
  ASSERT_EQ(job.state(), provd::v1::JOB_STATE_SUCCEEDED) << job.error().message();
  EXPECT_EQ(job.result().stark_root_json(), Expected(columns, shape).first);
  int fallbacks = 0, retired = 0;
  for (const JobEvent& e : Events(submitted->id())) {
    fallbacks += e.has_gpu_fallback();
    if (e.has_device_retired()) {
      ++retired;
      EXPECT_THAT(e.device_retired().reason(), HasSubstr("injected loss"));
    }
  }
  EXPECT_EQ(fallbacks, 1);
  EXPECT_EQ(retired, 1);
  auto metrics = HttpGet(daemon_->metrics_address(), "/metrics");
  ASSERT_THAT(metrics, IsOk());
  EXPECT_THAT(*metrics, HasSubstr("provd_gpu_retired{device=\"0\"} 1"));
}

TEST_F(StarkJobTest, KilledMidCommitmentTheJobRunsAgainAfterARestartExactlyOnce) {
  // A commitment has no checkpoints (docs/stark.md): after a kill -9 the restarted daemon runs
  // it again from its stored spec and columns, and it ends once, exact.
  TempDir state;
  const std::vector<std::string> flags = {"--cpu-workers",
                                          "1",
                                          "--simulated-gpus",
                                          "1",
                                          "--simulated-gpu-latency-ms",
                                          "20",
                                          "--stark-merkle-chunk-rows",
                                          "16",
                                          "--inputs-dir",
                                          inputs_.path().string(),
                                          "--outputs-dir",
                                          outputs_.path().string()};
  StartDaemon(flags, state.path());
  ASSERT_NE(daemon_, nullptr);
  const stark::TraceShape shape{8, 4, 2};
  const std::string columns = RandomColumns(6, shape);
  provd::v1::SubmitJobRequest request = StarkRequest(shape, provd::v1::PRIORITY_LOW);
  request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  request.mutable_spec()->mutable_stark_commit()->set_tree_name("restarted.tree");
  absl::StatusOr<Job> submitted = Submit(request);
  ASSERT_THAT(submitted, IsOk());
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  for (bool hashing = false; !hashing && absl::Now() < give_up;) {
    for (const JobEvent& e : Events(submitted->id(), absl::Milliseconds(50))) {
      hashing |= e.has_round_started() && e.round_started().round_name() == "merkle_leaves";
    }
  }
  daemon_->process().Signal(SIGKILL);
  auto exit = daemon_->process().Wait(absl::Seconds(10));
  ASSERT_THAT(exit, IsOk());
  EXPECT_FALSE(exit->exited) << "the daemon ended by itself: " << exit->stderr_text;

  StartDaemon(flags, state.path());
  ASSERT_NE(daemon_, nullptr);
  const Job done = WaitFinal(submitted->id(), absl::Seconds(120));
  ASSERT_EQ(done.state(), provd::v1::JOB_STATE_SUCCEEDED) << done.error().message();
  const auto [root_json, tree] = Expected(columns, shape);
  EXPECT_EQ(done.result().stark_root_json(), root_json);
  EXPECT_TRUE(ReadFile(outputs_ / "restarted.tree") == tree) << "the tree file differs";
  int finals = 0;
  for (const JobEvent& e : Events(submitted->id())) {
    finals += e.has_succeeded() + e.has_failed() + e.has_cancelled();
  }
  EXPECT_EQ(finals, 1);
}

}  // namespace
}  // namespace provd::testing
