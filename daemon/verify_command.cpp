#include "daemon/verify_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "daemon/atomic_file.hpp"
#include "prover_core/groth16/verifier.hpp"

namespace provd::daemon {
namespace {

constexpr int kValid = 0;
constexpr int kInvalid = 1;
constexpr int kMalformed = 2;

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": cannot be read"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": read error"));
  return text.str();
}

absl::StatusOr<groth16::AnyVerificationKey> KeyFromZkey(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const groth16::ZkeyFile>> zkey = groth16::ZkeyFile::Open(path);
  if (!zkey.ok()) return zkey.status();
  return groth16::VerificationKeyFromZkey(**zkey);
}

absl::StatusOr<groth16::AnyVerificationKey> LoadKey(const VerifyCommand& command) {
  if (!command.zkey.empty()) return KeyFromZkey(command.zkey);
  absl::StatusOr<std::string> text = ReadWholeFile(command.vkey, "verification key");
  if (!text.ok()) return text.status();
  absl::StatusOr<groth16::AnyVerificationKey> key = groth16::ParseVerificationKeyJson(*text);
  if (!key.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(command.vkey, ": ", key.status().message()));
  }
  return key;
}

}  // namespace

void AddVkeyFlags(CLI::App& app, VkeyCommand& command) {
  app.add_option("--zkey", command.zkey, "Groth16 proving key (.zkey)")->required();
  app.add_option("--out", command.out, "verification_key.json to write (default: stdout)");
}

void AddVerifyFlags(CLI::App& app, VerifyCommand& command) {
  CLI::Option* vkey =
      app.add_option("--vkey", command.vkey, "verification_key.json (snarkjs's format)");
  CLI::Option* zkey = app.add_option("--zkey", command.zkey, "or the proving key it comes from");
  vkey->excludes(zkey);
  app.add_option("--proof", command.proof, "proof.json")->required();
  app.add_option("--public", command.public_signals, "public.json")->required();
}

int RunVkey(const VkeyCommand& command) {
  absl::StatusOr<groth16::AnyVerificationKey> key = KeyFromZkey(command.zkey);
  if (!key.ok()) {
    std::cerr << "provd vkey: " << key.status().message() << "\n";
    return kMalformed;
  }
  const std::string json = groth16::VerificationKeyJson(*key);
  if (command.out.empty()) {
    std::cout << json;
    return kValid;
  }
  if (absl::Status s = WriteFileAtomically(command.out, json); !s.ok()) {
    std::cerr << "provd vkey: " << s.message() << "\n";
    return kMalformed;
  }
  return kValid;
}

int RunVerify(const VerifyCommand& command) {
  if (command.vkey.empty() == command.zkey.empty()) {
    std::cerr << "provd verify: give exactly one of --vkey and --zkey\n";
    return kMalformed;
  }
  absl::StatusOr<groth16::AnyVerificationKey> key = LoadKey(command);
  absl::StatusOr<std::string> proof = ReadWholeFile(command.proof, "proof");
  absl::StatusOr<std::string> inputs = ReadWholeFile(command.public_signals, "public signals");
  for (const absl::Status& s : {key.status(), proof.status(), inputs.status()}) {
    if (!s.ok()) {
      std::cerr << "provd verify: " << s.message() << "\n";
      return kMalformed;
    }
  }
  absl::StatusOr<groth16::VerifyOutcome> outcome =
      groth16::VerifyProofJson(groth16::PrepareVerificationKey(*std::move(key)), *proof, *inputs);
  if (!outcome.ok()) {
    std::cerr << "provd verify: " << outcome.status().message() << "\n";
    return kMalformed;
  }
  if (!outcome->valid) {
    std::cout << "INVALID: " << outcome->reason << "\n";
    return kInvalid;
  }
  std::cout << "OK\n";
  return kValid;
}

}  // namespace provd::daemon
