// The CUDA NTT: one kernel launch per DIF stage, each thread a butterfly of
// ntt::DifButterfly, the CPU's own code, so a stage chunk computed here equals the CPU's bit
// for bit. The stage table of the last domain stays on the device until Release().
#include "absl/strings/str_cat.h"
#include "kernels/cuda_session.hpp"
#include "kernels/cuda_session_resources.cuh"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"

namespace provd::kernels {
namespace {

constexpr unsigned kNttBlock = 256;

template <typename F>
__global__ void __launch_bounds__(kNttBlock)
    DifStageKernel(F* data, const F* table, uint64_t butterflies, uint64_t half_size) {
  for (uint64_t b = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; b < butterflies;
       b += uint64_t{gridDim.x} * blockDim.x) {
    ntt::DifButterfly(data, table, half_size, b);
  }
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
  absl::StatusOr<F*> d_data = r.Reserve<F>(Slot::kNttData, n, what.c_str());
  if (!d_data.ok()) return d_data.status();
  if (absl::Status s = r.Upload(*d_data, data.data(), n, what.c_str()); !s.ok()) return s;
  if (inject_fault) {
    return absl::UnavailableError(
        absl::StrCat(what, ": injected launch failure (fault injection)"));
  }
  for (size_t s = first; s < end; ++s) {
    DifStageKernel<F><<<GridFor(n / 2, kNttBlock), kNttBlock, 0, r.stream.get()>>>(
        *d_data, *d_table, n / 2, n >> (s + 1));
    PROVD_CUDA_RETURN_IF_ERROR(cudaGetLastError(), what);
  }
  return r.Download(data.data(), *d_data, n, what.c_str());
}

#define PROVD_INSTANTIATE_CUDA_NTT(Field)              \
  template absl::Status CudaSession::NttStages<Field>( \
      std::span<Field>, const ntt::Twiddles<Field>&, ntt::Direction, size_t, size_t);

PROVD_INSTANTIATE_CUDA_NTT(field::Bn254Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Bls12381Fr)
PROVD_INSTANTIATE_CUDA_NTT(field::Goldilocks)

#undef PROVD_INSTANTIATE_CUDA_NTT

}  // namespace provd::kernels
