// The CUDA NTT: DIF stages in passes of several stages (ntt_passes.hpp), each pass one launch
// whose blocks work in shared memory, every butterfly ntt::DifButterflyValues, the CPU's own
// code, so a stage chunk computed here equals the CPU's bit for bit. The stage tables of the last
// domain (one per direction) stay on the device until Release(). ShiftToCoset runs a whole
// inverse transform, coset scaling and forward transform with the column on the device, and
// CosetLde does the same for many columns at once with a blow-up between the two transforms.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_session_resources.cuh"
#include "kernels/ntt_finish.hpp"
#include "kernels/ntt_passes.hpp"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"

namespace provd::kernels {
namespace {

constexpr unsigned kNttBlock = 256;
// Shared memory per block: 64 KiB (2^11 elements of BN254/BLS12-381 Fr, 2^13 of Goldilocks),
// at most three blocks per multiprocessor, which the registers of Fr products allow anyway.
constexpr uint32_t kLogSharedBytes = 16;
constexpr uint32_t kLogRunBytes = 7;  // 128-byte lines: whole lines per load and store

constexpr uint32_t Log2(uint64_t v) { return v <= 1 ? 0 : 1 + Log2(v / 2); }

// Independent transforms side by side in device memory: `count` of them, `stride` elements
// apart. Kernels take the transform from blockIdx.y (at most 65535 per launch).
struct Columns {
  uint32_t count = 1;
  uint64_t stride = 0;
};
constexpr uint32_t kMaxColumnsPerLaunch = 65535;

// One pass (ntt_passes.hpp): block b loads its columns into shared memory, runs the pass's
// stages there, and writes them back.
template <typename F>
__global__ void __launch_bounds__(kNttBlock)
    NttPassKernel(F* data, const F* table, NttPass pass, uint64_t column_stride) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  F* tile = reinterpret_cast<F*>(shared_bytes);
  data += blockIdx.y * column_stride;
  const uint64_t b = blockIdx.x;
  const uint64_t elements = pass.block_elements();
  for (uint64_t e = threadIdx.x; e < elements; e += blockDim.x) tile[e] = data[pass.Element(b, e)];
  __syncthreads();
  for (uint32_t i = 0; i < pass.stages; ++i) {
    for (uint64_t q = threadIdx.x; q < elements / 2; q += blockDim.x) {
      const NttPass::Butterfly bf = pass.At(b, i, q);
      ntt::DifButterflyValues(tile[bf.lo], tile[bf.hi], table[bf.twiddle]);
    }
    __syncthreads();
  }
  for (uint64_t e = threadIdx.x; e < elements; e += blockDim.x) data[pass.Element(b, e)] = tile[e];
}

template <typename F>
__global__ void __launch_bounds__(kNttBlock)
    FinishKernel(F* data, uint32_t log_n, FinishScale<F> scale, uint64_t column_stride) {
  data += blockIdx.y * column_stride;
  const uint64_t n = uint64_t{1} << log_n;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += uint64_t{gridDim.x} * blockDim.x) {
    FinishElement(data, i, log_n, scale);
  }
}

// Values [begin, end) of every column become `value`.
template <typename F>
__global__ void __launch_bounds__(kNttBlock)
    FillKernel(F* data, uint64_t begin, uint64_t end, F value, uint64_t column_stride) {
  data += blockIdx.y * column_stride;
  for (uint64_t i = begin + uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < end;
       i += uint64_t{gridDim.x} * blockDim.x) {
    data[i] = value;
  }
}

// Stages [first, end) of the 2^log_n NTT over each column of d_data, pass by pass, on `stream`.
template <typename F>
absl::Status LaunchPasses(F* d_data, const F* d_table, uint32_t log_n, uint32_t first, uint32_t end,
                          cudaStream_t stream, const std::string& what, Columns columns = {}) {
  constexpr uint32_t kLogBlock = kLogSharedBytes - Log2(sizeof(F));
  constexpr uint32_t kLogRun = kLogRunBytes > Log2(sizeof(F)) ? kLogRunBytes - Log2(sizeof(F)) : 0;
  static_assert((size_t{1} << Log2(sizeof(F))) == sizeof(F), "field elements of 2^k bytes");
  PROVD_CUDA_RETURN_IF_ERROR(
      cudaFuncSetAttribute(NttPassKernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           int{1} << kLogSharedBytes),
      what);
  for (const NttPass& pass : PlanNttPasses(log_n, first, end, kLogBlock, kLogRun)) {
    const uint64_t threads = std::min<uint64_t>(kNttBlock, pass.block_elements() / 2);
    const dim3 grid(static_cast<unsigned>(pass.blocks()), columns.count);
    NttPassKernel<F>
        <<<grid, static_cast<unsigned>(threads), pass.block_elements() * sizeof(F), stream>>>(
            d_data, d_table, pass, columns.stride);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": stages");
  }
  return absl::OkStatus();
}

