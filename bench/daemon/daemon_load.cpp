// daemon_load: the client side of the daemon benchmark (bench/daemon/run.sh starts the daemon).
// It measures what provd adds around a proof -- the gRPC API, the fsync'd SQLite commit and the
// spooled witness of every accepted job, the scheduler, the event stream -- with circuits so
// small that the proof itself is a minor part, and what a low-priority backlog costs a
// high-priority job. Modes:
//   latency     one job at a time: SubmitJob latency, submit -> SUCCEEDED seen by WatchJob, and
//               that minus the proving time the daemon recorded (what the service adds).
//   throughput  --threads clients submit --jobs jobs as fast as they can while as many watchers
//               follow them: submit calls/s, jobs/s completed, SubmitJob and end-to-end p50/p99.
//   priority    high-priority jobs one at a time, first on an idle daemon, then with --backlog
//               low-priority jobs queued: end-to-end p50/p99 of each and the ratio.
// Every mode prints a markdown table for people, then one JSON line (the only line starting with
// '{') for scripts. Any job that does not succeed fails the run: a benchmark of failing jobs
// would measure the error path.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/job_follow.hpp"
#include "client/local_files.hpp"
#include "client/prover_client.hpp"
#include "nlohmann/json.hpp"
#include "provd/v1/prover.pb.h"

namespace provd::bench {
namespace {

using provd::client::ProverClient;
using provd::v1::Job;
using provd::v1::JobState;
using provd::v1::Priority;
using provd::v1::SubmitJobRequest;

// Flags of every mode.
struct Options {
  std::string addr = "127.0.0.1:50051";
  std::string zkey;
  std::string witness_path;
  double timeout_seconds = 600;  // for a whole mode: a stuck daemon fails the run, not hangs it
  int latency_jobs = 100;
  int jobs = 400;        // throughput
  int threads = 8;       // throughput
  int repetitions = 50;  // priority
  int backlog = 20;      // priority
};

// Wall-clock times (absl::Now) throughout, not a steady clock: end-to-end times are compared
// with the daemon's own event and job timestamps, which are wall-clock; both run on one host.
double Ms(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

absl::Time ToTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

absl::Duration ToDuration(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

struct Summary {
  size_t n = 0;
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};

// Nearest-rank percentiles: with fewer than 100 samples p99 is the maximum, said so in the
// tables rather than interpolated into a number that was never measured.
Summary Summarize(std::vector<double> values) {
  Summary s;
  s.n = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    const size_t r = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(s.n)));
    return values[std::clamp<size_t>(r, 1, s.n) - 1];
  };
  s.p50 = rank(50);
  s.p99 = rank(99);
  s.max = values.back();
  return s;
}

// Microseconds are the resolution that means anything here; more digits only make the JSON long.
double Round3(double value) { return std::round(value * 1000.0) / 1000.0; }

nlohmann::ordered_json ToJson(const Summary& s) {
  return {{"n", s.n}, {"p50", Round3(s.p50)}, {"p99", Round3(s.p99)}, {"max", Round3(s.max)}};
}

std::string Row(absl::string_view what, const Summary& s) {
  return absl::StrFormat("| %s | %d | %.1f | %.1f | %.1f |\n", what, s.n, s.p50, s.p99, s.max);
}

constexpr char kTableHead[] =
    "| measure (ms) | samples | p50 | p99 | max |\n| --- | ---: | ---: | ---: | ---: |\n";

ProverClient MakeClient(const Options& options) {
  provd::client::ClientOptions client_options;
  // A loaded daemon on two cores can take seconds to answer; the mode's deadline still bounds
  // the whole run.
  client_options.timeout = std::chrono::seconds(60);
  return ProverClient(options.addr, client_options);
}

SubmitJobRequest MakeRequest(const Options& options, const std::string& witness,
                             Priority priority) {
  SubmitJobRequest request;
  request.set_priority(priority);
  provd::v1::Groth16Spec* spec = request.mutable_spec()->mutable_groth16();
  spec->set_zkey_name(options.zkey);
  spec->set_witness(witness);
  return request;
}

// What a watch saw of a job's end.
struct Ending {
  JobState state = provd::v1::JOB_STATE_UNSPECIFIED;
  std::string error;      // the failure or cancellation, for the message that fails the run
  absl::Time seen_at;     // when the final event reached this client
  absl::Time event_time;  // the daemon's timestamp of the final event
  std::optional<absl::Duration> device_wait;  // the first DeviceAcquired's wait, if any
  int cut_short = 0;  // streams that ended OK without the final event (see WatchToEnd)
};

// Follows `job_id` from its first event to its final one. No reconnection after errors
// (FollowJob does that): a daemon that drops a stream during a benchmark is a failure to report.
// A stream that ends cleanly before the final event is watched again from the next event: the
// daemon ends a stream when it finds no new event and then a final state, and a job that
// finishes between those two reads ends the stream without its final event. Counted, so that
// the runs show how often.
absl::StatusOr<Ending> WatchToEnd(ProverClient& client, const std::string& job_id,
                                  absl::Time deadline) {
  constexpr int kMaxTries = 5;
  Ending ending;
  provd::v1::WatchJobRequest request;
  request.set_job_id(job_id);
  uint64_t last_sequence = 0;
  for (int attempt = 1;; ++attempt) {
    request.set_from_sequence(last_sequence + 1);
    absl::Status status =
        client.WatchJob(request, absl::ToChronoTime(deadline), [&](const provd::v1::JobEvent& e) {
          last_sequence = e.sequence();
          if (e.has_device_acquired() && !ending.device_wait) {
            ending.device_wait = ToDuration(e.device_acquired().wait());
          }
          if (std::optional<JobState> state = provd::client::FinalStateOf(e)) {
            ending.state = *state;
            ending.seen_at = absl::Now();
            ending.event_time = ToTime(e.time());
            if (e.has_failed()) ending.error = e.failed().error().message();
            if (e.has_cancelled()) {
              ending.error = absl::StrCat("cancelled: ", e.cancelled().reason());
            }
          }
        });
    if (!status.ok()) return status;
    if (ending.state != provd::v1::JOB_STATE_UNSPECIFIED) return ending;
    ++ending.cut_short;
    if (attempt == kMaxTries) {
      return absl::InternalError(absl::StrCat("job ", job_id, ": ", kMaxTries,
                                              " watch streams ended before a final event"));
    }
  }
}

absl::Status RequireSucceeded(const std::string& job_id, JobState state, absl::string_view why) {
  if (state == provd::v1::JOB_STATE_SUCCEEDED) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("job ", job_id, " ended ", provd::v1::JobState_Name(state), ": ", why));
}

