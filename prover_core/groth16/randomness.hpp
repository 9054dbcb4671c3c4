// The blinding scalars r and s of a Groth16 proof.
//
// Without a seed they come from the OS (getrandom). With a seed they are derived, so that a
// job's proof bytes are a pure function of (zkey, witness, seed) on any backend and schedule:
//
//   binding  = SHA-256(zkey header section) || SHA-256(witness values, 32-byte LE each)
//   wide(L)  = SHA-512("provd/groth16/v1/" || L || u32le(len(seed)) || seed || binding
//                      || u32le(attempt))                       for L = "r", then "s"
//   scalar   = wide(L) read as a 512-bit little-endian integer, mod r (bias < 2^-250);
//              attempt starts at 0 and is bumped only if the scalar is zero.
//
// The binding makes a seed reused with another witness or key give unrelated r and s, so a
// careless caller who reuses seeds does not leak the witness difference.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/field/bigint.hpp"
#include "prover_core/io/digest.hpp"

namespace provd::groth16 {

using WideBytes = io::Sha512Digest;

// 64 bytes for scalar `label` ("r" or "s"): derived as above when `seed` is set, else from the
// OS (UNAVAILABLE if the OS cannot provide entropy).
absl::StatusOr<WideBytes> DrawWide(std::string_view label,
                                   const std::optional<std::vector<uint8_t>>& seed,
                                   std::span<const uint8_t> binding, uint32_t attempt);

// A 512-bit little-endian integer reduced into the field F.
template <typename F>
F ReduceWide(const WideBytes& wide) {
  using Int = field::BigInt<4>;
  const F lo = F::FromIntReduced(Int::FromBytesLE(std::span(wide).first(32)));
  const F hi = F::FromIntReduced(Int::FromBytesLE(std::span(wide).last(32)));
  return lo + hi * F::FromCanonical(F::Constants::kR);  // kR = 2^256 mod p
}

// A nonzero scalar of F for `label`.
template <typename F>
absl::StatusOr<F> DrawScalar(std::string_view label,
                             const std::optional<std::vector<uint8_t>>& seed,
                             std::span<const uint8_t> binding) {
  for (uint32_t attempt = 0;; ++attempt) {
    absl::StatusOr<WideBytes> wide = DrawWide(label, seed, binding, attempt);
    if (!wide.ok()) return wide.status();
    F v = ReduceWide<F>(*wide);
    if (!v.IsZero()) return v;
  }
}

}  // namespace provd::groth16