template <typename F>
absl::Status LaunchFinish(F* d_data, uint32_t log_n, const FinishScale<F>& scale,
                          cudaStream_t stream, const std::string& what, Columns columns = {}) {
  const dim3 grid(GridFor(uint64_t{1} << log_n, kNttBlock), columns.count);
  FinishKernel<F><<<grid, kNttBlock, 0, stream>>>(d_data, log_n, scale, columns.stride);
  PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": finish");
  return absl::OkStatus();
}

// The device copy of the domain's stage table for `direction`, uploaded unless the slot holds it
// already.
template <typename F>
absl::StatusOr<F*> EnsureStageTable(CudaSession::Resources& r, const ntt::Twiddles<F>& twiddles,
                                    ntt::Direction direction, const std::string& what) {
  const std::vector<F>& table =
      direction == ntt::Direction::kInverse ? twiddles.inverse : twiddles.forward;
  StageTableTag& tag = r.stage_tables[static_cast<size_t>(direction)];
  const Slot slot = TwiddleSlot(direction);
  // A buffer that must grow loses its contents: forget which table it held first, so a failed
  // allocation cannot leave a stale tag on an empty buffer.
  if (r.buffer(slot).capacity() < table.size() * sizeof(F)) tag = {};
  absl::StatusOr<F*> d_table = r.Reserve<F>(slot, table.size(), what.c_str());
  if (!d_table.ok()) return d_table.status();
  if (tag.field != F::kName || tag.log_n != twiddles.log_n) {
    tag = {};  // invalid until the upload below succeeds
    if (absl::Status s = r.Upload(*d_table, table.data(), table.size(), what.c_str()); !s.ok())
      return s;
    tag = {F::kName, twiddles.log_n};
  }
  return d_table;
}

// The column into the data slot. An injected fault (fault injection) comes after the upload,
// as a launch failure would.
template <typename F>
absl::StatusOr<F*> UploadColumn(CudaSession::Resources& r, std::span<const F> data,
                                const absl::Status& fault, PhaseClock& clock,
                                const std::string& what) {
  absl::StatusOr<F*> d_data = r.Reserve<F>(Slot::kNttData, data.size(), what.c_str());
  if (!d_data.ok()) return d_data.status();
  if (absl::Status s = r.Upload(*d_data, data.data(), data.size(), what.c_str()); !s.ok()) return s;
  clock.Mark("upload");
  if (!fault.ok()) return fault;
  return d_data;
}

// What a coset step needs on the device: the inverse stage table of the small domain, the
// forward one of the large domain (the same domain for ShiftToCoset), and the finish's powers.
template <typename F>
struct CosetTables {
  F* inverse = nullptr;
  F* forward = nullptr;
  FinishScale<F> scale;
};

template <typename F>
absl::StatusOr<CosetTables<F>> EnsureCosetTables(CudaSession::Resources& r,
                                                 const ntt::Twiddles<F>& small,
                                                 const ntt::Twiddles<F>& large,
                                                 const CosetScaleTables<F>& scale,
                                                 const std::string& what) {
  absl::StatusOr<F*> inverse = EnsureStageTable(r, small, ntt::Direction::kInverse, what);
  if (!inverse.ok()) return inverse.status();
  absl::StatusOr<F*> forward = EnsureStageTable(r, large, ntt::Direction::kForward, what);
  if (!forward.ok()) return forward.status();
  absl::StatusOr<F*> powers = r.Reserve<F>(Slot::kCosetScale, scale.values.size(), what.c_str());
  if (!powers.ok()) return powers.status();
  if (absl::Status s = r.Upload(*powers, scale.values.data(), scale.values.size(), what.c_str());
      !s.ok()) {
    return s;
  }
  return CosetTables<F>{*inverse, *forward, scale.View(*powers)};
}

// The inverse transform of size 2^log_n with 1/n and the coset powers in its finish, then the
// forward transform of size 2^log_big over each column (the values above 2^log_n already zero).
template <typename F>
absl::Status LaunchCosetSteps(F* d_data, const CosetTables<F>& tables, uint32_t log_n,
                              uint32_t log_big, cudaStream_t stream, const std::string& what,
                              Columns columns = {}) {
  if (absl::Status s = LaunchPasses(d_data, tables.inverse, log_n, 0, log_n, stream, what, columns);
      !s.ok())
    return s;
  if (absl::Status s = LaunchFinish(d_data, log_n, tables.scale, stream, what, columns); !s.ok())
    return s;
  if (absl::Status s =
          LaunchPasses(d_data, tables.forward, log_big, 0, log_big, stream, what, columns);
      !s.ok())
    return s;
  return LaunchFinish(d_data, log_big, FinishScale<F>{}, stream, what, columns);
}

}  // namespace

