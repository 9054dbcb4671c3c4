// The process's one pool of compute threads, shared by MSM and NTT of every job so that
// several jobs never oversubscribe the cores. ParallelFor lets the calling thread work on its
// own loop too: a pool worker that calls ParallelFor (nested parallelism, or a twiddle cache
// filled from inside a task) always makes progress by itself, so nesting cannot deadlock.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace provd {

class ThreadPool {
 public:
  // `threads` compute threads in all: threads - 1 workers plus each calling thread.
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size() + 1; }

  // Runs body(i) for every i in [0, count) and returns when all have finished. Iterations may
  // run in any order and concurrently; the calling thread runs some of them. An exception in
  // body terminates the process (compute kernels report errors by value, not by throwing).
  void ParallelFor(size_t count, const std::function<void(size_t)>& body);

  // Splits [0, n) into about `tasks_per_thread * size()` contiguous ranges (at least
  // `min_grain` long) and runs body(begin, end) on each.
  void ParallelForRange(size_t n, size_t min_grain, const std::function<void(size_t, size_t)>& body,
                        size_t tasks_per_thread = 4);

 private:
  struct Loop;
  void WorkerMain();
  static void RunIterations(Loop& loop);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Loop>> loops_;  // loops that still have unclaimed iterations
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// The process-wide pool, created on first use with ConfigureDefaultThreadPool's count or, by
// default, std::thread::hardware_concurrency().
ThreadPool& DefaultThreadPool();

// Sets the size of the default pool; only effective before its first use (returns false
// afterwards). 0 means all cores.
bool ConfigureDefaultThreadPool(size_t threads);

}  // namespace provd
