// Algebraic properties of every field, on seeded random elements. Byte-exact agreement with
// ffjavascript is checked in field_vectors_test.cpp.
#include <array>
#include <iostream>
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"

namespace provd::field {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::provd::testing::TestRng;

template <typename F>
class PrimeFieldTest : public ::testing::Test {};

using PrimeFields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr, Goldilocks>;
TYPED_TEST_SUITE(PrimeFieldTest, PrimeFields);

TYPED_TEST(PrimeFieldTest, RingAxiomsHoldOnRandomElements) {
  using F = TypeParam;
  TestRng rng(1);
  for (int i = 0; i < 200; ++i) {
    F a = rng.NextField<F>(), b = rng.NextField<F>(), c = rng.NextField<F>();
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), F::Zero());
    EXPECT_EQ(a * F::One(), a);
    EXPECT_EQ(a.Square(), a * a);
    EXPECT_EQ(a.Double(), a + a);
  }
}

TYPED_TEST(PrimeFieldTest, InverseAndPow) {
  using F = TypeParam;
  TestRng rng(2);
  EXPECT_EQ(F::Zero().Inverse(), F::Zero());
  for (int i = 0; i < 50; ++i) {
    F a = rng.NextField<F>();
    if (a.IsZero()) continue;
    EXPECT_EQ(a * a.Inverse(), F::One());
    EXPECT_EQ(a.Pow(uint64_t{5}), a * a * a * a * a);
    // Fermat: a^(p-1) = 1.
    typename F::Int p_minus_1 = F::Modulus();
    p_minus_1.SubInPlace(F::Int::FromUint64(1));
    EXPECT_TRUE(a.Pow(p_minus_1).IsOne());
  }
}

TYPED_TEST(PrimeFieldTest, SqrtOfSquaresAndNoneForNonSquares) {
  using F = TypeParam;
  TestRng rng(3);
  int squares = 0, non_squares = 0;
  for (int i = 0; i < 60; ++i) {
    F a = rng.NextField<F>();
    std::optional<F> root = a.Sqrt();
    ASSERT_EQ(root.has_value(), a.IsSquare());
    if (root) {
      EXPECT_EQ(root->Square(), a);
      ++squares;
    } else {
      ++non_squares;
    }
    std::optional<F> of_square = a.Square().Sqrt();
    ASSERT_TRUE(of_square.has_value());
    EXPECT_TRUE(*of_square == a || *of_square == -a);
  }
  EXPECT_GT(squares, 10);
  EXPECT_GT(non_squares, 10);
}

TYPED_TEST(PrimeFieldTest, NonResidueIsTheSmallestOne) {
  using F = TypeParam;
  const uint64_t nqr = F::NonResidue();
  EXPECT_FALSE(F::FromUint64(nqr).IsSquare());
  for (uint64_t k = 2; k < nqr; ++k) EXPECT_TRUE(F::FromUint64(k).IsSquare()) << k;
}

TYPED_TEST(PrimeFieldTest, SerializationRoundTripsAndRejectsNonCanonical) {
  using F = TypeParam;
  TestRng rng(4);
  std::array<uint8_t, F::kBytes> bytes{};
  for (int i = 0; i < 20; ++i) {
    F a = rng.NextField<F>();
    a.ToBytesLE(bytes);
    auto back = F::FromBytesLE(bytes);
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(*back, a);
    a.ToMontBytesLE(bytes);
    auto mont = F::FromMontBytesLE(bytes);
    ASSERT_THAT(mont, IsOk());
    EXPECT_EQ(*mont, a);
  }
  F::Modulus().ToBytesLE(bytes);
  EXPECT_THAT(F::FromBytesLE(bytes),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("non-canonical")));
  EXPECT_THAT(F::FromMontBytesLE(bytes),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("non-canonical")));
  EXPECT_THAT(F::FromBytesLE(std::span<const uint8_t>(bytes).first(F::kBytes - 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("expected")));
}

