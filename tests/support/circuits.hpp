// The Groth16 circuit fixtures (tests/circuits/README.md): one directory per case with
// circuit.zkey, witness.wtns, vkey.json and snarkjs's own proof and public signals; and the
// snarkjs verifier that checks proofs made from them.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

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

// Runs `snarkjs groth16 verify` (the pinned one, through `snarkjs_sh`, tests/circuits/snarkjs.sh)
// on the given proof; true when it accepts.
inline bool SnarkjsAccepts(const std::string& snarkjs_sh, const std::filesystem::path& vkey,
                           const std::string& public_json, const std::string& proof_json) {
  TempDir dir;
  WriteFile(dir / "public.json", public_json);
  WriteFile(dir / "proof.json", proof_json);
  absl::StatusOr<ExitInfo> run =
      RunToCompletion({snarkjs_sh, "groth16", "verify", vkey.string(),
                       (dir / "public.json").string(), (dir / "proof.json").string()},
                      dir.path(), absl::Seconds(60));
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return false;
  const bool accepted = run->exited && run->code == 0;
  // The exit status and the message must agree, or the oracle is not what we think it is.
  EXPECT_EQ(accepted, run->stdout_text.find("OK!") != std::string::npos)
      << run->stdout_text << run->stderr_text;
  return accepted;
}

}  // namespace provd::testing
