#include "prover_core/groth16/dev_setup.hpp"

#include "prover_core/groth16/engine.hpp"

namespace provd::groth16 {

template <typename E>
absl::StatusOr<DevSetupSummary> WriteDevZkeyFor(const R1csFile& r1cs,
                                                const std::filesystem::path& zkey_out,
                                                const DevSetupOptions& options, ThreadPool& pool);
extern template absl::StatusOr<DevSetupSummary> WriteDevZkeyFor<Bn254Engine>(
    const R1csFile&, const std::filesystem::path&, const DevSetupOptions&, ThreadPool&);
extern template absl::StatusOr<DevSetupSummary> WriteDevZkeyFor<Bls12381Engine>(
    const R1csFile&, const std::filesystem::path&, const DevSetupOptions&, ThreadPool&);

uint32_t DevSetupLogDomain(const R1csHeader& header) {
  const uint64_t rows = uint64_t{header.n_constraints} + header.n_public() + 1;
  uint32_t log_n = 1;
  while ((uint64_t{1} << log_n) < rows) ++log_n;
  return log_n;
}

absl::StatusOr<DevSetupSummary> WriteDevZkey(const R1csFile& r1cs,
                                             const std::filesystem::path& zkey_out,
                                             const DevSetupOptions& options, ThreadPool& pool) {
  if (r1cs.header().curve == CurveId::kBn254) {
    return WriteDevZkeyFor<Bn254Engine>(r1cs, zkey_out, options, pool);
  }
  return WriteDevZkeyFor<Bls12381Engine>(r1cs, zkey_out, options, pool);
}

}  // namespace provd::groth16