template <typename F>
absl::Status CudaSession::NttStages(std::span<F> data, const ntt::Twiddles<F>& twiddles,
                                    ntt::Direction direction, size_t first, size_t end) {
  const size_t n = data.size();
  if (twiddles.log_n >= 64 || n != (size_t{1} << twiddles.log_n) || first > end ||
      end > twiddles.log_n) {
    return absl::InvalidArgumentError(absl::StrCat("GPU NTT stages [", first, ", ", end, ") of ", n,
                                                   " elements with twiddles for 2^",
                                                   twiddles.log_n));
  }
  if (first == end) return absl::OkStatus();
  const std::vector<F>& table =
      direction == ntt::Direction::kInverse ? twiddles.inverse : twiddles.forward;
  const std::string what = absl::StrCat("cuda:", device_, " ", F::kName, " NTT 2^", twiddles.log_n);
  const uint64_t needed = uint64_t{sizeof(F)} * (n + table.size());  // both buffers of this call
  if (needed > budget_) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": does not fit the VRAM budget of ", budget_, " bytes"));
  }
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  const absl::Status fault = InjectedFault(what);
  Resources& r = *resources_;
  const NvtxRange range(absl::StrCat(what, " stages ", first, "..", end).c_str());

  // What this call needs must fit beside what the session holds; otherwise start from nothing
  // (the MSM's buffers, mostly).
  PhaseClock clock(options_.time_phases, r.stream.get(), phases_);
  if (r.device_bytes() > budget_ - needed) r.ReleaseBuffers();
  absl::StatusOr<F*> d_table = EnsureStageTable(r, twiddles, direction, what);
  if (!d_table.ok()) return d_table.status();
  clock.Mark("twiddles");
  absl::StatusOr<F*> d_data = UploadColumn<F>(r, data, fault, clock, what);
  if (!d_data.ok()) return d_data.status();
  if (absl::Status s = LaunchPasses(*d_data, *d_table, static_cast<uint32_t>(twiddles.log_n),
                                    static_cast<uint32_t>(first), static_cast<uint32_t>(end),
                                    r.stream.get(), what);
      !s.ok()) {
    return s;
  }
  clock.Mark("stages");
  absl::Status downloaded = r.Download(data.data(), *d_data, n, what.c_str());
  clock.Mark("download");
  return downloaded;
}

template <typename F>
absl::Status CudaSession::ShiftToCoset(std::span<F> data, const ntt::Twiddles<F>& twiddles,
                                       const F& shift) {
  const size_t n = data.size();
  if (twiddles.log_n >= 64 || n != (size_t{1} << twiddles.log_n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU coset shift of ", n, " elements with twiddles for 2^", twiddles.log_n));
  }
  const auto log_n = static_cast<uint32_t>(twiddles.log_n);
  const std::string what =
      absl::StrCat("cuda:", device_, " ", F::kName, " coset shift 2^", twiddles.log_n);
  const CosetScaleTables<F> scale = MakeCosetScaleTables<F>(log_n, twiddles.n_inv, shift);
  const uint64_t needed = uint64_t{sizeof(F)} * (n + twiddles.forward.size() +
                                                 twiddles.inverse.size() + scale.values.size());
  if (needed > budget_) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": does not fit the VRAM budget of ", budget_, " bytes"));
  }
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  const absl::Status fault = InjectedFault(what);
  Resources& r = *resources_;
  const NvtxRange range(what.c_str());
  PhaseClock clock(options_.time_phases, r.stream.get(), phases_);
  if (r.device_bytes() > budget_ - needed) r.ReleaseBuffers();
  absl::StatusOr<CosetTables<F>> tables = EnsureCosetTables(r, twiddles, twiddles, scale, what);
  if (!tables.ok()) return tables.status();
  clock.Mark("twiddles");
  absl::StatusOr<F*> d_data = UploadColumn<F>(r, data, fault, clock, what);
  if (!d_data.ok()) return d_data.status();
  if (absl::Status s = LaunchCosetSteps(*d_data, *tables, log_n, log_n, r.stream.get(), what);
      !s.ok())
    return s;
  clock.Mark("stages");
  absl::Status downloaded = r.Download(data.data(), *d_data, n, what.c_str());
  clock.Mark("download");
  return downloaded;
}

