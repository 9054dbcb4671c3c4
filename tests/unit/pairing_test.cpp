// Algebraic properties of the tower and the pairings of both curves: field axioms of Fq6 and
// Fq12, Frobenius maps against plain exponentiation, cyclotomic squaring, psi acting as p on G2,
// bilinearity and non-degeneracy, and the fast subgroup checks against multiplication by r.
// The values themselves are held against ffjavascript in tests/oracle/pairing_vectors_test.cpp.
#include "prover_core/pairing/pairing.hpp"

#include "gtest/gtest.h"
#include "tests/support/random.hpp"

namespace provd::pairing {
namespace {

using ::provd::testing::TestRng;

template <typename P>
class PairingTest : public ::testing::Test {
 protected:
  using BaseField = typename P::Fq;
  using ExtField = typename P::Fq2;
  using Group1 = typename P::G1;
  using Group2 = typename P::G2;
  using Target = Fp12<P>;

  ExtField RandomFq2() {
    return ExtField(rng_.NextField<BaseField>(), rng_.NextField<BaseField>());
  }
  Fp6<P> RandomFq6() { return Fp6<P>(RandomFq2(), RandomFq2(), RandomFq2()); }
  Target RandomFq12() { return Target(RandomFq6(), RandomFq6()); }
  field::BigInt<4> RandomScalar() {
    return rng_.NextField<typename Group1::ScalarField>().ToCanonical();
  }
  curve::AffinePoint<Group1> G1Times(const field::BigInt<4>& k) {
    return curve::ScalarMul(Group1::Generator(), k).ToAffine();
  }
  curve::AffinePoint<Group2> G2Times(const field::BigInt<4>& k) {
    return curve::ScalarMul(Group2::Generator(), k).ToAffine();
  }
  // A point of the curve over ExtField that is almost surely outside Group2 (no cofactor cleared).
  curve::AffinePoint<Group2> RandomTwistPoint() {
    while (true) {
      const ExtField x = RandomFq2();
      if (auto y = (x.Square() * x + Group2::B()).Sqrt())
        return curve::AffinePoint<Group2>::FromXY(x, *y);
    }
  }
  curve::AffinePoint<Group1> RandomCurvePoint() {
    while (true) {
      const BaseField x = rng_.NextField<BaseField>();
      if (auto y = (x.Square() * x + Group1::B()).Sqrt())
        return curve::AffinePoint<Group1>::FromXY(x, *y);
    }
  }

