#include "daemon/request_validation.hpp"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "prover_core/stark/trace.hpp"

namespace provd::daemon {
namespace {

using provd::v1::JobSpec;
using provd::v1::Priority;

constexpr size_t kSeedBytes = 32;
constexpr size_t kMaxRequestIdLength = 128;
constexpr size_t kMaxJobIdLength = 64;
constexpr size_t kMaxKeyNameLength = 255;
constexpr int64_t kMaxDeadlineSeconds = 30LL * 24 * 3600;
// A .wtns file starts with the magic "wtns", a u32 version and a u32 section count.
constexpr size_t kWitnessHeaderBytes = 12;

absl::Status Invalid(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

bool IsKeyNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
         c == '+';
}

absl::Status ValidateGroth16(const provd::v1::Groth16Spec& spec, const RequestLimits& limits) {
  if (absl::Status s = ValidateKeyName("spec.groth16.zkey_name", spec.zkey_name()); !s.ok()) {
    return s;
  }
  if (spec.has_witness_name()) {
    // The file is checked when the service resolves it in the inputs directory.
    if (absl::Status s = ValidateKeyName("spec.groth16.witness_name", spec.witness_name());
        !s.ok()) {
      return s;
    }
  } else {
    const std::string& witness = spec.witness();
    if (witness.empty()) {
      return Invalid("spec.groth16.witness",
                     "is empty (send the .wtns inline, or name a file with witness_name)");
    }
    if (witness.size() > limits.max_witness_bytes) {
      return Invalid(
          "spec.groth16.witness",
          absl::StrCat(witness.size(), " bytes exceed the limit of ", limits.max_witness_bytes,
                       "; name a file in the inputs directory instead (witness_name)"));
    }
    if (witness.size() < kWitnessHeaderBytes || witness.compare(0, 4, "wtns") != 0) {
      return Invalid("spec.groth16.witness", "is not a snarkjs .wtns file (no \"wtns\" header)");
    }
  }
  if (!spec.seed().empty() && spec.seed().size() != kSeedBytes) {
    return Invalid("spec.groth16.seed", absl::StrCat("must be empty or ", kSeedBytes,
                                                     " bytes, got ", spec.seed().size()));
  }
  return absl::OkStatus();
}

// The shape's ranges, and for inline columns their size and elements; a file in the inputs
// directory is checked when the service resolves it.
absl::Status ValidateStarkCommit(const provd::v1::StarkCommitSpec& spec,
                                 const RequestLimits& limits) {
  constexpr absl::string_view kSpec = "spec.stark_commit";
  if (spec.n_cols() < 1 || spec.n_cols() > stark::kMaxTraceColumns) {
    return Invalid(
        absl::StrCat(kSpec, ".n_cols"),
        absl::StrCat(spec.n_cols(), " is out of range [1, ", stark::kMaxTraceColumns, "]"));
  }
  if (spec.n_bits() != 0 &&
      (spec.n_bits() < stark::kMinTraceBits || spec.n_bits() > stark::kMaxTraceBits)) {
    return Invalid(absl::StrCat(kSpec, ".n_bits"),
                   absl::StrCat(spec.n_bits(), " is out of range [", stark::kMinTraceBits, ", ",
                                stark::kMaxTraceBits, "] (or 0: from the columns' size)"));
  }
  if (spec.blowup_bits() < stark::kMinBlowupBits || spec.blowup_bits() > stark::kMaxBlowupBits) {
    return Invalid(absl::StrCat(kSpec, ".blowup_bits"),
                   absl::StrCat(spec.blowup_bits(), " is out of range [", stark::kMinBlowupBits,
                                ", ", stark::kMaxBlowupBits, "]"));
  }
  if (spec.hash() != provd::v1::STARK_HASH_POSEIDON_GL &&
      spec.hash() != provd::v1::STARK_HASH_POSEIDON_BN128) {
    return Invalid(absl::StrCat(kSpec, ".hash"),
                   "must be STARK_HASH_POSEIDON_GL or STARK_HASH_POSEIDON_BN128");
  }
  if (absl::Status s = stark::ValidateScheme(MerkleSchemeOf(spec)); !s.ok()) {
    return Invalid(absl::StrCat(kSpec, ".merkle_arity"), s.message());
  }
  if (!spec.tree_name().empty()) {
    if (absl::Status s = ValidateKeyName(absl::StrCat(kSpec, ".tree_name"), spec.tree_name());
        !s.ok()) {
      return s;
    }
  }
  switch (spec.columns_source_case()) {
    case provd::v1::StarkCommitSpec::kColumnsName:
      return ValidateKeyName(absl::StrCat(kSpec, ".columns_name"), spec.columns_name());
    case provd::v1::StarkCommitSpec::kColumns:
      break;
    case provd::v1::StarkCommitSpec::COLUMNS_SOURCE_NOT_SET:
      return Invalid(kSpec,
                     "set columns (inline) or columns_name (a file in the inputs directory)");
  }
  const std::string field = absl::StrCat(kSpec, ".columns");
  const std::string& columns = spec.columns();
  if (columns.size() > limits.max_witness_bytes) {
    return Invalid(
        field, absl::StrCat(columns.size(), " bytes exceed the limit of ", limits.max_witness_bytes,
                            "; name a file in the inputs directory instead"));
  }
  absl::StatusOr<stark::TraceShape> shape = StarkShape(spec, columns.size(), field);
  if (!shape.ok()) return shape.status();
  return stark::CheckTrace(
      std::span(reinterpret_cast<const uint8_t*>(columns.data()), columns.size()), *shape, field);
}

}  // namespace

stark::MerkleScheme MerkleSchemeOf(const provd::v1::StarkCommitSpec& spec) {
  return stark::SchemeWithArity(spec.hash() == provd::v1::STARK_HASH_POSEIDON_BN128
                                    ? stark::MerkleHash::kPoseidonBn128
                                    : stark::MerkleHash::kPoseidonGoldilocks,
                                spec.merkle_arity());
}

absl::StatusOr<stark::TraceShape> StarkShape(const provd::v1::StarkCommitSpec& spec,
                                             uint64_t columns_bytes, absl::string_view label) {
  absl::StatusOr<size_t> n_bits = stark::RowBitsForSize(columns_bytes, spec.n_cols(), label);
  if (!n_bits.ok()) return n_bits.status();
  if (spec.n_bits() != 0 && spec.n_bits() != *n_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": ", columns_bytes, " bytes are 2^", *n_bits, " rows of ",
                     spec.n_cols(), " columns, but spec.stark_commit.n_bits is ", spec.n_bits()));
  }
  const stark::TraceShape shape{*n_bits, spec.n_cols(), spec.blowup_bits(), MerkleSchemeOf(spec)};
  if (absl::Status s = stark::ValidateShape(shape); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": ", s.message()));
  }
  return shape;
}

