// The CUDA NTT's plan: DIF stages [first, end) in passes of several stages, each pass one launch
// whose blocks run their stages in shared memory, so device memory is read and written once per
// pass instead of once per stage. Plain constexpr C++ like msm_steps.hpp: the kernel maps
// threads onto these functions, and RunNttPassesOnHost walks the same indices on the host so CI,
// which has no GPU, checks the plan against ntt::RunStages.
//
// Stage s of an n-point DIF NTT pairs elements whose indices differ in bit log n - s - 1. So the
// k stages [s, s + k) only ever combine elements that differ in bits [lo, lo + k),
// lo = log n - s - k: the 2^k elements that agree on every other bit form a closed "column".
// A block takes 2^log_t columns with consecutive low bits (so its loads and stores are runs of
// 2^log_t consecutive elements, whole cache lines), i.e. 2^(k + log_t) elements, and local
// element e is column u = e >> log_t, lane t = e mod 2^log_t.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "prover_core/ntt/ntt.hpp"

namespace provd::kernels {

struct NttPass {
  uint32_t log_n = 0;
  uint32_t first = 0;   // first stage of the pass
  uint32_t stages = 0;  // k
  uint32_t log_t = 0;   // log2 of the columns a block takes

  constexpr uint32_t lo_bit() const { return log_n - first - stages; }
  constexpr uint64_t block_elements() const { return uint64_t{1} << (stages + log_t); }
  constexpr uint64_t blocks() const { return (uint64_t{1} << log_n) >> (stages + log_t); }

  // Global index of local element e of block b.
  constexpr uint64_t Element(uint64_t b, uint64_t e) const {
    const uint32_t low_groups_log = lo_bit() - log_t;  // blocks that share the high bits
    const uint64_t high = b >> low_groups_log;
    const uint64_t low =
        ((b & ((uint64_t{1} << low_groups_log) - 1)) << log_t) | (e & ((uint64_t{1} << log_t) - 1));
    return (high << (lo_bit() + stages)) | ((e >> log_t) << lo_bit()) | low;
  }

  struct Butterfly {
    uint64_t lo;  // local elements
    uint64_t hi;
    uint64_t twiddle;  // index into the Twiddles stage table
  };
  // Butterfly q (< block_elements() / 2) of the pass's i-th stage in block b: the same pair and
  // twiddle as ntt::DifButterfly of stage first + i on the global indices.
  constexpr Butterfly At(uint64_t b, uint32_t i, uint64_t q) const {
    const uint64_t t = q & ((uint64_t{1} << log_t) - 1);
    const uint64_t v = q >> log_t;                          // butterfly within the column
    const uint64_t half = uint64_t{1} << (stages - 1 - i);  // in column positions
    const uint64_t j = v & (half - 1);
    const uint64_t u = ((v - j) << 1) + j;
    const uint64_t lo = (u << log_t) | t;
    // Global half-size h = half << lo_bit; the twiddle is w_{2h}^(global lo mod h).
    const uint64_t global_lo = Element(b, lo);
    const uint64_t h = half << lo_bit();
    return {lo, lo + (half << log_t), h + (global_lo & (h - 1))};
  }
};

// Passes for stages [first, end) of a 2^log_n NTT, with blocks of at most 2^log_block elements
// and runs of at least 2^log_min_run consecutive elements (while the low bits allow it). As few
// passes as the block size allows, their stages balanced.
inline std::vector<NttPass> PlanNttPasses(uint32_t log_n, uint32_t first, uint32_t end,
                                          uint32_t log_block, uint32_t log_min_run) {
  std::vector<NttPass> passes;
  const uint32_t max_stages = log_block > log_min_run ? log_block - log_min_run : 1;
  uint32_t s = first;
  while (s < end) {
    const uint32_t left = end - s;
    const uint32_t count = (left + max_stages - 1) / max_stages;
    const uint32_t k = (left + count - 1) / count;
    NttPass pass{log_n, s, k, 0};
    const uint32_t room = log_block > k ? log_block - k : 0;
    pass.log_t = room < pass.lo_bit() ? room : pass.lo_bit();
    passes.push_back(pass);
    s += k;
  }
  return passes;
}

// The passes walked on the host, block after block, through a scratch tile as the kernel's
// shared memory. For tests; nothing in the prover uses it.
template <typename F>
void RunNttPassesOnHost(std::span<F> data, const std::vector<F>& table,
                        const std::vector<NttPass>& passes) {
  for (const NttPass& pass : passes) {
    std::vector<F> tile(pass.block_elements());
    for (uint64_t b = 0; b < pass.blocks(); ++b) {
      for (uint64_t e = 0; e < tile.size(); ++e) tile[e] = data[pass.Element(b, e)];
      for (uint32_t i = 0; i < pass.stages; ++i) {
        for (uint64_t q = 0; q < tile.size() / 2; ++q) {
          const NttPass::Butterfly bf = pass.At(b, i, q);
          ntt::DifButterflyValues(tile[bf.lo], tile[bf.hi], table[bf.twiddle]);
        }
      }
      for (uint64_t e = 0; e < tile.size(); ++e) data[pass.Element(b, e)] = tile[e];
    }
  }
}

}  // namespace provd::kernels
