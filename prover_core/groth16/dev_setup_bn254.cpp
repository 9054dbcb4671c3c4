// provd devsetup for BN254 (snarkjs "bn128").
#include "prover_core/groth16/dev_setup_impl.hpp"

namespace provd::groth16 {

template absl::StatusOr<DevSetupSummary> WriteDevZkeyFor<Bn254Engine>(const R1csFile&,
                                                                      const std::filesystem::path&,
                                                                      const DevSetupOptions&,
                                                                      ThreadPool&);

}  // namespace provd::groth16