// True when every chunk of the job ran on a GPU: a high-priority job that gave up waiting for
// the device (--high-priority-gpu-wait) ran on the CPU, and its latency means something else.
bool AllOnGpu(const Job& job) {
  for (const provd::v1::RoundExecution& round : job.rounds()) {
    for (const provd::v1::ChunkSpan& span : round.spans()) {
      if (span.backend() != provd::v1::BACKEND_GPU) return false;
    }
  }
  return job.rounds_size() > 0;
}

// One job, submitted and followed to its end with nothing else of ours in flight.
struct Sample {
  std::string id;
  double submit_ms = 0;  // the SubmitJob call
  double e2e_ms = 0;     // SubmitJob sent -> final event received
  double queued_ms = 0;  // daemon: accepted -> started
  double run_ms = 0;     // daemon: started -> finished (the proof, its rounds' events)
  std::optional<double> device_wait_ms;
  bool all_on_gpu = false;
  int cut_short = 0;  // watch streams that ended before the final event
};

absl::StatusOr<Sample> RunOne(ProverClient& client, const SubmitJobRequest& request,
                              absl::Time deadline) {
  Sample sample;
  const absl::Time start = absl::Now();
  absl::StatusOr<provd::v1::SubmitJobResponse> submitted = client.SubmitJob(request);
  if (!submitted.ok()) return submitted.status();
  sample.submit_ms = Ms(absl::Now() - start);
  sample.id = submitted->job().id();
  absl::StatusOr<Ending> ending = WatchToEnd(client, sample.id, deadline);
  if (!ending.ok()) return ending.status();
  sample.e2e_ms = Ms(ending->seen_at - start);
  sample.cut_short = ending->cut_short;
  if (absl::Status s = RequireSucceeded(sample.id, ending->state, ending->error); !s.ok()) return s;
  if (ending->device_wait) sample.device_wait_ms = Ms(*ending->device_wait);
  absl::StatusOr<Job> job = client.GetJob(sample.id);
  if (!job.ok()) return job.status();
  if (job->result().proof_json().empty()) {
    return absl::InternalError(absl::StrCat("job ", sample.id, " succeeded without a proof"));
  }
  sample.queued_ms = Ms(ToTime(job->started_at()) - ToTime(job->created_at()));
  sample.run_ms = Ms(ToTime(job->finished_at()) - ToTime(job->started_at()));
  sample.all_on_gpu = AllOnGpu(*job);
  return sample;
}

