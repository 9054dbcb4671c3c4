// Writes iden3's binary container (see bin_file.hpp) section by section into an AtomicOutput.
// Every section's size is declared before its body, as the format requires, and checked when
// the section ends, so a writer bug shows as an error instead of a file no reader accepts.
#pragma once

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "prover_core/io/atomic_output.hpp"

namespace provd::groth16 {

class BinFileWriter {
 public:
  // Writes the magic, `version` and the section count.
  static absl::StatusOr<BinFileWriter> Start(io::AtomicOutput& out, absl::string_view magic,
                                             uint32_t version, uint32_t sections);

  absl::Status BeginSection(uint32_t id, uint64_t size);
  absl::Status Write(std::span<const uint8_t> bytes);
  absl::Status WriteU32(uint32_t v);
  // INTERNAL when the bytes written differ from the declared size.
  absl::Status EndSection();
  // INTERNAL unless every declared section was written; then commits the output.
  absl::Status Finish();

 private:
  BinFileWriter(io::AtomicOutput& out, uint32_t sections) : out_(&out), sections_left_(sections) {}

  io::AtomicOutput* out_;
  uint32_t sections_left_;
  uint32_t section_ = 0;  // the open section, 0 if none
  uint64_t declared_ = 0;
  uint64_t written_ = 0;
};

}  // namespace provd::groth16
