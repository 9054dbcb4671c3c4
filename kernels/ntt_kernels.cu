// The CUDA NTT: DIF stages in passes of several stages (ntt_passes.hpp), each pass one launch
// whose blocks work in shared memory, every butterfly ntt::DifButterflyValues, the CPU's own
// code, so a stage chunk computed here equals the CPU's bit for bit. The stage table of the last
// domain stays on the device until Release().
#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_session_resources.cuh"
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

// One pass (ntt_passes.hpp): block b loads its columns into shared memory, runs the pass's
// stages there, and writes them back.
template <typename F>
__global__ void __launch_bounds__(kNttBlock) NttPassKernel(F* data, const F* table, NttPass pass) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  F* tile = reinterpret_cast<F*>(shared_bytes);
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
  const bool inverse = direction == ntt::Direction::kInverse;
  const std::vector<F>& table = inverse ? twiddles.inverse : twiddles.forward;
  const std::string what = absl::StrCat("cuda:", device_, " ", F::kName, " NTT 2^", twiddles.log_n);
  if (uint64_t{sizeof(F)} * (n + table.size()) > budget_) {  // both buffers of this call
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": does not fit the VRAM budget of ", budget_, " bytes"));
  }
  bool inject_fault = false;
  if (absl::Status s = BeginCall(inject_fault); !s.ok()) return s;
  Resources& r = *resources_;
  const NvtxRange range(absl::StrCat(what, " stages ", first, "..", end).c_str());

  // What this call needs must fit beside what the session holds; otherwise start from nothing
  // (the MSM's buffers, mostly).
  PhaseClock clock(options_.time_phases, r.stream.get(), phases_);
  const uint64_t needed = uint64_t{sizeof(F)} * (n + table.size());
  if (r.device_bytes() > budget_ - needed) r.ReleaseBuffers();
  // A table buffer that must grow loses its contents: forget which table it held first, so a
  // failed allocation cannot leave a stale marker on an empty buffer.
  if (r.buffer(Slot::kTwiddles).capacity() < table.size() * sizeof(F)) r.twiddle_field = nullptr;
  absl::StatusOr<F*> d_table = r.Reserve<F>(Slot::kTwiddles, table.size(), what.c_str());
  if (!d_table.ok()) return d_table.status();
  if (r.twiddle_field != F::kName || r.twiddle_log_n != twiddles.log_n ||
      r.twiddle_inverse != inverse) {
    r.twiddle_field = nullptr;  // invalid until the upload below succeeds
    if (absl::Status s = r.Upload(*d_table, table.data(), table.size(), what.c_str()); !s.ok())
      return s;
    r.twiddle_field = F::kName;
    r.twiddle_log_n = twiddles.log_n;
    r.twiddle_inverse = inverse;
  }
  clock.Mark("twiddles");
  absl::StatusOr<F*> d_data = r.Reserve<F>(Slot::kNttData, n, what.c_str());
  if (!d_data.ok()) return d_data.status();
  if (absl::Status s = r.Upload(*d_data, data.data(), n, what.c_str()); !s.ok()) return s;
  clock.Mark("upload");
  if (inject_fault) {
    return absl::UnavailableError(
        absl::StrCat(what, ": injected launch failure (fault injection)"));
  }
  constexpr uint32_t kLogBlock = kLogSharedBytes - Log2(sizeof(F));
  constexpr uint32_t kLogRun = kLogRunBytes > Log2(sizeof(F)) ? kLogRunBytes - Log2(sizeof(F)) : 0;
  static_assert((size_t{1} << Log2(sizeof(F))) == sizeof(F), "field elements of 2^k bytes");
  PROVD_CUDA_RETURN_IF_ERROR(
      cudaFuncSetAttribute(NttPassKernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           int{1} << kLogSharedBytes),
      what);
  for (const NttPass& pass :
       PlanNttPasses(static_cast<uint32_t>(twiddles.log_n), static_cast<uint32_t>(first),
                     static_cast<uint32_t>(end), kLogBlock, kLogRun)) {
    const uint64_t threads = std::min<uint64_t>(kNttBlock, pass.block_elements() / 2);
    NttPassKernel<F>
        <<<static_cast<unsigned>(pass.blocks()), static_cast<unsigned>(threads),
           pass.block_elements() * sizeof(F), r.stream.get()>>>(*d_data, *d_table, pass);
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what);
  }
  clock.Mark("stages");
  absl::Status downloaded = r.Download(data.data(), *d_data, n, what.c_str());
  clock.Mark("download");
  return downloaded;
}

#define PROVD_INSTANTIATE_CUDA_NTT(Field)              \
  template absl::Status CudaSession::NttStages<Field>( \
      std::span<Field>, const ntt::Twiddles<Field>&, ntt::Direction, size_t, size_t);

PROVD_INSTANTIATE_CUDA_NTT(field::Bn254Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Bls12381Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Goldilocks)

#undef PROVD_INSTANTIATE_CUDA_NTT

}  // namespace provd::kernels
