// A zkey that proves but whose proofs never verify, for the tests of provd's own verification:
// a key "pieced together from two setups".
#pragma once

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "prover_core/groth16/zkey_file.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::testing {

// A copy of `zkey` whose verification key has beta2 where gamma2 belongs: proofs are made as
// before (gamma2 is not used to prove), but none of them verifies.
inline std::string ZkeyWithWrongGamma2(const std::filesystem::path& zkey) {
  absl::StatusOr<std::shared_ptr<const groth16::ZkeyFile>> file = groth16::ZkeyFile::Open(zkey);
  EXPECT_THAT(file.status(), IsOk());
  if (!file.ok()) return "";
  const std::span<const uint8_t> header = (*file)->section(groth16::kZkeyHeader);
  const size_t n8q = 32;  // BN254
  const size_t alpha1 = 4 + n8q + 4 + 32 + 12;
  const size_t beta2 = alpha1 + 2 * 2 * n8q, gamma2 = beta2 + 4 * n8q;
  const std::string bytes = ReadFile(zkey);
  const std::string gamma(reinterpret_cast<const char*>(header.data() + gamma2), 4 * n8q);
  const std::string beta(reinterpret_cast<const char*>(header.data() + beta2), 4 * n8q);
  std::string out = bytes;
  const size_t at = out.find(gamma);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return "";
  out.replace(at, gamma.size(), beta);
  return out;
}

}  // namespace provd::testing
