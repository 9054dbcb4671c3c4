#include "prover_core/thread_pool.hpp"

#include <atomic>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace provd {
namespace {

TEST(ThreadPoolTest, RunsEveryIterationExactlyOnce) {
  for (size_t threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPoolTest, NestedLoopsFromWorkersDoNotDeadlock) {
  ThreadPool pool(3);
  std::atomic<size_t> total{0};
  pool.ParallelFor(16, [&](size_t) {
    pool.ParallelFor(16, [&](size_t) { pool.ParallelFor(4, [&](size_t) { total.fetch_add(1); }); });
  });
  EXPECT_EQ(total.load(), 16u * 16u * 4u);
}

TEST(ThreadPoolTest, ConcurrentCallersShareThePool) {
  ThreadPool pool(2);
  std::vector<std::thread> callers;
  std::atomic<size_t> total{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        pool.ParallelFor(50, [&](size_t) { total.fetch_add(1); });
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 4u * 20u * 50u);
}

TEST(ThreadPoolTest, RangesCoverTheInputWithoutOverlap) {
  ThreadPool pool(3);
  for (size_t n : {0u, 1u, 7u, 1000u, 12345u}) {
    std::vector<std::atomic<int>> hits(n);
    pool.ParallelForRange(n, 10, [&](size_t begin, size_t end) {
      ASSERT_LT(begin, end);
      for (size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPoolTest, DefaultPoolCanOnlyBeConfiguredBeforeUse) {
  // Either this test runs first in its process (configure succeeds) or not; after first use
  // configuration is refused either way.
  (void)ConfigureDefaultThreadPool(2);
  ThreadPool& pool = DefaultThreadPool();
  EXPECT_GE(pool.size(), 1u);
  EXPECT_FALSE(ConfigureDefaultThreadPool(3));
  EXPECT_EQ(&pool, &DefaultThreadPool());
}

}  // namespace
}  // namespace provd