// A first job, not counted: it loads the proving key into the daemon's cache and opens the
// channel, costs that every later job would otherwise be compared against.
absl::Status WarmUp(ProverClient& client, const SubmitJobRequest& request, absl::Time deadline) {
  return RunOne(client, request, deadline).status();
}

// ---------------------------------------------------------------------------------------------
// latency

absl::Status RunLatency(const Options& options, const std::string& witness) {
  const absl::Time deadline = absl::Now() + absl::Seconds(options.timeout_seconds);
  ProverClient client = MakeClient(options);
  const SubmitJobRequest request = MakeRequest(options, witness, provd::v1::PRIORITY_HIGH);
  if (absl::Status s = WarmUp(client, request, deadline); !s.ok()) return s;
  std::vector<double> submit, e2e, queued, run, overhead;
  int cut_short = 0;
  for (int i = 0; i < options.latency_jobs; ++i) {
    absl::StatusOr<Sample> sample = RunOne(client, request, deadline);
    if (!sample.ok()) return sample.status();
    submit.push_back(sample->submit_ms);
    e2e.push_back(sample->e2e_ms);
    queued.push_back(sample->queued_ms);
    run.push_back(sample->run_ms);
    overhead.push_back(sample->e2e_ms - sample->run_ms);
    cut_short += sample->cut_short;
  }
  const Summary s_submit = Summarize(submit), s_e2e = Summarize(e2e), s_queued = Summarize(queued),
                s_run = Summarize(run), s_overhead = Summarize(overhead);
  std::cout << absl::StrFormat(
                   "latency: %s, %d jobs one at a time (high priority); watch streams ended "
                   "before the final event: %d\n\n",
                   options.zkey, options.latency_jobs, cut_short)
            << kTableHead << Row("SubmitJob call", s_submit)
            << Row("end to end: submit -> SUCCEEDED seen by WatchJob", s_e2e)
            << Row("daemon: accepted -> started", s_queued)
            << Row("daemon: started -> finished (proof + its events)", s_run)
            << Row("end to end minus started -> finished", s_overhead) << "\n";
  nlohmann::ordered_json line = {{"mode", "latency"},
                                 {"zkey", options.zkey},
                                 {"jobs", options.latency_jobs},
                                 {"submit_ms", ToJson(s_submit)},
                                 {"e2e_ms", ToJson(s_e2e)},
                                 {"queued_ms", ToJson(s_queued)},
                                 {"run_ms", ToJson(s_run)},
                                 {"overhead_ms", ToJson(s_overhead)},
                                 {"watch_streams_cut_short", cut_short}};
  std::cout << line.dump() << std::endl;
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// throughput

struct Record {
  std::string id;
  absl::Time submit_start;
  absl::Time submit_end;
  absl::Time done;        // the final event seen live, or its timestamp when it was replayed
  bool replayed = false;  // the job had finished before its watch began
  int cut_short = 0;      // watch streams that ended before the final event
  JobState state = provd::v1::JOB_STATE_UNSPECIFIED;
  std::string error;
};

// The first error of any thread; the others stop at their next step.
class FirstError {
 public:
  void Set(absl::Status status) {
    std::lock_guard lock(mutex_);
    if (status_.ok()) status_ = std::move(status);
    failed_.store(true);
  }
  bool failed() const { return failed_.load(); }
  absl::Status status() const {
    std::lock_guard lock(mutex_);
    return status_;
  }

 private:
  mutable std::mutex mutex_;
  absl::Status status_;
  std::atomic<bool> failed_{false};
};

// Indexes of submitted jobs, in submission order, for the watchers.
class WatchQueue {
 public:
  void Push(size_t index) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(index);
    }
    ready_.notify_one();
  }
  // No more pushes; Pop returns nullopt once the queue is empty.
  void Close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  std::optional<size_t> Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return std::nullopt;
    const size_t index = queue_.front();
    queue_.pop_front();
    return index;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<size_t> queue_;
  bool closed_ = false;
};