  TestRng rng_{20261206};
};

using Curves = ::testing::Types<Bn254Pairing, Bls12381Pairing>;
TYPED_TEST_SUITE(PairingTest, Curves);

TYPED_TEST(PairingTest, TowerArithmeticIsAField) {
  using F12 = Fp12<TypeParam>;
  for (int i = 0; i < 8; ++i) {
    const F12 a = this->RandomFq12(), b = this->RandomFq12(), c = this->RandomFq12();
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a.Square(), a * a);
    EXPECT_TRUE((a * a.Inverse()).IsOne());
    const Fp6<TypeParam> x = this->RandomFq6(), y = this->RandomFq6();
    EXPECT_EQ(x.Square(), x * x);
    EXPECT_EQ(x * x.Inverse(), Fp6<TypeParam>::One());
    EXPECT_EQ(x.MulBy01(y.c0(), y.c1()), x * Fp6<TypeParam>(y.c0(), y.c1(), {}));
    EXPECT_EQ(x.MulBy1(y.c1()), x * Fp6<TypeParam>({}, y.c1(), {}));
    // (1 + 0 w)^... sparse line products against the full product.
    using Fq2 = typename TypeParam::Fq2;
    const Fq2 l0 = this->RandomFq2(), l1 = this->RandomFq2(), l2 = this->RandomFq2();
    EXPECT_EQ(a.MulBy014(l0, l1, l2), a * F12({l0, l1, {}}, {{}, l2, {}}));
    EXPECT_EQ(a.MulBy034(l0, l1, l2), a * F12({l0, {}, {}}, {l1, l2, {}}));
  }
}

TYPED_TEST(PairingTest, FrobeniusIsThePowerP) {
  using F12 = Fp12<TypeParam>;
  const F12 a = this->RandomFq12();
  const auto p = TypeParam::Fq::Modulus();
  F12 power = a;
  for (size_t k = 1; k <= 6; ++k) {
    power = field::PowBig(power, p);
    EXPECT_EQ(a.Frobenius(k), power) << "k = " << k;
  }
  EXPECT_EQ(a.Frobenius(6), a.Conjugate());
}

TYPED_TEST(PairingTest, CyclotomicSquareIsTheSquareAfterTheEasyPart) {
  using F12 = Fp12<TypeParam>;
  for (int i = 0; i < 4; ++i) {
    F12 f = this->RandomFq12();
    f = f.Conjugate() * f.Inverse();
    f = f.Frobenius(2) * f;
    EXPECT_EQ(f.CyclotomicSquare(), f.Square());
    EXPECT_TRUE((f * f.Conjugate()).IsOne());
  }
}

TYPED_TEST(PairingTest, PsiMultipliesG2ByP) {
  using G2 = typename TypeParam::G2;
  const auto q = this->G2Times(this->RandomScalar());
  // p mod r by Horner over p's limbs in Fr.
  using Fr = typename G2::ScalarField;
  const auto p = TypeParam::Fq::Modulus();
  const Fr two64 = Fr::FromUint64(uint64_t{1} << 32).Square();
  Fr p_in_fr = Fr::Zero();
  for (size_t i = p.kLimbs; i-- > 0;) p_in_fr = p_in_fr * two64 + Fr::FromUint64(p.limbs[i]);
  const auto p_mod_r = p_in_fr.ToCanonical();
  EXPECT_EQ(curve::XyzzPoint<G2>(Psi<TypeParam>(q)), curve::ScalarMul(q, p_mod_r));
}

TYPED_TEST(PairingTest, PairingIsBilinearAndNonDegenerate) {
  using P = TypeParam;
  using G1 = typename P::G1;
  using G2 = typename P::G2;
  using Fr = typename G1::ScalarField;
  const Gt<P> base = Pairing<P>(G1::Generator(), G2::Generator());
  EXPECT_FALSE(base.IsOne());
  EXPECT_TRUE(field::PowBig(base, G1::kOrder).IsOne());
  for (int i = 0; i < 3; ++i) {
    const Fr a = this->rng_.template NextField<Fr>(), b = this->rng_.template NextField<Fr>();
    const Gt<P> e = Pairing<P>(this->G1Times(a.ToCanonical()), this->G2Times(b.ToCanonical()));
    EXPECT_EQ(e, field::PowBig(base, (a * b).ToCanonical()));
  }
  EXPECT_TRUE(Pairing<P>(curve::AffinePoint<G1>::Infinity(), G2::Generator()).IsOne());
  EXPECT_TRUE(Pairing<P>(G1::Generator(), curve::AffinePoint<G2>::Infinity()).IsOne());
}

TYPED_TEST(PairingTest, AProductOfPairingsIsOneExactlyWhenTheExponentsCancel) {
  using P = TypeParam;
  using G1 = typename P::G1;
  using Fr = typename G1::ScalarField;
  // e(aG, bH) * e(-cG, dH) == 1 iff ab == cd.
  const Fr a = this->rng_.template NextField<Fr>(), b = this->rng_.template NextField<Fr>();
  const Fr c = this->rng_.template NextField<Fr>();
  const Fr d = a * b * c.Inverse();
  const G2Prepared<P> qb(this->G2Times(b.ToCanonical()));
  const G2Prepared<P> qd(this->G2Times(d.ToCanonical()));
  const G2Prepared<P> qd1(this->G2Times((d + Fr::One()).ToCanonical()));
  const auto pa = this->G1Times(a.ToCanonical());
  const auto minus_pc = -this->G1Times(c.ToCanonical());
  const PairingTerm<P> good[] = {{pa, &qb}, {minus_pc, &qd}};
  const PairingTerm<P> bad[] = {{pa, &qb}, {minus_pc, &qd1}};
  EXPECT_TRUE(PairingProduct<P>(good).IsOne());
  EXPECT_FALSE(PairingProduct<P>(bad).IsOne());
}

TYPED_TEST(PairingTest, FastSubgroupChecksAgreeWithMultiplicationByR) {
  using P = TypeParam;
  for (int i = 0; i < 6; ++i) {
    const auto q = this->G2Times(this->RandomScalar());
    EXPECT_TRUE(IsInG2<P>(q));
    const auto t = this->RandomTwistPoint();
    EXPECT_EQ(IsInG2<P>(t), curve::IsInSubgroup(t));
    EXPECT_FALSE(IsInG2<P>(t));
    const auto p = this->G1Times(this->RandomScalar());
    EXPECT_TRUE(IsInG1<P>(p));
    const auto c = this->RandomCurvePoint();
    EXPECT_EQ(IsInG1<P>(c), curve::IsInSubgroup(c));
  }
  EXPECT_TRUE(IsInG2<P>(curve::AffinePoint<typename P::G2>::Infinity()));
}

}  // namespace
}  // namespace provd::pairing