absl::Status ValidateKeyName(absl::string_view field, absl::string_view name) {
  if (name.empty()) return Invalid(field, "is empty");
  if (name.size() > kMaxKeyNameLength) {
    return Invalid(field, absl::StrCat("is longer than ", kMaxKeyNameLength, " bytes"));
  }
  if (name.front() == '/') return Invalid(field, "must be relative to the key directory");
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part.empty()) return Invalid(field, "has an empty path component");
    if (part == "." || part == "..") return Invalid(field, "must not contain \".\" or \"..\"");
    for (char c : part) {
      if (!IsKeyNameChar(c)) {
        return Invalid(field, "may only contain letters, digits, '.', '_', '-', '+' and '/'");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSubmitJob(const provd::v1::SubmitJobRequest& request,
                               const RequestLimits& limits) {
  if (request.priority() != provd::v1::PRIORITY_LOW &&
      request.priority() != provd::v1::PRIORITY_HIGH) {
    return Invalid("priority", "must be PRIORITY_LOW or PRIORITY_HIGH");
  }
  if (!request.request_id().empty()) {
    if (request.request_id().size() > kMaxRequestIdLength) {
      return Invalid("request_id", absl::StrCat("is longer than ", kMaxRequestIdLength, " bytes"));
    }
    for (char c : request.request_id()) {
      if (c <= ' ' || c > '~') return Invalid("request_id", "must be printable ASCII");
    }
  }
  if (request.has_deadline()) {
    const auto& deadline = request.deadline();
    if (deadline.nanos() > 999'999'999) return Invalid("deadline", "nanos must be below 10^9");
    if (deadline.seconds() < 0 || deadline.nanos() < 0 ||
        (deadline.seconds() == 0 && deadline.nanos() == 0)) {
      return Invalid("deadline", "must be positive");
    }
    if (deadline.seconds() > kMaxDeadlineSeconds) {
      return Invalid("deadline", "must be at most 30 days");
    }
  }
  switch (request.spec().kind_case()) {
    case JobSpec::kGroth16:
      return ValidateGroth16(request.spec().groth16(), limits);
    case JobSpec::kStarkCommit:
      return ValidateStarkCommit(request.spec().stark_commit(), limits);
    case JobSpec::KIND_NOT_SET:
      return Invalid("spec", "no job kind is set (expected spec.groth16 or spec.stark_commit)");
  }
  return Invalid("spec", "unknown job kind");
}

absl::Status ValidateJobId(absl::string_view job_id) {
  if (job_id.empty()) return Invalid("job_id", "is empty");
  if (job_id.size() > kMaxJobIdLength) {
    return Invalid("job_id", absl::StrCat("is longer than ", kMaxJobIdLength, " characters"));
  }
  for (char c : job_id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
      return Invalid("job_id", "may only contain letters, digits, '-' and '_'");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateListJobs(const provd::v1::ListJobsRequest& request) {
  for (int state : request.states()) {
    if (state == provd::v1::JOB_STATE_UNSPECIFIED || !provd::v1::JobState_IsValid(state)) {
      return Invalid("states", absl::StrCat("unknown job state ", state));
    }
  }
  if (!provd::v1::Priority_IsValid(request.priority())) {
    return Invalid("priority", absl::StrCat("unknown priority ", request.priority()));
  }
  return absl::OkStatus();
}

}  // namespace provd::daemon
