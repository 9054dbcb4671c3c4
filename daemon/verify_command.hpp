// `provd vkey`: a zkey's verification key as snarkjs's verification_key.json.
// `provd verify`: checks a proof.json / public.json pair against a verification key (JSON or
// zkey) with snarkjs's acceptance rules (prover_core/groth16/verifier.hpp).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace provd::daemon {

struct VkeyCommand {
  std::string zkey;
  std::string out;  // empty: standard output
};

struct VerifyCommand {
  std::string vkey;  // exactly one of vkey and zkey
  std::string zkey;
  std::string proof;
  std::string public_signals;
};

void AddVkeyFlags(CLI::App& app, VkeyCommand& command);
void AddVerifyFlags(CLI::App& app, VerifyCommand& command);

// 0 written; 2 the zkey is unreadable or malformed, or the output cannot be written.
int RunVkey(const VkeyCommand& command);
// 0 and "OK" for a valid proof; 1 and the reason for an invalid one; 2 and the field for
// malformed input (a file that is missing or not the JSON it should be).
int RunVerify(const VerifyCommand& command);

}  // namespace provd::daemon
