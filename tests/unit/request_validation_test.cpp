#include "daemon/request_validation.hpp"

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.hpp"

namespace provd::daemon {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kWitnessHeader[] = "wtns\x02\0\0\0\x02\0\0\0";

provd::v1::SubmitJobRequest ValidRequest() {
  provd::v1::SubmitJobRequest request;
  request.set_priority(provd::v1::PRIORITY_HIGH);
  auto* spec = request.mutable_spec()->mutable_groth16();
  spec->set_zkey_name("circuits/multiplier.zkey");
  spec->set_witness(std::string(kWitnessHeader, sizeof(kWitnessHeader) - 1) + "payload");
  return request;
}

absl::Status Validate(const provd::v1::SubmitJobRequest& request) {
  return ValidateSubmitJob(request, RequestLimits{});
}

TEST(RequestValidationTest, AcceptsAWellFormedGroth16Job) {
  EXPECT_THAT(Validate(ValidRequest()), IsOk());
  auto request = ValidRequest();
  request.mutable_spec()->mutable_groth16()->set_seed(std::string(32, '\x07'));
  request.set_request_id("batch-17/attempt-1");
  request.mutable_deadline()->set_seconds(600);
  EXPECT_THAT(Validate(request), IsOk());
}

TEST(RequestValidationTest, RequiresAPriority) {
  auto request = ValidRequest();
  request.set_priority(provd::v1::PRIORITY_UNSPECIFIED);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("priority: must be PRIORITY_LOW or")));
  request.set_priority(static_cast<provd::v1::Priority>(7));
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("priority")));
}

TEST(RequestValidationTest, RequiresAJobKind) {
  auto request = ValidRequest();
  request.mutable_spec()->clear_kind();
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec: no job kind")));
}

TEST(RequestValidationTest, KeyNamesCannotLeaveTheKeyDirectory) {
  for (const char* bad :
       {"", "/etc/passwd", "../secret.zkey", "a/../../b.zkey", "a//b.zkey", "./a.zkey", "a/.",
        "with space.zkey", "back\\slash.zkey", "nul\x01.zkey"}) {
    auto request = ValidRequest();
    request.mutable_spec()->mutable_groth16()->set_zkey_name(bad);
    EXPECT_THAT(Validate(request),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.groth16.zkey_name")))
        << bad;
  }
  auto request = ValidRequest();
  request.mutable_spec()->mutable_groth16()->set_zkey_name(std::string(256, 'a'));
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("255")));
}

TEST(RequestValidationTest, WitnessMustBeANonEmptyWtnsWithinTheLimit) {
  auto request = ValidRequest();
  request.mutable_spec()->mutable_groth16()->clear_witness();
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("witness: is empty")));
  request.mutable_spec()->mutable_groth16()->set_witness("not a witness at all");
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no \"wtns\" header")));
  request = ValidRequest();
  RequestLimits tight;
  tight.max_witness_bytes = 8;
  EXPECT_THAT(ValidateSubmitJob(request, tight),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exceed the limit of 8")));
}

TEST(RequestValidationTest, SeedIsEmptyOrExactly32Bytes) {
  auto request = ValidRequest();
  request.mutable_spec()->mutable_groth16()->set_seed(std::string(31, 'x'));
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.groth16.seed: must be empty or 32")));
}

TEST(RequestValidationTest, RequestIdIsShortPrintableAscii) {
  auto request = ValidRequest();
  request.set_request_id(std::string(129, 'r'));
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  request.set_request_id("tab\there");
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("printable ASCII")));
}

TEST(RequestValidationTest, DeadlineMustBePositiveAndBounded) {
  auto request = ValidRequest();
  request.mutable_deadline()->set_seconds(0);
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("positive")));
  request.mutable_deadline()->set_seconds(-5);
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("positive")));
  request.mutable_deadline()->set_seconds(10);
  request.mutable_deadline()->set_nanos(1'000'000'000);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nanos")));
  request.mutable_deadline()->set_nanos(0);
  request.mutable_deadline()->set_seconds(31LL * 24 * 3600);
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("30 days")));
}

