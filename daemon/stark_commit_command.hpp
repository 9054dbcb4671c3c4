// `provd stark-commit`: the trace commitment of a pilcom polynomial file (coset LDE + Poseidon
// Merkle tree, pil-stark's buildConstTree) without the daemon; the root as pil-stark's
// verification key and, optionally, the whole tree in pil-stark's tree file format.
#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace provd::daemon {

struct StarkCommitCommand {
  std::string columns;
  size_t n_cols = 0;
  size_t n_bits = 0;  // 0: from the file's size
  size_t blowup_bits = 1;
  std::string hash = "poseidon_gl";
  size_t arity = 0;      // 0: the hash's default
  std::string root_out;  // empty: standard output
  std::string tree_out;  // empty: not written
  size_t threads = 0;
  bool verbose = false;
};

void AddStarkCommitFlags(CLI::App& app, StarkCommitCommand& command);

// 0 written; 1 the commitment failed; 2 bad input (a missing or malformed file, a shape out of
// range) or an output that cannot be written, with the reason on stderr.
int RunStarkCommit(const StarkCommitCommand& command);

}  // namespace provd::daemon
