// How much memory one Groth16 proof with a key needs at its peak, for admission: the daemon
// refuses a job that cannot fit its memory budget instead of being OOM-killed half-way.
//
// Measured (docs/performance.md, "the scaling curve"): peak RSS = the mapped zkey (its pages
// count once touched) + about 5.3 domain-sized scalar buffers at 2^22 on BN254. The estimate
// takes 8 domain buffers of scalars plus a whole G2 section decoded as affine points (the MSM
// decodes a round's points, in one chunk by default), which covers both curves with a margin.
#pragma once

#include <cstdint>

#include "prover_core/groth16/zkey_file.hpp"

namespace provd::groth16 {

struct ProofMemoryEstimate {
  uint64_t key_bytes = 0;     // the zkey, mapped
  uint64_t buffer_bytes = 0;  // scalars over the domain, decoded points, the witness
  uint64_t total() const { return key_bytes + buffer_bytes; }
};

inline ProofMemoryEstimate EstimateProofMemory(const ZkeyFile& zkey) {
  const ZkeyHeader& h = zkey.header();
  constexpr uint64_t kDomainBuffers = 8;
  ProofMemoryEstimate e;
  e.key_bytes = zkey.size_bytes();
  e.buffer_bytes = kDomainBuffers * h.domain_size * uint64_t{h.n8r} +   // NTT / H buffers
                   uint64_t{h.n_vars} * (4 * uint64_t{h.n8q} + h.n8r);  // G2 points, witness
  return e;
}

}  // namespace provd::groth16
