// The Groth16 circuit fixtures (tests/circuits/README.md): one directory per case with
// circuit.zkey, witness.wtns, vkey.json and snarkjs's own proof and public signals.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace provd::testing {

// <$PROVD_CIRCUITS_DIR>/<name>; throws with a clear message when the fixture did not run.
inline std::filesystem::path CircuitCase(const std::string& name) {
  const char* dir = std::getenv("PROVD_CIRCUITS_DIR");
  if (dir == nullptr) {
    throw std::runtime_error(
        "PROVD_CIRCUITS_DIR is not set: run through ctest, whose fixture `circuits` makes "
        "them with tests/circuits/generate.sh");
  }
  return std::filesystem::path(dir) / name;
}

}  // namespace provd::testing