template <typename F>
absl::Status CudaSession::CosetLde(std::span<const F> evals, std::span<F> out, size_t columns,
                                   const ntt::Twiddles<F>& small, const ntt::Twiddles<F>& large,
                                   const F& shift) {
  const std::string what = absl::StrCat("cuda:", device_, " ", F::kName, " coset LDE 2^",
                                        small.log_n, " -> 2^", large.log_n);
  if (small.log_n >= 64 || large.log_n >= 64 || small.log_n > large.log_n || columns == 0 ||
      columns > (SIZE_MAX >> large.log_n) || evals.size() != (columns << small.log_n) ||
      out.size() != (columns << large.log_n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU coset LDE of ", columns, " columns from ", evals.size(), " to ", out.size(),
        " values with twiddles for 2^", small.log_n, " and 2^", large.log_n,
        ": each column needs 2^", small.log_n, " values in and 2^", large.log_n, " out"));
  }
  const uint64_t n = uint64_t{1} << small.log_n;
  const uint64_t big = uint64_t{1} << large.log_n;
  const auto log_n = static_cast<uint32_t>(small.log_n);
  const auto log_big = static_cast<uint32_t>(large.log_n);
  const CosetScaleTables<F> scale = MakeCosetScaleTables<F>(log_n, small.n_inv, shift);
  const uint64_t table_bytes =
      uint64_t{sizeof(F)} * (small.inverse.size() + large.forward.size() + scale.values.size());
  // As many columns at a time as fit beside the tables.
  const uint64_t column_bytes = uint64_t{sizeof(F)} * big;
  const uint64_t group = table_bytes >= budget_
                             ? 0
                             : std::min<uint64_t>({(budget_ - table_bytes) / column_bytes, columns,
                                                   kMaxColumnsPerLaunch});
  if (group == 0) {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, ": one column and the tables do not fit the VRAM budget of ", budget_, " bytes"));
  }
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  const absl::Status fault = InjectedFault(what);
  Resources& r = *resources_;
  const NvtxRange range(absl::StrCat(what, " x ", columns).c_str());
  PhaseClock clock(options_.time_phases, r.stream.get(), phases_);
  if (r.device_bytes() > budget_ - table_bytes - group * column_bytes) r.ReleaseBuffers();
  absl::StatusOr<CosetTables<F>> tables = EnsureCosetTables(r, small, large, scale, what);
  if (!tables.ok()) return tables.status();
  clock.Mark("twiddles");
  absl::StatusOr<F*> d_data = r.Reserve<F>(Slot::kNttData, group * big, what.c_str());
  if (!d_data.ok()) return d_data.status();
  cudaStream_t stream = r.stream.get();
  for (uint64_t first = 0; first < columns; first += group) {
    const Columns cols{static_cast<uint32_t>(std::min<uint64_t>(group, columns - first)), big};
    // Each column's values into the low end of its slot, zeros above them: the coefficients of
    // degree >= n of a polynomial of degree < n.
    for (uint32_t c = 0; c < cols.count; ++c) {
      if (absl::Status s =
              r.Upload(*d_data + c * big, evals.data() + (first + c) * n, n, what.c_str());
          !s.ok()) {
        return s;
      }
    }
    clock.Mark("upload");
    if (!fault.ok()) return fault;
    if (big > n) {
      const dim3 grid(GridFor(big - n, kNttBlock), cols.count);
      FillKernel<F><<<grid, kNttBlock, 0, stream>>>(*d_data, n, big, F::Zero(), cols.stride);
      PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what + ": zeros");
    }
    if (absl::Status s = LaunchCosetSteps(*d_data, *tables, log_n, log_big, stream, what, cols);
        !s.ok())
      return s;
    clock.Mark("stages");
    if (absl::Status s =
            r.DownloadInPieces(out.data() + first * big, *d_data, cols.count * big, what.c_str());
        !s.ok()) {
      return s;
    }
    clock.Mark("download");
  }
  return absl::OkStatus();
}

#define PROVD_INSTANTIATE_CUDA_NTT(Field)                                                      \
  template absl::Status CudaSession::NttStages<Field>(                                         \
      std::span<Field>, const ntt::Twiddles<Field>&, ntt::Direction, size_t, size_t);          \
  template absl::Status CudaSession::ShiftToCoset<Field>(                                      \
      std::span<Field>, const ntt::Twiddles<Field>&, const Field&);                            \
  template absl::Status CudaSession::CosetLde<Field>(std::span<const Field>, std::span<Field>, \
                                                     size_t, const ntt::Twiddles<Field>&,      \
                                                     const ntt::Twiddles<Field>&, const Field&);

PROVD_INSTANTIATE_CUDA_NTT(field::Bn254Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Bls12381Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Goldilocks)

#undef PROVD_INSTANTIATE_CUDA_NTT

}  // namespace provd::kernels