// Operands that make carries longest or products smallest: 0, +-1, +-2, raw Montgomery values
// 1, p - 1, p - 2, and the largest values below p with all-ones low limbs (64-bit and 32-bit
// words).
template <typename F>
std::vector<F> EdgeElements() {
  using Int = typename F::Int;
  std::vector<F> edge = {F::Zero(), F::One(), -F::One(), F::FromUint64(2), -F::FromUint64(2)};
  Int p_minus = F::Modulus();
  p_minus.SubInPlace(Int::FromUint64(1));
  edge.push_back(F::FromMontgomery(Int::FromUint64(1)));
  edge.push_back(F::FromMontgomery(p_minus));
  p_minus.SubInPlace(Int::FromUint64(1));
  edge.push_back(F::FromMontgomery(p_minus));
  for (size_t limb = 0; limb + 1 < Int::kLimbs; ++limb) {
    Int ones = F::Modulus();
    for (size_t i = 0; i <= limb; ++i) ones.limbs[i] = ~uint64_t{0};
    ones.limbs[limb + 1] -= 1;
    edge.push_back(F::FromMontgomery(ones));
    Int half_ones = F::Modulus();  // all-ones up to the low 32-bit word of limb + 1
    for (size_t i = 0; i <= limb; ++i) half_ones.limbs[i] = ~uint64_t{0};
    half_ones.limbs[limb + 1] = (half_ones.limbs[limb + 1] & ~uint64_t{0xffffffff}) - 1;
    if (half_ones < F::Modulus()) edge.push_back(F::FromMontgomery(half_ones));
  }
  return edge;
}

// The Montgomery fields, whose products take the x86-64 assembly path on CPUs with BMI2 and ADX
// and whose 4-limb sums and differences always do on x86-64 (x86_64_field.hpp): every result
// must equal the portable one, including the operands that make the carries longest (all-ones
// limbs, p - 1) and the smallest ones.
template <typename F>
class MontgomeryFieldTest : public ::testing::Test {};
using MontgomeryFields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr>;
TYPED_TEST_SUITE(MontgomeryFieldTest, MontgomeryFields);

TYPED_TEST(MontgomeryFieldTest, ArithmeticEqualsThePortablePathAndTheDefinition) {
  using F = TypeParam;
  using Int = typename F::Int;
#if PROVD_HAVE_X86_64_MONT_MUL
  std::cout << "x86-64 assembly products: "
            << (x86_64::kMulxAdxAvailable ? "in use" : "not supported by this CPU") << "\n";
#endif
  const std::vector<F> edge = EdgeElements<F>();
  // Sums and differences (assembly for 4 limbs) against their definition on the integers.
  auto sum = [](const F& a, const F& b) {
    Int s = a.Montgomery();
    s.AddInPlace(b.Montgomery());
    if (s >= F::Modulus()) s.SubInPlace(F::Modulus());
    return F::FromMontgomery(s);
  };
  auto difference = [](const F& a, const F& b) {
    Int d = a.Montgomery();
    if (d.SubInPlace(b.Montgomery()) != 0) d.AddInPlace(F::Modulus());
    return F::FromMontgomery(d);
  };
  for (const F& a : edge) {
    for (const F& b : edge) {
      EXPECT_EQ(a * b, F::MulPortable(a, b));
      EXPECT_EQ(a + b, sum(a, b));
      EXPECT_EQ(a - b, difference(a, b));
    }
  }
  TestRng rng(7);
  for (int i = 0; i < 100000; ++i) {
    const F a = rng.NextField<F>(), b = rng.NextField<F>();
    ASSERT_EQ(a * b, F::MulPortable(a, b)) << "random pair " << i;
    ASSERT_EQ(a.Square(), F::MulPortable(a, a)) << "random square " << i;
    ASSERT_EQ(a + b, sum(a, b)) << "random pair " << i;
    ASSERT_EQ(a - b, difference(a, b)) << "random pair " << i;
  }
}

// The 32-bit-word product (mont_mul_words32.hpp) that device builds with
// PROVD_CUDA_PTX_MONT_MUL run, here under the host's model of PTX's carry flag: the algorithm
// and its bounds (the carries it drops) are checked in CI; that PTX behaves as the model is
// checked by the device parity test (tests/gpu/field_ops_gpu_test.cpp).
TYPED_TEST(MontgomeryFieldTest, ThirtyTwoBitWordProductEqualsThePortableOne) {
  using F = TypeParam;
  using Chain = words32::HostCarryChain;
  const std::vector<F> edge = EdgeElements<F>();
  for (const F& a : edge) {
    for (const F& b : edge) {
      EXPECT_EQ(F::template MulWords32<Chain>(a, b), F::MulPortable(a, b));
    }
  }
  TestRng rng(8);
  for (int i = 0; i < 100000; ++i) {
    const F a = rng.NextField<F>(), b = rng.NextField<F>();
    ASSERT_EQ(F::template MulWords32<Chain>(a, b), F::MulPortable(a, b)) << "random pair " << i;
    ASSERT_EQ(F::template MulWords32<Chain>(a, a), F::MulPortable(a, a)) << "random square " << i;
  }
  static_assert(
      F::template MulWords32<Chain>(F::FromUint64(6), F::FromUint64(7)) == F::FromUint64(42),
      "the model runs at compile time too");
}

