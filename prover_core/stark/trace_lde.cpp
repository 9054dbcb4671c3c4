// Columns go through the transforms eight at a time (trace_lde_kernels.hpp), in waves of one
// block per thread: the wave's inverse transforms run one block per thread, then its 2^b
// forward transforms per block each run as a task, so a call with few blocks still fills the
// pool.
#include "prover_core/stark/trace_lde.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "absl/strings/str_cat.h"
#include "prover_core/ntt/ntt.hpp"
#include "prover_core/ntt/twiddles.hpp"
#include "prover_core/stark/trace_lde_internal.hpp"
#include "prover_core/stark/trace_lde_kernels.hpp"

namespace provd::stark {
namespace lde_internal {
namespace {

// Eight scalar elements: one code path for every CPU and for -O0 builds; the compiler
// vectorises what it can.
struct PortableLanes {
  struct Reg {
    Goldilocks v[kLanes];
  };
  using Tw = Goldilocks;
  static Tw Prepare(Goldilocks w) { return w; }
  static Reg Load(const Goldilocks* p) {
    Reg r;
    for (size_t l = 0; l < kLanes; ++l) r.v[l] = p[l];
    return r;
  }
  static void Store(Goldilocks* p, const Reg& r) {
    for (size_t l = 0; l < kLanes; ++l) p[l] = r.v[l];
  }
  static Reg LoadPartial(const Goldilocks* p, size_t width) {
    Reg r;
    for (size_t l = 0; l < kLanes; ++l) r.v[l] = l < width ? p[l] : Goldilocks::Zero();
    return r;
  }
  static void StorePartial(Goldilocks* p, const Reg& r, size_t width) {
    for (size_t l = 0; l < width; ++l) p[l] = r.v[l];
  }
  static Reg Add(const Reg& a, const Reg& b) {
    Reg r;
    for (size_t l = 0; l < kLanes; ++l) r.v[l] = a.v[l] + b.v[l];
    return r;
  }
  static Reg Sub(const Reg& a, const Reg& b) {
    Reg r;
    for (size_t l = 0; l < kLanes; ++l) r.v[l] = a.v[l] - b.v[l];
    return r;
  }
  static Reg Mul(const Reg& a, Tw w) {
    Reg r;
    for (size_t l = 0; l < kLanes; ++l) r.v[l] = a.v[l] * w;
    return r;
  }
};

// Buffers for 2^n x 8 elements, neither zeroed nor touched here: the kernels write every
// element before reading it. Those of 2 MiB or more are aligned to and advised as transparent
// huge pages: faulting in 4 KiB pages of fresh buffers was half of a 2^18-row block's time on
// the development VM (89 ms, of which 38 ms were the transforms).
struct FreeBuffer {
  std::align_val_t align;
  void operator()(Goldilocks* p) const { ::operator delete(p, align); }
};
using Buffer = std::unique_ptr<Goldilocks[], FreeBuffer>;

constexpr size_t kHugePage = size_t{1} << 21;

Buffer MakeBuffer(size_t elements) {
  const size_t bytes = elements * sizeof(Goldilocks);
  const std::align_val_t align{bytes >= kHugePage ? kHugePage : 64};
  // Goldilocks is an implicit-lifetime type: operator new's storage holds its objects (C++20).
  Buffer b(static_cast<Goldilocks*>(::operator new(bytes, align)), FreeBuffer{align});
#ifdef __linux__
  if (bytes >= kHugePage) madvise(b.get(), bytes, MADV_HUGEPAGE);  // only advice
#endif
  return b;
}

// Work buffers handed from one task to the next, so that a call allocates (and faults in) one
// per thread rather than one per task.
class BufferCache {
 public:
  explicit BufferCache(size_t elements) : elements_(elements) {}
  Buffer Take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        Buffer b = std::move(free_.back());
        free_.pop_back();
        return b;
      }
    }
    return MakeBuffer(elements_);
  }
  void Give(Buffer b) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(b));
  }

 private:
  const size_t elements_;
  std::mutex mutex_;
  std::vector<Buffer> free_;
};

// twist[k 2^n + rev(i)] = (1/n) (shift w_{n+b}^k)^i: the coset shift, the k-th part of the big
// domain and the inverse transform's 1/n in one product per row, laid out in the bit-reversed
// order the coefficients come in.
Buffer TwistTables(const TraceShape& shape, Goldilocks n_inv, ThreadPool& pool) {
  const size_t log_n = shape.n_bits;
  const size_t n = shape.rows();
  const Goldilocks w_big = ntt::RootOfUnity<Goldilocks>(shape.n_bits + shape.blowup_bits);
  const Goldilocks shift = Goldilocks::FromUint64(kCosetShift);
  Buffer twist = MakeBuffer(shape.extended_rows());
  pool.ParallelForRange(shape.extended_rows(), 4096, [&](size_t begin, size_t end) {
    Goldilocks g;
    Goldilocks power;
    for (size_t t = begin; t < end; ++t) {
      const size_t k = t >> log_n;
      const size_t i = t & (n - 1);
      if (t == begin || i == 0) {
        g = shift * w_big.Pow(static_cast<uint64_t>(k));
        power = n_inv * g.Pow(static_cast<uint64_t>(i));
      }
      twist[k * n + ntt::ReverseBits(i, static_cast<uint32_t>(log_n))] = power;
      power *= g;
    }
  });
  return twist;
}

}  // namespace

