#include "daemon/stark_commit_command.hpp"

#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "daemon/atomic_file.hpp"
#include "daemon/stark_tree_file.hpp"
#include "prover_core/io/mapped_file.hpp"
#include "prover_core/stark/trace_commitment.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::daemon {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int Usage(const absl::Status& status) {
  std::cerr << "provd stark-commit: " << status.message() << "\n";
  return kExitUsage;
}

// --verbose: each round's wall time on stderr as it ends.
class RoundTimes final : public plan::ProofObserver {
 public:
  void RoundFinished(plan::Round round, size_t chunks, absl::Duration wall) override {
    std::cerr << absl::StrFormat("provd stark-commit: %s: %d chunk(s) in %.3f s\n",
                                 plan::RoundName(round), chunks, absl::ToDoubleSeconds(wall));
  }
};

}  // namespace

void AddStarkCommitFlags(CLI::App& app, StarkCommitCommand& command) {
  app.add_option("--columns", command.columns,
                 "trace: 2^n rows of n_cols little-endian u64 Goldilocks elements, row-major "
                 "(pilcom's .const / .cm)")
      ->required();
  app.add_option("--n-cols", command.n_cols, "columns of the trace")->required();
  app.add_option("--n-bits", command.n_bits,
                 "log2 of the rows; checked against the file's size (default: from it)");
  app.add_option("--blowup-bits", command.blowup_bits, "log2 of the blow-up factor")
      ->capture_default_str();
  app.add_option("--hash", command.hash,
                 "Merkle hash: pil-stark's MerkleHashGL (poseidon_gl) or MerkleHashBN128 "
                 "(poseidon_bn128)")
      ->check(CLI::IsMember({"poseidon_gl", "poseidon_bn128"}))
      ->capture_default_str();
  app.add_option("--arity", command.arity,
                 "children per node of a poseidon_bn128 tree: 2, 4, 8 or 16 (0: 16, pil-stark's "
                 "default; poseidon_gl trees are binary)")
      ->capture_default_str();
  app.add_option("--root-out", command.root_out,
                 "where to write the root as pil-stark's verification key (default: stdout)");
  app.add_option("--tree-out", command.tree_out,
                 "where to write the extended trace and the tree (pil-stark's tree file)");
  app.add_option("--threads", command.threads, "CPU threads (0: all cores)");
  app.add_flag("--verbose", command.verbose, "per-step timings on stderr");
}

int RunStarkCommit(const StarkCommitCommand& command) {
  ConfigureDefaultThreadPool(command.threads);
  absl::StatusOr<io::MappedFile> file = io::MappedFile::Open(command.columns);
  if (!file.ok()) return Usage(file.status());
  // ValidateShape (in CommitTrace) says why an arity the hash does not take is refused.
  stark::TraceShape shape{command.n_bits, command.n_cols, command.blowup_bits,
                          stark::SchemeWithArity(command.hash == "poseidon_bn128"
                                                     ? stark::MerkleHash::kPoseidonBn128
                                                     : stark::MerkleHash::kPoseidonGoldilocks,
                                                 command.arity)};
  absl::StatusOr<size_t> n_bits =
      stark::RowBitsForSize(file->bytes().size(), command.n_cols, command.columns);
  if (!n_bits.ok()) return Usage(n_bits.status());
  if (shape.n_bits == 0) shape.n_bits = *n_bits;
  const absl::Time start = absl::Now();
  stark::CpuStarkBackend cpu(DefaultThreadPool());
  stark::StarkBackend* const backends[] = {&cpu};
  // The trace goes straight from the mapping into its extension, and its pages leave this
  // process's memory as they are copied: the peak is the extension and the tree.
  const stark::TraceReader read = [&](std::span<stark::Goldilocks> out) {
    return stark::CopyTrace(
        file->bytes(), shape, command.columns, out,
        [&](size_t offset, size_t size) { file->DropResidentPages(offset, size); });
  };
  RoundTimes round_times;
  absl::StatusOr<stark::TraceCommitment> commitment =
      stark::CommitTrace(read, shape, stark::CommitOptions{},
                         stark::CommitContext{backends, &DefaultThreadPool(), nullptr,
                                              command.verbose ? &round_times : nullptr});
  if (absl::IsInvalidArgument(commitment.status())) return Usage(commitment.status());
  if (!commitment.ok()) {
    std::cerr << "provd stark-commit: " << commitment.status().message() << "\n";
    return kExitFailed;
  }
  if (command.verbose) {
    std::cerr << absl::StrFormat(
        "provd stark-commit: 2^%d rows x %d columns, blowup 2^%d, %d threads: committed in "
        "%.3f s\n",
        shape.n_bits, shape.n_cols, shape.blowup_bits, DefaultThreadPool().size(),
        absl::ToDoubleSeconds(absl::Now() - start));
  }
  const std::string root = stark::RootJson(*commitment);
  if (command.root_out.empty()) {
    std::cout << root << "\n";
  } else if (absl::Status s = WriteFileAtomically(command.root_out, root); !s.ok()) {
    return Usage(s);
  }
  if (!command.tree_out.empty()) {
    if (absl::Status s = WriteTreeFile(command.tree_out, *commitment); !s.ok()) return Usage(s);
  }
  return kExitOk;
}

}  // namespace provd::daemon