provd::v1::SubmitJobRequest StarkRequest(size_t rows, uint32_t n_cols) {
  provd::v1::SubmitJobRequest request;
  request.set_priority(provd::v1::PRIORITY_LOW);
  auto* spec = request.mutable_spec()->mutable_stark_commit();
  spec->set_columns(std::string(rows * n_cols * 8, '\x01'));
  spec->set_n_cols(n_cols);
  spec->set_blowup_bits(2);
  spec->set_hash(provd::v1::STARK_HASH_POSEIDON_GL);
  return request;
}

TEST(RequestValidationTest, StarkCommitShapesAreCheckedAgainstTheColumns) {
  EXPECT_THAT(Validate(StarkRequest(8, 3)), IsOk());
  auto request = StarkRequest(8, 3);
  request.mutable_spec()->mutable_stark_commit()->set_n_bits(3);
  EXPECT_THAT(Validate(request), IsOk());
  request.mutable_spec()->mutable_stark_commit()->set_n_bits(2);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("but spec.stark_commit.n_bits is 2")));
  request.mutable_spec()->mutable_stark_commit()->set_n_bits(29);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.n_bits: 29")));
  EXPECT_THAT(Validate(StarkRequest(6, 3)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.stark_commit.columns: 144 bytes is not a power-of-two")));
  EXPECT_THAT(Validate(StarkRequest(1, 3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("n_bits 0 is out of range")));
  request = StarkRequest(8, 3);
  request.mutable_spec()->mutable_stark_commit()->set_n_cols(0);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.n_cols: 0")));
  request.mutable_spec()->mutable_stark_commit()->set_n_cols(65537);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.n_cols: 65537")));
  for (uint32_t blowup : {0u, 9u}) {
    request = StarkRequest(8, 3);
    request.mutable_spec()->mutable_stark_commit()->set_blowup_bits(blowup);
    EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("spec.stark_commit.blowup_bits")));
  }
  request = StarkRequest(8, 3);
  request.mutable_spec()->mutable_stark_commit()->set_hash(provd::v1::STARK_HASH_UNSPECIFIED);
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.hash: must be")));
}

TEST(RequestValidationTest, StarkCommitColumnsAreInlineOrANameAndCanonical) {
  auto request = StarkRequest(4, 1);
  std::string columns = request.spec().stark_commit().columns();
  const uint64_t p = 0xffffffff00000001ull;
  std::memcpy(columns.data() + 16, &p, 8);
  request.mutable_spec()->mutable_stark_commit()->set_columns(columns);
  EXPECT_THAT(Validate(request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the element at row 2, column 0 is 18446744069414584321")));
  request.mutable_spec()->mutable_stark_commit()->clear_columns_source();
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("set columns (inline) or columns_name")));
  request.mutable_spec()->mutable_stark_commit()->set_columns_name("traces/a.cm");
  EXPECT_THAT(Validate(request), IsOk());
  request.mutable_spec()->mutable_stark_commit()->set_columns_name("/etc/passwd");
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.columns_name")));
  request.mutable_spec()->mutable_stark_commit()->set_columns_name("a.cm");
  request.mutable_spec()->mutable_stark_commit()->set_tree_name("../a.tree");
  EXPECT_THAT(Validate(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("spec.stark_commit.tree_name")));
  RequestLimits small;
  small.max_witness_bytes = 16;
  EXPECT_THAT(ValidateSubmitJob(StarkRequest(4, 1), small),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("32 bytes exceed the limit of 16; name a file")));
}

TEST(RequestValidationTest, JobIds) {
  EXPECT_THAT(ValidateJobId("01HZX3-abc_9"), IsOk());
  EXPECT_THAT(ValidateJobId(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job_id")));
  EXPECT_THAT(ValidateJobId("a/b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job_id")));
  EXPECT_THAT(ValidateJobId(std::string(65, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("64")));
}

TEST(RequestValidationTest, ListFiltersMustBeKnownValues) {
  provd::v1::ListJobsRequest request;
  EXPECT_THAT(ValidateListJobs(request), IsOk());
  request.add_states(provd::v1::JOB_STATE_RUNNING);
  EXPECT_THAT(ValidateListJobs(request), IsOk());
  request.add_states(provd::v1::JOB_STATE_UNSPECIFIED);
  EXPECT_THAT(ValidateListJobs(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("states")));
  request.clear_states();
  request.set_priority(static_cast<provd::v1::Priority>(9));
  EXPECT_THAT(ValidateListJobs(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("priority")));
}

}  // namespace
}  // namespace provd::daemon