absl::Status RunThroughput(const Options& options, const std::string& witness) {
  const absl::Time deadline = absl::Now() + absl::Seconds(options.timeout_seconds);
  const SubmitJobRequest request = MakeRequest(options, witness, provd::v1::PRIORITY_LOW);
  {
    ProverClient client = MakeClient(options);
    if (absl::Status s = WarmUp(client, request, deadline); !s.ok()) return s;
  }
  const size_t total = static_cast<size_t>(options.jobs);
  std::vector<Record> records(total);
  std::atomic<size_t> next{0};
  FirstError error;
  WatchQueue to_watch;

  // Watchers run while the jobs are submitted, as many as submitters, each following the oldest
  // job not yet followed: jobs of one priority finish in about acceptance order, so a watcher
  // is usually following its job live when it ends, and the end time is what a client sees.
  std::vector<std::thread> watchers;
  for (int t = 0; t < options.threads; ++t) {
    watchers.emplace_back([&] {
      ProverClient client = MakeClient(options);
      while (std::optional<size_t> index = to_watch.Pop()) {
        if (error.failed()) continue;  // drain the queue without calls
        Record& record = records[*index];
        const absl::Time watch_start = absl::Now();
        absl::StatusOr<Ending> ending = WatchToEnd(client, record.id, deadline);
        if (!ending.ok()) {
          error.Set(absl::Status(ending.status().code(), absl::StrCat("watching ", record.id, ": ",
                                                                      ending.status().message())));
          continue;
        }
        record.state = ending->state;
        record.error = ending->error;
        record.cut_short = ending->cut_short;
        record.replayed = ending->event_time < watch_start;
        record.done = record.replayed ? ending->event_time : ending->seen_at;
      }
    });
  }
  std::vector<std::thread> submitters;
  for (int t = 0; t < options.threads; ++t) {
    submitters.emplace_back([&] {
      ProverClient client = MakeClient(options);
      for (size_t i = next++; i < total && !error.failed(); i = next++) {
        Record& record = records[i];
        record.submit_start = absl::Now();
        absl::StatusOr<provd::v1::SubmitJobResponse> submitted = client.SubmitJob(request);
        record.submit_end = absl::Now();
        if (!submitted.ok()) {
          error.Set(absl::Status(submitted.status().code(),
                                 absl::StrCat("SubmitJob: ", submitted.status().message())));
          return;
        }
        record.id = submitted->job().id();
        to_watch.Push(i);
      }
    });
  }
  for (std::thread& t : submitters) t.join();
  to_watch.Close();
  for (std::thread& t : watchers) t.join();
  if (error.failed()) return error.status();

  int failed = 0;
  for (const Record& record : records) {
    if (record.state == provd::v1::JOB_STATE_SUCCEEDED) continue;
    if (++failed <= 5) {
      std::cerr << "daemon_load: job " << record.id << " ended "
                << provd::v1::JobState_Name(record.state) << ": " << record.error << "\n";
    }
  }
  if (failed > 0) {
    return absl::InternalError(absl::StrCat(failed, " of ", total, " jobs did not succeed"));
  }

  // The daemon's own timestamps split the end-to-end time into the wait in the queue and the
  // run, which tells whether a slow end-to-end time is the service or the backlog it built.
  ProverClient client = MakeClient(options);
  std::vector<double> submit, e2e, queued, run;
  absl::Time first_submit = absl::InfiniteFuture(), last_submit = absl::InfinitePast(),
             last_done = absl::InfinitePast();
  int replayed = 0, cut_short = 0;
  for (const Record& record : records) {
    absl::StatusOr<Job> job = client.GetJob(record.id);
    if (!job.ok()) return job.status();
    if (job->result().proof_json().empty()) {
      return absl::InternalError(absl::StrCat("job ", record.id, " succeeded without a proof"));
    }
    submit.push_back(Ms(record.submit_end - record.submit_start));
    e2e.push_back(Ms(record.done - record.submit_start));
    queued.push_back(Ms(ToTime(job->started_at()) - ToTime(job->created_at())));
    run.push_back(Ms(ToTime(job->finished_at()) - ToTime(job->started_at())));
    first_submit = std::min(first_submit, record.submit_start);
    last_submit = std::max(last_submit, record.submit_end);
    last_done = std::max(last_done, record.done);
    if (record.replayed) ++replayed;
    cut_short += record.cut_short;
  }
  const double submit_rate =
      static_cast<double>(total) / absl::ToDoubleSeconds(last_submit - first_submit);
  const double done_rate =
      static_cast<double>(total) / absl::ToDoubleSeconds(last_done - first_submit);
  const Summary s_submit = Summarize(submit), s_e2e = Summarize(e2e), s_queued = Summarize(queued),
                s_run = Summarize(run);
  std::cout << absl::StrFormat(
                   "throughput: %s, %d jobs from %d client threads (low priority); "
                   "%d of %d end times replayed from the event's timestamp; watch streams "
                   "ended before the final event: %d\n\n",
                   options.zkey, options.jobs, options.threads, replayed, total, cut_short)
            << absl::StrFormat(
                   "| rate | per second |\n| --- | ---: |\n"
                   "| SubmitJob calls accepted (first sent -> last answered) | %.1f |\n"
                   "| jobs completed (first sent -> last SUCCEEDED seen) | %.1f |\n\n",
                   submit_rate, done_rate)
            << kTableHead << Row("SubmitJob call", s_submit)
            << Row("end to end: submit -> SUCCEEDED seen by WatchJob", s_e2e)
            << Row("daemon: accepted -> started", s_queued)
            << Row("daemon: started -> finished", s_run) << "\n";
  nlohmann::ordered_json line = {{"mode", "throughput"},
                                 {"zkey", options.zkey},
                                 {"jobs", options.jobs},
                                 {"threads", options.threads},
                                 {"submit_per_s", Round3(submit_rate)},
                                 {"completed_per_s", Round3(done_rate)},
                                 {"submit_ms", ToJson(s_submit)},
                                 {"e2e_ms", ToJson(s_e2e)},
                                 {"queued_ms", ToJson(s_queued)},
                                 {"run_ms", ToJson(s_run)},
                                 {"replayed_end_times", replayed},
                                 {"watch_streams_cut_short", cut_short}};
  std::cout << line.dump() << std::endl;
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// priority

absl::StatusOr<int> CountJobs(ProverClient& client, std::vector<JobState> states,
                              Priority priority) {
  provd::v1::ListJobsRequest request;
  for (JobState state : states) request.add_states(state);
  request.set_priority(priority);
  request.set_page_size(1000);
  int count = 0;
  for (;;) {
    absl::StatusOr<provd::v1::ListJobsResponse> page = client.ListJobs(request);
    if (!page.ok()) return page.status();
    count += page->jobs_size();
    if (page->next_page_token().empty()) return count;
    request.set_page_token(page->next_page_token());
  }
}

// Submits low-priority jobs until `backlog` of them are queued (not counting running ones).
absl::StatusOr<int> TopUpBacklog(ProverClient& client, const SubmitJobRequest& low, int backlog) {
  absl::StatusOr<int> queued =
      CountJobs(client, {provd::v1::JOB_STATE_QUEUED}, provd::v1::PRIORITY_LOW);
  if (!queued.ok()) return queued.status();
  int submitted = 0;
  for (int i = *queued; i < backlog; ++i, ++submitted) {
    absl::StatusOr<provd::v1::SubmitJobResponse> response = client.SubmitJob(low);
    if (!response.ok()) return response.status();
  }
  return submitted;
}

// Cancels every unfinished low-priority job, so that the daemon is left idle.
absl::Status DrainLowJobs(ProverClient& client) {
  provd::v1::ListJobsRequest request;
  request.add_states(provd::v1::JOB_STATE_QUEUED);
  request.add_states(provd::v1::JOB_STATE_RUNNING);
  request.set_priority(provd::v1::PRIORITY_LOW);
  request.set_page_size(1000);
  absl::StatusOr<provd::v1::ListJobsResponse> page = client.ListJobs(request);
  if (!page.ok()) return page.status();
  for (const Job& job : page->jobs()) {
    if (absl::StatusOr<Job> cancelled = client.CancelJob(job.id()); !cancelled.ok()) {
      return cancelled.status();
    }
  }
  return absl::OkStatus();
}

absl::Status RunPriority(const Options& options, const std::string& witness) {
  const absl::Time deadline = absl::Now() + absl::Seconds(options.timeout_seconds);
  ProverClient client = MakeClient(options);
  // The idle figures are only idle if nothing else is queued or running.
  absl::StatusOr<int> busy =
      CountJobs(client, {provd::v1::JOB_STATE_QUEUED, provd::v1::JOB_STATE_RUNNING},
                provd::v1::PRIORITY_UNSPECIFIED);
  if (!busy.ok()) return busy.status();
  if (*busy > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the daemon has ", *busy, " unfinished job(s); priority mode needs it idle"));
  }
  const SubmitJobRequest high = MakeRequest(options, witness, provd::v1::PRIORITY_HIGH);
  const SubmitJobRequest low = MakeRequest(options, witness, provd::v1::PRIORITY_LOW);
  if (absl::Status s = WarmUp(client, high, deadline); !s.ok()) return s;

  std::vector<Sample> idle, loaded;
  for (int i = 0; i < options.repetitions; ++i) {
    absl::StatusOr<Sample> sample = RunOne(client, high, deadline);
    if (!sample.ok()) return sample.status();
    idle.push_back(*sample);
  }
  std::vector<double> idle_e2e;
  for (const Sample& s : idle) idle_e2e.push_back(s.e2e_ms);
  const Summary s_idle = Summarize(idle_e2e);

  // Each high job arrives at a random moment of the low proofs in flight (up to one idle proof
  // after the previous high job ended), not always right after a low job started.
  absl::BitGen random;
  int low_submitted = 0;
  for (int i = 0; i < options.repetitions; ++i) {
    absl::SleepFor(absl::Milliseconds(absl::Uniform(random, 0.0, s_idle.p50)));
    absl::StatusOr<int> added = TopUpBacklog(client, low, options.backlog);
    if (!added.ok()) return added.status();
    low_submitted += *added;
    absl::StatusOr<Sample> sample = RunOne(client, high, deadline);
    if (!sample.ok()) return sample.status();
    loaded.push_back(*sample);
  }
  absl::StatusOr<int> low_done =
      CountJobs(client, {provd::v1::JOB_STATE_SUCCEEDED}, provd::v1::PRIORITY_LOW);
  if (!low_done.ok()) return low_done.status();
  if (absl::Status s = DrainLowJobs(client); !s.ok()) return s;
  absl::StatusOr<int> low_failed =
      CountJobs(client, {provd::v1::JOB_STATE_FAILED}, provd::v1::PRIORITY_UNSPECIFIED);
  if (!low_failed.ok()) return low_failed.status();
  if (*low_failed > 0) {
    return absl::InternalError(absl::StrCat(*low_failed, " job(s) FAILED during the run"));
  }

  std::vector<double> loaded_e2e, loaded_wait, idle_wait, loaded_run, idle_run;
  int idle_gpu = 0, loaded_gpu = 0, cut_short = 0;
  for (const Sample& s : idle) {
    cut_short += s.cut_short;
    idle_run.push_back(s.run_ms);
    if (s.device_wait_ms) idle_wait.push_back(*s.device_wait_ms);
    idle_gpu += s.all_on_gpu ? 1 : 0;
  }
  for (const Sample& s : loaded) {
    cut_short += s.cut_short;
    loaded_e2e.push_back(s.e2e_ms);
    loaded_run.push_back(s.run_ms);
    if (s.device_wait_ms) loaded_wait.push_back(*s.device_wait_ms);
    loaded_gpu += s.all_on_gpu ? 1 : 0;
  }
  const Summary s_loaded = Summarize(loaded_e2e), s_idle_wait = Summarize(idle_wait),
                s_loaded_wait = Summarize(loaded_wait), s_idle_run = Summarize(idle_run),
                s_loaded_run = Summarize(loaded_run);
  const double ratio_p50 = s_loaded.p50 / s_idle.p50;
  const double ratio_p99 = s_loaded.p99 / s_idle.p99;
  const std::string under = absl::StrCat(options.backlog, " low queued");
  std::cout << absl::StrFormat(
                   "priority: %s, %d high jobs one at a time, idle then with %d low-priority "
                   "jobs queued (%d low submitted, %d of them finished meanwhile); high jobs "
                   "entirely on the GPU: %d/%d idle, %d/%d busy; watch streams ended before "
                   "the final event: %d\n\n",
                   options.zkey, options.repetitions, options.backlog, low_submitted, *low_done,
                   idle_gpu, options.repetitions, loaded_gpu, options.repetitions, cut_short)
            << kTableHead << Row("high end to end, idle daemon", s_idle)
            << Row(absl::StrCat("high end to end, ", under), s_loaded)
            << Row("high: started -> finished, idle", s_idle_run)
            << Row(absl::StrCat("high: started -> finished, ", under), s_loaded_run)
            << Row("high: wait for the GPU, idle", s_idle_wait)
            << Row(absl::StrCat("high: wait for the GPU, ", under), s_loaded_wait)
            << absl::StrFormat("| end to end, busy / idle | | %.2fx | %.2fx | |\n\n", ratio_p50,
                               ratio_p99);
  nlohmann::ordered_json line = {{"mode", "priority"},
                                 {"zkey", options.zkey},
                                 {"repetitions", options.repetitions},
                                 {"backlog", options.backlog},
                                 {"low_submitted", low_submitted},
                                 {"low_finished", *low_done},
                                 {"idle_e2e_ms", ToJson(s_idle)},
                                 {"busy_e2e_ms", ToJson(s_loaded)},
                                 {"idle_run_ms", ToJson(s_idle_run)},
                                 {"busy_run_ms", ToJson(s_loaded_run)},
                                 {"idle_gpu_wait_ms", ToJson(s_idle_wait)},
                                 {"busy_gpu_wait_ms", ToJson(s_loaded_wait)},
                                 {"high_all_on_gpu_idle", idle_gpu},
                                 {"high_all_on_gpu_busy", loaded_gpu},
                                 {"ratio_p50", Round3(ratio_p50)},
                                 {"ratio_p99", Round3(ratio_p99)},
                                 {"watch_streams_cut_short", cut_short}};
  std::cout << line.dump() << std::endl;
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  CLI::App app("daemon_load: load driver for provd's job service (see bench/daemon/run.sh)",
               "daemon_load");
  // Common flags may come before or after the mode.
  app.fallthrough();
  app.require_subcommand(1);
  Options options;
  app.add_option("--addr", options.addr, "provd gRPC address: HOST:PORT or unix:PATH")
      ->capture_default_str();
  app.add_option("--zkey", options.zkey, "proving key name in the daemon's key directory")
      ->required();
  app.add_option("--witness", options.witness_path, "witness (.wtns) of that key's circuit")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--timeout", options.timeout_seconds, "seconds a mode may take in all")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI::App* latency = app.add_subcommand("latency", "one job at a time: the service's overhead");
  latency->add_option("--jobs", options.latency_jobs, "jobs, one after the other")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  CLI::App* throughput =
      app.add_subcommand("throughput", "many clients submitting at once: rates and latencies");
  throughput->add_option("--threads", options.threads, "client threads that submit (and watch)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  throughput->add_option("--jobs", options.jobs, "jobs in all")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  CLI::App* priority = app.add_subcommand(
      "priority", "high-priority latency, idle and under a low-priority backlog");
  priority->add_option("--repetitions", options.repetitions, "high jobs per phase")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  priority->add_option("--backlog", options.backlog, "low-priority jobs kept queued")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<std::string> witness = provd::client::ReadWholeFile(options.witness_path);
  if (!witness.ok()) {
    std::cerr << "daemon_load: --witness: " << witness.status().message() << "\n";
    return 2;
  }
  absl::Status status;
  std::string mode;
  if (latency->parsed()) {
    mode = "latency";
    status = RunLatency(options, *witness);
  } else if (throughput->parsed()) {
    mode = "throughput";
    status = RunThroughput(options, *witness);
  } else {
    mode = "priority";
    status = RunPriority(options, *witness);
  }
  if (!status.ok()) {
    std::cerr << "daemon_load " << mode << ": " << status << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace provd::bench

int main(int argc, char** argv) { return provd::bench::Main(argc, argv); }
