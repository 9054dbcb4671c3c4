// The blinding scalars: seeded draws are a pure function of (seed, binding, label), unseeded
// draws come from the OS, and the wide reduction is exact.
#include <set>

#include "gtest/gtest.h"
#include "prover_core/groth16/engine.hpp"
#include "prover_core/groth16/randomness.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::groth16 {
namespace {

using Fr = Bn254Engine::Fr;

WideBytes Draw(const char* label, std::optional<std::vector<uint8_t>> seed,
               std::vector<uint8_t> binding, uint32_t attempt = 0) {
  absl::StatusOr<WideBytes> wide = DrawWide(label, seed, binding, attempt);
  EXPECT_TRUE(wide.ok()) << wide.status();
  return wide.ok() ? *wide : WideBytes{};
}

TEST(Randomness, SeededDrawsArePureFunctionsOfTheirInputs) {
  const std::vector<uint8_t> seed = {1, 2, 3};
  const std::vector<uint8_t> binding(64, 7);
  EXPECT_EQ(Draw("r", seed, binding), Draw("r", seed, binding));
  std::set<WideBytes> distinct = {
      Draw("r", seed, binding),
      Draw("s", seed, binding),
      Draw("r", std::vector<uint8_t>{1, 2, 4}, binding),
      Draw("r", std::vector<uint8_t>{1, 2, 3, 0}, binding),
      Draw("r", seed, std::vector<uint8_t>(64, 8)),
      Draw("r", seed, binding, 1),
  };
  EXPECT_EQ(distinct.size(), 6u);
}

TEST(Randomness, UnseededDrawsComeFromTheOs) {
  const std::vector<uint8_t> binding(64, 7);
  EXPECT_NE(Draw("r", std::nullopt, binding), Draw("r", std::nullopt, binding));
}

TEST(Randomness, WideReductionIsExact) {
  // (3 * 2^256 + 7) mod r, computed with Python's integers.
  WideBytes wide{};
  wide[0] = 7;
  wide[32] = 3;
  EXPECT_EQ(field::ToDecimal(ReduceWide<Fr>(wide).ToCanonical()),
            "19052624634359457937016868847204597231584487990681176962899689225102261485560");
  WideBytes r_plus_5{};
  Fr::Modulus().ToBytesLE(std::span(r_plus_5).first(32));
  r_plus_5[0] += 5;  // r ends in ...01: no carry
  EXPECT_EQ(ReduceWide<Fr>(r_plus_5), Fr::FromUint64(5));
}

TEST(Randomness, DrawScalarIsNonzeroAndDeterministic) {
  const std::vector<uint8_t> binding(64, 1);
  absl::StatusOr<Fr> a = DrawScalar<Fr>("r", std::vector<uint8_t>{9}, binding);
  absl::StatusOr<Fr> b = DrawScalar<Fr>("r", std::vector<uint8_t>{9}, binding);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(a->IsZero());
}

}  // namespace
}  // namespace provd::groth16
