// The eight-lane AVX-512 IFMA field arithmetic (field/ifma_field.hpp) against the scalar field:
// every operation, lane by lane, on random and edge values, and long chains that would expose a
// bound violated by the redundant (< 2p) representation. Skipped, visibly, on CPUs without IFMA;
// the radix conversions, which are plain integer code, run everywhere.
#include "prover_core/field/ifma_field.hpp"

#include <array>
#include <vector>

#include "gtest/gtest.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "tests/support/random.hpp"

namespace provd::field::ifma {
namespace {

using ::provd::testing::TestRng;

template <typename F>
class IfmaFieldTest : public ::testing::Test {};
using Fields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr>;
TYPED_TEST_SUITE(IfmaFieldTest, Fields);

template <typename F>
using Eight = std::array<F, 8>;

template <typename F>
Eight<F> RandomEight(TestRng& rng) {
  Eight<F> r;
  for (F& x : r) x = rng.NextField<F>();
  return r;
}

// 0, 1, -1, -2, 2^52 and its negation, and the raw Montgomery integers 1 and p - 1.
template <typename F>
Eight<F> EdgeEight() {
  using Int = typename F::Int;
  Int p_minus_1 = F::Modulus();
  p_minus_1.SubInPlace(Int::FromUint64(1));
  return {F::Zero(),
          F::One(),
          -F::One(),
          -F::FromUint64(2),
          F::FromUint64(uint64_t{1} << 52),
          -F::FromUint64(uint64_t{1} << 52),
          F::FromMontgomery(Int::FromUint64(1)),
          F::FromMontgomery(p_minus_1)};
}

TYPED_TEST(IfmaFieldTest, RadixConversionsRoundTrip) {
  using F = TypeParam;
  using R = Radix52<F>;
  TestRng rng(1);
  for (int i = 0; i < 200; ++i) {
    const F a = rng.NextField<F>();
    const auto limbs = ToRadix52<R::K>(a.Montgomery());
    for (uint64_t l : limbs) EXPECT_LT(l, uint64_t{1} << 52);
    EXPECT_EQ((FromRadix52<R::N, R::K>(limbs.data())), a.Montgomery());
    const auto lane = ScalarToLaneLimbs(a);
    EXPECT_EQ(LaneLimbsToScalar<F>(lane.data()), a);
    std::array<uint64_t, R::K> neg{};
    NegateLaneLimbs<F>(lane.data(), neg.data());
    EXPECT_EQ(LaneLimbsToScalar<F>(neg.data()), -a);
  }
  const auto zero = ScalarToLaneLimbs(F::Zero());
  std::array<uint64_t, R::K> neg{};
  NegateLaneLimbs<F>(zero.data(), neg.data());
  EXPECT_EQ(neg, zero);
}

#if PROVD_HAVE_IFMA

// Eight scalar elements into lanes (through the vector conversion) and back.
template <typename F>
PROVD_IFMA_TARGET void ToLanes(const Eight<F>& in, LaneBlock<F>& out) {
  using R = Radix52<F>;
  using Ops = LaneOps<F>;
  for (size_t l = 0; l < 8; ++l) {
    const auto limbs = ToRadix52<R::K>(in[l].Montgomery());
    for (size_t j = 0; j < R::K; ++j) out.limb[j][l] = limbs[j];
  }
  Ops::Store(out, Ops::Canonical(Ops::Mul(Ops::Load(out), Ops::Broadcast(R::kToLanes))));
}
template <typename F>
PROVD_IFMA_TARGET Eight<F> FromLanes(const LaneBlock<F>& in) {
  using R = Radix52<F>;
  using Ops = LaneOps<F>;
  LaneBlock<F> canonical;
  Ops::Store(canonical, Ops::Canonical(Ops::Mul(Ops::Load(in), Ops::Broadcast(R::kFromLanes))));
  Eight<F> out;
  for (size_t l = 0; l < 8; ++l) {
    uint64_t limbs[R::K];
    for (size_t j = 0; j < R::K; ++j) limbs[j] = canonical.limb[j][l];
    out[l] = F::FromMontgomery(FromRadix52<R::N, R::K>(limbs));
  }
  return out;
}

// kLazyProduct: (a - b)(b - a) from unreduced differences (below 4p), the product's widest input.
enum class Op { kMul, kSquare, kAdd, kSub, kNeg, kLazyProduct, kInverse };

template <typename F>
PROVD_IFMA_TARGET LaneBlock<F> Apply(Op op, const LaneBlock<F>& a, const LaneBlock<F>& b) {
  using Ops = LaneOps<F>;
  const auto x = Ops::Load(a);
  const auto y = Ops::Load(b);
  Lanes<F> r;
  switch (op) {
    case Op::kMul:
      r = Ops::Mul(x, y);
      break;
    case Op::kSquare:
      r = Ops::Square(x);
      break;
    case Op::kAdd:
      r = Ops::Add(x, y);
      break;
    case Op::kSub:
      r = Ops::Sub(x, y);
      break;
    case Op::kNeg:
      r = Ops::Neg(x);
      break;
    case Op::kLazyProduct:
      r = Ops::Mul(Ops::SubLazy(x, y), Ops::SubLazy(y, x));
      break;
    case Op::kInverse:
      r = Ops::Inverse(x);
      break;
  }
  LaneBlock<F> out;
  Ops::Store(out, r);
  return out;
}

template <typename F>
F Expected(Op op, const F& a, const F& b) {
  switch (op) {
    case Op::kMul:
      return a * b;
    case Op::kSquare:
      return a.Square();
    case Op::kAdd:
      return a + b;
    case Op::kSub:
      return a - b;
    case Op::kNeg:
      return -a;
    case Op::kLazyProduct:
      return (a - b) * (b - a);
    case Op::kInverse:
      return a.Inverse();
  }
  return F();
}

// Every limb of a lane value below 2^52 and the value itself below 2p.
template <typename F>
bool WithinBounds(const LaneBlock<F>& v) {
  using R = Radix52<F>;
  for (size_t l = 0; l < 8; ++l) {
    for (size_t j = 0; j < R::K; ++j) {
      if (v.limb[j][l] >> 52 != 0) return false;
    }
    for (size_t j = R::K; j-- > 0;) {
      if (v.limb[j][l] != R::k2P[j]) {
        if (v.limb[j][l] > R::k2P[j]) return false;
        break;
      }
      if (j == 0) return false;  // equal to 2p
    }
  }
  return true;
}

TYPED_TEST(IfmaFieldTest, EveryOperationMatchesTheScalarField) {
  using F = TypeParam;
  if (!kIfmaAvailable) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  TestRng rng(2);
  std::vector<std::pair<Eight<F>, Eight<F>>> cases = {{EdgeEight<F>(), EdgeEight<F>()},
                                                      {EdgeEight<F>(), RandomEight<F>(rng)}};
  for (int i = 0; i < 50; ++i) cases.push_back({RandomEight<F>(rng), RandomEight<F>(rng)});
  for (const auto& [a, b] : cases) {
    LaneBlock<F> la;
    LaneBlock<F> lb;
    ToLanes(a, la);
    ToLanes(b, lb);
    EXPECT_EQ(FromLanes(la), a);
    for (Op op :
         {Op::kMul, Op::kSquare, Op::kAdd, Op::kSub, Op::kNeg, Op::kLazyProduct, Op::kInverse}) {
      const LaneBlock<F> r = Apply(op, la, lb);
      EXPECT_TRUE(WithinBounds(r)) << "op " << static_cast<int>(op);
      const Eight<F> got = FromLanes(r);
      for (size_t l = 0; l < 8; ++l) {
        EXPECT_EQ(got[l], Expected(op, a[l], b[l]))
            << "op " << static_cast<int>(op) << " lane " << l;
      }
    }
  }
}

// Results are fed back without canonicalizing, so values anywhere in [0, 2p) meet every
// operation: a bound the representation relies on (4p <= 2^(52K)) shows up here if it breaks.
TYPED_TEST(IfmaFieldTest, LongChainsOfRedundantValuesStayExact) {
  using F = TypeParam;
  if (!kIfmaAvailable) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  TestRng rng(3);
  Eight<F> sa = RandomEight<F>(rng);
  Eight<F> sb = EdgeEight<F>();
  LaneBlock<F> la;
  LaneBlock<F> lb;
  ToLanes(sa, la);
  ToLanes(sb, lb);
  for (int step = 0; step < 3000; ++step) {
    const Op op = static_cast<Op>(rng.Next() % 6);  // all but the (slow) inverse
    const LaneBlock<F> r = Apply(op, la, lb);
    ASSERT_TRUE(WithinBounds(r)) << "step " << step;
    for (size_t l = 0; l < 8; ++l) sa[l] = Expected(op, sa[l], sb[l]);
    if (step % 2 == 0) {
      lb = la;
      sb = FromLanes(la);
    }
    la = r;
  }
  EXPECT_EQ(FromLanes(la), sa);
}

#endif  // PROVD_HAVE_IFMA

}  // namespace
}  // namespace provd::field::ifma