const Kernels& PortableKernels() {
  // Eight portable lanes cost about six ntt::CosetLde columns (2^18 x 32, Zen 4, -O3).
  static constexpr Kernels kPortable{"portable", 6, &InverseBlock<PortableLanes>,
                                     &ForwardBlock<PortableLanes>};
  return kPortable;
}

absl::Status ExtendColumnsWith(const Kernels& kernels, std::span<const Goldilocks> trace,
                               const TraceShape& shape, size_t first_col, size_t col_count,
                               std::span<Goldilocks> extended, ThreadPool& pool) {
  if (absl::Status s = CheckLdeRange(trace, shape, first_col, col_count, extended); !s.ok()) {
    return s;
  }
  if (col_count == 0) return absl::OkStatus();
  const size_t n = shape.rows();
  const size_t stride = shape.n_cols;
  // A block's (or tail column's) trace values are all read before any of its extension rows are
  // written, and blocks touch disjoint columns: so `trace` may alias `extended`.
  const size_t tail = col_count % kLanes < kernels.min_width ? col_count % kLanes : 0;
  std::vector<absl::Status> statuses(tail);
  pool.ParallelFor(tail, [&](size_t t) {
    const size_t col = first_col + col_count - tail + t;
    std::vector<Goldilocks> values(n);
    std::vector<Goldilocks> column(shape.extended_rows());
    for (size_t i = 0; i < n; ++i) values[i] = trace[i * stride + col];
    statuses[t] =
        ntt::CosetLde<Goldilocks>(values, column, Goldilocks::FromUint64(kCosetShift), pool);
    if (!statuses[t].ok()) return;
    for (size_t i = 0; i < column.size(); ++i) extended[i * stride + col] = column[i];
  });
  for (absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  const size_t blocks = (col_count - tail + kLanes - 1) / kLanes;
  if (blocks == 0) return absl::OkStatus();

  absl::StatusOr<std::shared_ptr<const ntt::Twiddles<Goldilocks>>> tw =
      ntt::GetTwiddles<Goldilocks>(shape.n_bits, pool);
  if (!tw.ok()) return tw.status();
  const Buffer twist = TwistTables(shape, (*tw)->n_inv, pool);
  const size_t parts = size_t{1} << shape.blowup_bits;
  auto args = [&](size_t block) {
    BlockArgs a;
    a.trace = trace.data();
    a.extended = extended.data();
    a.stride = stride;
    a.col = first_col + block * kLanes;
    a.width = std::min(kLanes, col_count - tail - block * kLanes);
    a.log_n = shape.n_bits;
    a.blowup_bits = shape.blowup_bits;
    a.inverse_table = (*tw)->inverse.data();
    a.forward_table = (*tw)->forward.data();
    a.twist = twist.get();
    return a;
  };
  const size_t wave = std::max<size_t>(1, pool.size());
  std::vector<Buffer> coeffs(std::min(wave, blocks));
  BufferCache work(n * kLanes);
  for (size_t first = 0; first < blocks; first += wave) {
    const size_t count = std::min(wave, blocks - first);
    pool.ParallelFor(count, [&](size_t b) {
      if (coeffs[b] == nullptr) coeffs[b] = MakeBuffer(n * kLanes);
      kernels.inverse(args(first + b), coeffs[b].get());
    });
    pool.ParallelFor(count * parts, [&](size_t t) {
      Buffer buffer = work.Take();
      kernels.forward(args(first + t / parts), coeffs[t / parts].get(), t % parts, buffer.get());
      work.Give(std::move(buffer));
    });
  }
  return absl::OkStatus();
}

}  // namespace lde_internal

absl::Status CheckLdeRange(std::span<const Goldilocks> trace, const TraceShape& shape,
                           size_t first_col, size_t col_count,
                           std::span<const Goldilocks> extended) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (trace.size() != shape.elements() || extended.size() != shape.extended_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LDE of a ", trace.size(), "-element trace into ", extended.size(),
        " elements: the shape says ", shape.elements(), " and ", shape.extended_elements()));
  }
  if (first_col > shape.n_cols || col_count > shape.n_cols - first_col) {
    return absl::InvalidArgumentError(absl::StrCat("LDE of columns [", first_col, ", ",
                                                   first_col + col_count, ") of ", shape.n_cols));
  }
  return absl::OkStatus();
}

absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                           size_t first_col, size_t col_count, std::span<Goldilocks> extended,
                           ThreadPool& pool) {
  const lde_internal::Kernels* avx512 = lde_internal::Avx512Kernels();
  return lde_internal::ExtendColumnsWith(
      avx512 != nullptr ? *avx512 : lde_internal::PortableKernels(), trace, shape, first_col,
      col_count, extended, pool);
}

}  // namespace provd::stark
