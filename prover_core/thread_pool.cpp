#include "prover_core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

namespace provd {

struct ThreadPool::Loop {
  Loop(size_t n, const std::function<void(size_t)>& b) : count(n), body(b) {}
  const size_t count;
  const std::function<void(size_t)>& body;  // outlives the loop: the caller waits for `done`
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
};

ThreadPool::ThreadPool(size_t threads) {
  const size_t workers = threads > 1 ? threads - 1 : 0;
  workers_.reserve(workers);
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerMain(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::RunIterations(Loop& loop) {
  size_t finished_here = 0;
  for (size_t i; (i = loop.next.fetch_add(1, std::memory_order_relaxed)) < loop.count;) {
    // An exception must not unwind the caller while workers still run its loop (they would use
    // its destroyed body and buffers): on any thread it ends the process, as documented.
    try {
      loop.body(i);
    } catch (...) {
      std::terminate();
    }
    ++finished_here;
  }
  if (finished_here == 0) return;
  if (loop.done.fetch_add(finished_here, std::memory_order_acq_rel) + finished_here == loop.count) {
    std::lock_guard<std::mutex> lock(loop.mutex);
    loop.finished.notify_all();
  }
}

void ThreadPool::WorkerMain() {
  while (true) {
    std::shared_ptr<Loop> loop;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !loops_.empty(); });
      if (stopping_) return;
      loop = loops_.front();
      // Every iteration claimed: nobody else needs to find this loop.
      if (loop->next.load(std::memory_order_relaxed) >= loop->count) {
        loops_.pop_front();
        continue;
      }
    }
    RunIterations(*loop);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!loops_.empty() && loops_.front() == loop) loops_.pop_front();
  }
}

void ThreadPool::ParallelFor(size_t count, const std::function<void(size_t)>& body) {
  if (count == 0) return;
  if (count == 1 || workers_.empty()) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  auto loop = std::make_shared<Loop>(count, body);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    loops_.push_back(loop);
  }
  wake_.notify_all();
  RunIterations(*loop);
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->finished.wait(lock, [&] { return loop->done.load(std::memory_order_acquire) == count; });
  // Leave no stale entry behind for workers to trip over.
  std::lock_guard<std::mutex> pool_lock(mutex_);
  auto it = std::find(loops_.begin(), loops_.end(), loop);
  if (it != loops_.end()) loops_.erase(it);
}

void ThreadPool::ParallelForRange(size_t n, size_t min_grain,
                                  const std::function<void(size_t, size_t)>& body,
                                  size_t tasks_per_thread) {
  if (n == 0) return;
  const size_t grain =
      std::max<size_t>(std::max<size_t>(min_grain, 1),
                       (n + size() * tasks_per_thread - 1) / (size() * tasks_per_thread));
  const size_t tasks = (n + grain - 1) / grain;
  ParallelFor(tasks, [&](size_t t) { body(t * grain, std::min(n, (t + 1) * grain)); });
}

namespace {

std::mutex default_pool_mutex;
size_t default_pool_threads = 0;
std::atomic<ThreadPool*> default_pool{nullptr};

}  // namespace

ThreadPool& DefaultThreadPool() {
  if (ThreadPool* pool = default_pool.load(std::memory_order_acquire)) return *pool;
  std::lock_guard<std::mutex> lock(default_pool_mutex);
  if (ThreadPool* pool = default_pool.load(std::memory_order_relaxed)) return *pool;
  size_t threads = default_pool_threads != 0 ? default_pool_threads
                                             : std::max(1u, std::thread::hardware_concurrency());
  // Intentionally never destroyed: worker threads must outlive every static that uses them.
  auto* pool = new ThreadPool(threads);
  default_pool.store(pool, std::memory_order_release);
  return *pool;
}

bool ConfigureDefaultThreadPool(size_t threads) {
  std::lock_guard<std::mutex> lock(default_pool_mutex);
  if (default_pool.load(std::memory_order_relaxed) != nullptr) return false;
  default_pool_threads = threads;
  return true;
}

}  // namespace provd
