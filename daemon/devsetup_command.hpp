// `provd devsetup`: an insecure single-party Groth16 setup of a circom .r1cs into a .zkey that
// snarkjs and provd prove with (prover_core/groth16/dev_setup.hpp), for benchmarks and
// development. It refuses to run without --insecure, and will not replace an existing file
// without --force, so that a dev key never silently takes a production key's place.
#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace provd::daemon {

struct DevSetupCommand {
  std::string r1cs;
  std::string zkey_out;
  std::string vkey_out;  // empty: not written
  std::string curve;     // empty: the r1cs's
  std::string seed;      // empty: secrets from the OS
  bool insecure = false;
  bool force = false;
  size_t threads = 0;
};

void AddDevSetupFlags(CLI::App& app, DevSetupCommand& command);

// 0 written; 1 the setup or a write failed; 2 refused (no --insecure, the output exists
// without --force, a missing or malformed r1cs, a curve that does not match it).
int RunDevSetup(const DevSetupCommand& command);

}  // namespace provd::daemon
