// The STARK backend of a simulated GPU (simulated_device.hpp, `--simulated-gpus N`): each call
// uploads exactly what a device kernel would need (the chunk's columns, rows or child digests)
// into the device's accounted memory, runs the CPU kernel on that copy, and downloads the
// result into the caller's buffers. Results are the CPU's, so a commitment whose chunks moved
// between it and the CPU has the same bytes; what it exercises is arbitration, preemption
// between chunks, re-upload and the fallbacks of injected faults.
#pragma once

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prover_core/simulated_device.hpp"
#include "prover_core/stark/stark_backend.hpp"

namespace provd::stark {

class SimulatedStarkGpu final : public StarkBackend {
 public:
  SimulatedStarkGpu(size_t device, ThreadPool& pool, const SimulatedGpuOptions& options = {})
      : cpu_(pool), device_(device, absl::StrCat("simulated-gpu:", device), options) {}

  std::string_view name() const override { return device_.name(); }
  bool is_cpu() const override { return false; }

  absl::Status ExtendColumns(std::span<const Goldilocks> trace, const TraceShape& shape,
                             size_t first_col, size_t col_count,
                             std::span<Goldilocks> extended) override {
    if (absl::Status s = CheckLdeRange(trace, shape, first_col, col_count, extended); !s.ok()) {
      return s;
    }
    if (col_count == 0) return absl::OkStatus();
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    // The batch as a trace of its own: col_count columns, row-major, then its extension.
    const TraceShape batch{shape.n_bits, col_count, shape.blowup_bits, shape.merkle};
    absl::StatusOr<std::span<Goldilocks>> memory =
        Allocate<Goldilocks>(batch.elements() + batch.extended_elements());
    if (!memory.ok()) return memory.status();
    const std::span<Goldilocks> in = memory->first(batch.elements());
    const std::span<Goldilocks> out = memory->subspan(batch.elements());
    for (size_t r = 0; r < shape.rows(); ++r) {
      std::memcpy(&in[r * col_count], &trace[r * shape.n_cols + first_col],
                  col_count * sizeof(Goldilocks));
    }
    if (absl::Status s = cpu_.ExtendColumns(in, batch, 0, col_count, out); !s.ok()) return s;
    for (size_t r = 0; r < shape.extended_rows(); ++r) {
      std::memcpy(&extended[r * shape.n_cols + first_col], &out[r * col_count],
                  col_count * sizeof(Goldilocks));
    }
    return absl::OkStatus();
  }

  absl::Status HashLeaves(const MerkleScheme& scheme, std::span<const Goldilocks> rows,
                          size_t width, size_t first_row, size_t row_count,
                          std::span<uint64_t> nodes) override {
    if (absl::Status s = ValidateScheme(scheme); !s.ok()) return s;
    if (absl::Status s = CheckLeafRange(rows, width, first_row, row_count, nodes); !s.ok()) {
      return s;
    }
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    // The rows, then room for their digests (one slab: the device holds one allocation).
    absl::StatusOr<std::span<Goldilocks>> memory =
        Allocate<Goldilocks>(row_count * (width + kDigestWords));
    if (!memory.ok()) return memory.status();
    const std::span<Goldilocks> in = memory->first(row_count * width);
    const std::span<uint64_t> out(reinterpret_cast<uint64_t*>(memory->data() + in.size()),
                                  row_count * kDigestWords);
    std::memcpy(in.data(), &rows[first_row * width], in.size_bytes());
    if (absl::Status s = cpu_.HashLeaves(scheme, in, width, 0, row_count, out); !s.ok()) return s;
    std::memcpy(&nodes[first_row * kDigestWords], out.data(), out.size_bytes());
    return absl::OkStatus();
  }

  absl::Status HashLevel(const MerkleScheme& scheme, const MerkleLevel& level, size_t first,
                         size_t count, std::span<uint64_t> nodes) override {
    if (absl::Status s = CheckLevelRange(level, first, count, nodes); !s.ok()) return s;
    if (absl::Status s = device_.BeginCall(); !s.ok()) return s;
    // The children of hashes [first, first + count), then room for their parents.
    const size_t children = count * level.arity * kDigestWords;
    absl::StatusOr<std::span<uint64_t>> memory =
        Allocate<uint64_t>(children + count * kDigestWords);
    if (!memory.ok()) return memory.status();
    std::memcpy(memory->data(), &nodes[level.input_offset + first * level.arity * kDigestWords],
                children * sizeof(uint64_t));
    const MerkleLevel on_device{0, children, count, level.arity};
    if (absl::Status s = cpu_.HashLevel(scheme, on_device, 0, count, *memory); !s.ok()) return s;
    std::memcpy(&nodes[level.output_offset + first * kDigestWords], &(*memory)[children],
                count * kDigestWords * sizeof(uint64_t));
    return absl::OkStatus();
  }

  void ReleaseDeviceMemory() override { device_.Release(); }

  uint64_t bytes_resident() const { return device_.bytes_resident(); }
  uint64_t uploads() const { return device_.uploads(); }
  uint64_t releases() const { return device_.releases(); }

 private:
  // Words of device memory (Goldilocks elements or node words, both 8 bytes).
  template <typename T>
  absl::StatusOr<std::span<T>> Allocate(size_t elements) {
    static_assert(sizeof(T) == sizeof(uint64_t));
    absl::StatusOr<std::span<uint8_t>> bytes = device_.Allocate(elements * sizeof(T));
    if (!bytes.ok()) return bytes.status();
    return std::span<T>(reinterpret_cast<T*>(bytes->data()), elements);
  }

  CpuStarkBackend cpu_;
  SimulatedDevice device_;
};

}  // namespace provd::stark
