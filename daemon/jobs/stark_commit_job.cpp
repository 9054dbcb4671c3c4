// A stark_commit job: its columns (spooled inline bytes, or a file in the inputs directory,
// read in place through a mapping), checked against the stated shape, committed in rounds and
// chunks on the CPU and the lease's devices, the root into the result and the tree, when asked,
// into the outputs directory.
#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "daemon/input_files.hpp"
#include "daemon/jobs/job_observer.hpp"
#include "daemon/jobs/job_runner.hpp"
#include "daemon/jobs/labels.hpp"
#include "daemon/request_validation.hpp"
#include "daemon/stark_tree_file.hpp"
#include "prover_core/io/mapped_file.hpp"
#include "prover_core/io/resolve_inside.hpp"
#include "prover_core/stark/commit_on_devices.hpp"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

// The job's columns and what keeps their bytes alive.
struct Columns {
  std::variant<std::string, io::MappedFile> storage;
  std::span<const uint8_t> bytes;

  void DropPages(size_t offset, size_t size) const {
    if (const auto* file = std::get_if<io::MappedFile>(&storage)) {
      file->DropResidentPages(offset, size);
    }
  }
  // Once they are copied into the extension: their memory is the job's no longer.
  void Release() {
    storage = std::string();
    bytes = {};
  }
};

absl::StatusOr<Columns> LoadColumns(const StartedJob& job, JobStore& store,
                                    const std::filesystem::path& inputs_dir) {
  const provd::v1::StarkCommitSpec& spec = job.spec.stark_commit();
  if (spec.has_columns_name()) {
    absl::StatusOr<io::MappedFile> file = OpenInput(inputs_dir, spec.columns_name());
    if (!file.ok()) return file.status();
    Columns columns{*std::move(file), {}};
    columns.bytes = std::get<io::MappedFile>(columns.storage).bytes();
    return columns;
  }
  absl::StatusOr<std::string> spooled = store.ReadWitness(job.id);
  if (!spooled.ok()) return spooled.status();
  Columns columns{*std::move(spooled), {}};
  const std::string& bytes = std::get<std::string>(columns.storage);
  columns.bytes = std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return columns;
}

// tree_name inside the outputs directory, its parent directories created there.
absl::StatusOr<std::filesystem::path> TreePath(const std::filesystem::path& outputs_dir,
                                               const std::string& name) {
  const std::filesystem::path relative(name);
  std::error_code ec;  // a directory that cannot be made is reported by ResolveInside
  if (relative.has_parent_path()) {
    std::filesystem::create_directories(outputs_dir / relative.parent_path(), ec);
  }
  absl::StatusOr<std::filesystem::path> parent = io::ResolveInside(
      outputs_dir, relative.has_parent_path() ? relative.parent_path().string() : ".",
      "tree_name's directory", "the outputs directory");
  if (!parent.ok()) return parent.status();
  return *parent / relative.filename();
}

}  // namespace

std::optional<JobEnding> JobRunner::RunStarkCommit(const StartedJob& job,
                                                   const JobControl& control) {
  const provd::v1::StarkCommitSpec& spec = job.spec.stark_commit();
  const std::string label =
      spec.has_columns_name()
          ? absl::StrCat("spec.stark_commit.columns_name \"", spec.columns_name(), "\"")
          : std::string("spec.stark_commit.columns");
  absl::StatusOr<Columns> columns = LoadColumns(job, store_, options_.inputs_dir);
  if (!columns.ok()) return EndingOfError(columns.status(), control);
  absl::StatusOr<stark::TraceShape> shape = StarkShape(spec, columns->bytes.size(), label);
  if (!shape.ok()) return EndingOfError(shape.status(), control);
  JobObserver observer(job.id, PriorityLabel(job.priority), store_, hub_, options_.metrics);
  observer.set_on_device_retired(options_.on_device_retired);
  // Device backends of trace commitments exist for simulated GPUs only (no CUDA STARK kernels
  // yet): with a real GPU among the arbiter's devices, the job runs on the CPU and leaves the
  // GPUs to Groth16 jobs.
  const bool devices_usable = options_.arbiter != nullptr &&
                              std::ranges::all_of(options_.arbiter->device_ids(), [&](size_t id) {
                                return id < options_.simulated_gpus;
                              });
  if (options_.arbiter != nullptr && !devices_usable) {
    spdlog::info("job {}: stark_commit runs on the CPU (no CUDA STARK kernels yet)", job.id);
  }
  std::optional<arbiter::DeviceLease> lease;
  if (devices_usable) lease = Lease(job, observer);
  observer.set_lease(lease ? &*lease : nullptr);
  stark::StarkDevicePlan devices;
  if (lease) {
    devices.lease = &*lease;
    devices.simulated_gpus = options_.simulated_gpus;
    devices.simulated = options_.simulated;
  }
  const absl::Time start = absl::Now();
  // The columns go into the extension a block at a time (a named file is checked element by
  // element here, not at submission: it may be gigabytes), then their memory is released.
  const stark::TraceReader read = [&](std::span<stark::Goldilocks> out) {
    absl::Status s =
        stark::CopyTrace(columns->bytes, *shape, label, out,
                         [&](size_t offset, size_t size) { columns->DropPages(offset, size); });
    columns->Release();
    return s;
  };
  absl::StatusOr<stark::TraceCommitment> commitment = stark::CommitOnDevices(
      read, *shape, options_.stark, PoolFor(job), devices, &observer, control.flag());
  observer.Finish();
  lease.reset();  // the GPU is free for others while the tree is written
  if (!commitment.ok()) return EndingOfError(commitment.status(), control);
  spdlog::info("job {}: committed 2^{} rows x {} columns (blowup 2^{}) in {}", job.id,
               shape->n_bits, shape->n_cols, shape->blowup_bits,
               absl::FormatDuration(absl::Now() - start));

  JobEnding ending;
  ending.state = provd::v1::JOB_STATE_SUCCEEDED;
  if (!spec.tree_name().empty()) {
    absl::StatusOr<std::filesystem::path> path = TreePath(options_.outputs_dir, spec.tree_name());
    if (!path.ok()) return EndingOfError(path.status(), control);
    if (absl::Status s = WriteTreeFile(*path, *commitment, 0640); !s.ok()) {
      return EndingOfError(absl::UnavailableError(absl::StrCat(
                               "cannot write the tree \"", spec.tree_name(), "\": ", s.message())),
                           control);
    }
    ending.result.set_stark_tree_name(spec.tree_name());
  }
  for (const uint64_t x : stark::RootIntegers(*commitment)) ending.result.add_stark_root(x);
  ending.result.set_stark_root_json(stark::RootJson(*commitment));
  return ending;
}

}  // namespace provd::daemon
