// `provd devsetup`: an INSECURE single-party Groth16 setup of a circom circuit, for benchmarks
// and development. One process draws the toxic waste (tau, alpha, beta, gamma, delta) and
// forgets it; whoever knows it (anyone, with --seed) can forge proofs. Production keys come
// from a ceremony (snarkjs powersoftau + zkey contribute), never from here.
//
// The key is snarkjs's `zkey new` output as if the ptau and every contribution were this one
// draw: the same header, the same coefficient section byte for byte (file order, A then B terms
// per constraint, then one row per public signal), the same points as functions of the secrets:
//   A_s = u_s(t) G1, B1_s = v_s(t) G1, B2_s = v_s(t) G2,
//   IC_s = (b u_s(t) + a v_s(t) + w_s(t)) / g G1 (s <= nPublic), C_s = the same / d (s > nPublic),
//   H_i = L_{2i+1}(t) / d G1 over the 2n-th roots (snarkjs's odd-coset H),
// where u, v, w are the A, B, C columns interpolated over the n-th roots (n = the domain size,
// with the public rows snarkjs appends to A). Section 10 says "no contributions" with a zero
// circuit hash: `snarkjs zkey verify` rejects the key, as it should, since no ptau is behind it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "prover_core/groth16/r1cs_file.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::groth16 {

struct DevSetupOptions {
  // Derive the secrets from this seed and the circuit's shape (reproducible keys for tests and
  // benchmarks) instead of from the OS.
  std::optional<std::vector<uint8_t>> seed;
};

struct DevSetupSummary {
  uint32_t domain_size = 0;
  uint64_t coefficients = 0;
  uint64_t zkey_bytes = 0;
  double scalar_seconds = 0;  // Lagrange basis, the matrix columns at tau
  double point_seconds = 0;   // the fixed-base multiplications and writing
};

// Writes the key to `zkey_out` atomically (a temp file renamed into place: an error leaves no
// file). INVALID_ARGUMENT when the circuit's domain is too large for its curve.
absl::StatusOr<DevSetupSummary> WriteDevZkey(const R1csFile& r1cs,
                                             const std::filesystem::path& zkey_out,
                                             const DevSetupOptions& options, ThreadPool& pool);

// The domain snarkjs gives a circuit: the smallest power of two (at least 2) holding its
// constraints, one row per public signal and one for the constant.
uint32_t DevSetupLogDomain(const R1csHeader& header);

}  // namespace provd::groth16
