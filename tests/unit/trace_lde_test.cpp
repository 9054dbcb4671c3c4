// ExtendColumns (prover_core/stark/trace_lde.hpp) against ntt::CosetLde column by column, for
// every kernel this machine has, column ranges that do and do not fill 8-column blocks, the
// trace aliasing the extension, and one or two threads.
#include "prover_core/stark/trace_lde.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/ntt/ntt.hpp"
#include "prover_core/stark/trace_lde_internal.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::stark {
namespace {

using provd::testing::IsOk;
using provd::testing::StatusIs;
using provd::testing::TestRng;

std::vector<Goldilocks> RandomTrace(TestRng& rng, size_t count) {
  std::vector<Goldilocks> v(count);
  for (Goldilocks& x : v) x = rng.NextField<Goldilocks>();
  return v;
}

// The extension the old per-column code produced: ntt::CosetLde on each column of
// [first, first + count); other columns keep `background`'s values.
std::vector<Goldilocks> Reference(const std::vector<Goldilocks>& trace, const TraceShape& shape,
                                  size_t first, size_t count,
                                  const std::vector<Goldilocks>& background, ThreadPool& pool) {
  std::vector<Goldilocks> out = background;
  std::vector<Goldilocks> column(shape.rows());
  std::vector<Goldilocks> big(shape.extended_rows());
  for (size_t c = first; c < first + count; ++c) {
    for (size_t i = 0; i < shape.rows(); ++i) column[i] = trace[i * shape.n_cols + c];
    EXPECT_THAT(ntt::CosetLde<Goldilocks>(column, big, Goldilocks::FromUint64(kCosetShift), pool),
                IsOk());
    for (size_t i = 0; i < shape.extended_rows(); ++i) out[i * shape.n_cols + c] = big[i];
  }
  return out;
}

struct Range {
  size_t first;
  size_t count;
};

std::vector<Range> RangesOf(size_t cols) {
  std::vector<Range> ranges{{0, cols}, {cols / 2, 1}};
  if (cols > 2) ranges.push_back({1, cols - 2});
  return ranges;
}

bool SameBytes(const std::vector<Goldilocks>& a, const std::vector<Goldilocks>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

std::vector<const lde_internal::Kernels*> AllKernels() {
  std::vector<const lde_internal::Kernels*> k{&lde_internal::PortableKernels()};
  if (const lde_internal::Kernels* avx512 = lde_internal::Avx512Kernels()) k.push_back(avx512);
  return k;
}

TEST(TraceLdeTest, EqualsCosetLdePerColumnForEveryShapeRangeAndKernel) {
  ThreadPool one(1);
  ThreadPool two(2);
  TestRng rng(20240611);
  for (size_t n_bits : {1, 2, 3, 5, 8, 11}) {
    for (size_t cols : {1, 3, 7, 8, 9, 16, 17, 33}) {
      for (size_t blowup : {1, 2, 3, 4}) {
        const TraceShape shape{n_bits, cols, blowup};
        const std::vector<Goldilocks> trace = RandomTrace(rng, shape.elements());
        const std::vector<Goldilocks> background = RandomTrace(rng, shape.extended_elements());
        for (const Range& r : RangesOf(cols)) {
          const std::vector<Goldilocks> expected =
              Reference(trace, shape, r.first, r.count, background, one);
          for (const lde_internal::Kernels* kernels : AllKernels()) {
            for (ThreadPool* pool : {&one, &two}) {
              SCOPED_TRACE(::testing::Message()
                           << "2^" << n_bits << " x " << cols << " blowup 2^" << blowup
                           << " columns [" << r.first << ", " << r.first + r.count << ") "
                           << kernels->name << " threads " << pool->size());
              std::vector<Goldilocks> separate = background;
              ASSERT_THAT(lde_internal::ExtendColumnsWith(*kernels, trace, shape, r.first, r.count,
                                                          separate, *pool),
                          IsOk());
              EXPECT_TRUE(SameBytes(separate, expected)) << "trace apart from the extension";

              // As TraceCommitment calls it: the trace read into the extension's first rows.
              // Columns outside the range then keep the trace there, not `background`.
              std::vector<Goldilocks> in_place = background;
              std::copy(trace.begin(), trace.end(), in_place.begin());
              std::vector<Goldilocks> expected_in_place = expected;
              for (size_t i = 0; i < shape.elements(); ++i) {
                const size_t c = i % cols;
                if (c < r.first || c >= r.first + r.count) expected_in_place[i] = trace[i];
              }
              const std::span<const Goldilocks> aliased =
                  std::span<const Goldilocks>(in_place).first(shape.elements());
              ASSERT_THAT(lde_internal::ExtendColumnsWith(*kernels, aliased, shape, r.first,
                                                          r.count, in_place, *pool),
                          IsOk());
              EXPECT_TRUE(SameBytes(in_place, expected_in_place)) << "trace aliasing it";
            }
          }
        }
      }
    }
  }
}

// The public entry point (whichever kernels the CPU selects) on a shape with global stages:
// 2^13 rows are more than one cache block of the kernels.
TEST(TraceLdeTest, LargeTraceInPlaceMatchesCosetLde) {
  ThreadPool two(2);
  TestRng rng(7);
  const TraceShape shape{13, 11, 2};
  const std::vector<Goldilocks> trace = RandomTrace(rng, shape.elements());
  std::vector<Goldilocks> extended(shape.extended_elements());
  std::copy(trace.begin(), trace.end(), extended.begin());
  const std::vector<Goldilocks> expected = Reference(trace, shape, 0, shape.n_cols, extended, two);
  ASSERT_THAT(ExtendColumns(std::span<const Goldilocks>(extended).first(shape.elements()), shape, 0,
                            shape.n_cols, extended, two),
              IsOk());
  EXPECT_TRUE(SameBytes(extended, expected));
}

TEST(TraceLdeTest, EmptyColumnRangeWritesNothing) {
  ThreadPool one(1);
  TestRng rng(8);
  const TraceShape shape{3, 4, 1};
  const std::vector<Goldilocks> trace = RandomTrace(rng, shape.elements());
  const std::vector<Goldilocks> background = RandomTrace(rng, shape.extended_elements());
  std::vector<Goldilocks> extended = background;
  ASSERT_THAT(ExtendColumns(trace, shape, 4, 0, extended, one), IsOk());
  EXPECT_TRUE(SameBytes(extended, background));
}

TEST(TraceLdeTest, RejectsSizesAndColumnsOutsideTheShape) {
  ThreadPool one(1);
  const TraceShape shape{3, 4, 1};
  std::vector<Goldilocks> trace(shape.elements());
  std::vector<Goldilocks> extended(shape.extended_elements());
  EXPECT_THAT(ExtendColumns(trace, shape, 2, 3, extended, one),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("columns")));
  EXPECT_THAT(
      ExtendColumns(std::span<const Goldilocks>(trace).first(8), shape, 0, 4, extended, one),
      StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("trace")));
  EXPECT_THAT(ExtendColumns(trace, TraceShape{0, 4, 1}, 0, 4, extended, one),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

}  // namespace
}  // namespace provd::stark