TEST(FieldConstantsTest, TwoAdicities) {
  EXPECT_EQ(Bn254Fr::kTwoAdicity, 28u);
  EXPECT_EQ(Bls12381Fr::kTwoAdicity, 32u);
  EXPECT_EQ(Goldilocks::kTwoAdicity, 32u);
  EXPECT_EQ(Bn254Fq::kTwoAdicity, 1u);
  EXPECT_EQ(Bls12381Fq::kTwoAdicity, 1u);
}

TEST(FieldConstantsTest, GoldilocksReductionEdgeCases) {
  using G = Goldilocks;
  const G p_minus_1 = G::FromUint64(G::kP - 1);
  EXPECT_EQ(p_minus_1 * p_minus_1, G::One());  // (-1)^2
  EXPECT_EQ(p_minus_1 + p_minus_1, G::FromUint64(G::kP - 2));
  EXPECT_EQ(G::Zero() - G::One(), p_minus_1);
  EXPECT_EQ(G::FromUint64(1ull << 32) * G::FromUint64(1ull << 32), G::FromUint64(G::kEpsilon));
  EXPECT_EQ(G::FromUint64(~0ull), G::FromUint64(G::kEpsilon - 1));  // 2^64 - 1 reduced
}

// The run-time byte reader (a copy on x86-64) against the compile-time one (a shift per byte).
TEST(BigIntTest, BytesReadAtRunTimeEqualTheCompileTimeReading) {
  using Int = field::BigInt<6>;
  static constexpr std::array<uint8_t, 20> kBytes = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                     11, 12, 13, 14, 15, 16, 17, 18, 19, 0xff};
  static constexpr Int kAtCompileTime = Int::FromBytesLE(kBytes);
  static_assert(kAtCompileTime.limbs[2] == 0xff131211u, "short input: high bytes are zero");
  std::array<uint8_t, 20> bytes = kBytes;
  EXPECT_EQ(Int::FromBytesLE(bytes), kAtCompileTime);
  EXPECT_EQ(Int::FromBytesLE({}), Int());  // empty, with a null pointer
  std::array<uint8_t, 56> longer{};        // beyond 48 bytes is ignored
  longer.fill(0xab);
  const Int read = Int::FromBytesLE(longer);
  for (uint64_t limb : read.limbs) EXPECT_EQ(limb, 0xababababababababull);
}

template <typename F2>
class QuadraticFieldTest : public ::testing::Test {};
using QuadraticFields = ::testing::Types<Bn254Fq2, Bls12381Fq2>;
TYPED_TEST_SUITE(QuadraticFieldTest, QuadraticFields);

TYPED_TEST(QuadraticFieldTest, ArithmeticAndSqrt) {
  using F2 = TypeParam;
  using F = typename F2::Base;
  TestRng rng(5);
  const F2 u(F::Zero(), F::One());
  EXPECT_EQ(u * u, -F2::One());
  int non_squares = 0;
  for (int i = 0; i < 40; ++i) {
    F2 a(rng.NextField<F>(), rng.NextField<F>());
    F2 b(rng.NextField<F>(), rng.NextField<F>());
    F2 c(rng.NextField<F>(), rng.NextField<F>());
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a.Square(), a * a);
    EXPECT_EQ(a * a.Inverse(), F2::One());
    auto root = a.Sqrt();
    ASSERT_EQ(root.has_value(), a.IsSquare());
    if (root) {
      EXPECT_EQ(root->Square(), a);
    } else {
      ++non_squares;
    }
    auto of_square = a.Square().Sqrt();
    ASSERT_TRUE(of_square.has_value());
    EXPECT_EQ(of_square->Square(), a.Square());
  }
  EXPECT_GT(non_squares, 5);
  // An element of the base field: always a square in Fq2.
  EXPECT_TRUE(F2(F::FromUint64(F::NonResidue()), F::Zero()).IsSquare());
}

}  // namespace
}  // namespace provd::field
