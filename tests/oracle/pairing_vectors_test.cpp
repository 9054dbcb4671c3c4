// Pairing values byte-exact against ffjavascript (snarkjs's own pairing): e(aG1, bG2) for random
// a, b on both curves, as one pairing and as a product with one final exponentiation.
#include "gtest/gtest.h"
#include "prover_core/pairing/pairing.hpp"
#include "tests/support/vectors.hpp"

namespace provd::pairing {
namespace {

using ::provd::testing::ElementHex;
using ::provd::testing::LoadVectors;
using ::provd::testing::ParsePoint;
using ::provd::testing::ToHex;

template <typename P>
std::string Fq12Hex(const Fp12<P>& f) {
  std::string out;
  for (const Fp6<P>* half : {&f.c0(), &f.c1()}) {
    for (const auto* c : {&half->c0(), &half->c1(), &half->c2()}) out += ToHex(*c);
  }
  return out;
}

template <typename P>
class PairingVectors : public ::testing::Test {};
using Curves = ::testing::Types<Bn254Pairing, Bls12381Pairing>;
TYPED_TEST_SUITE(PairingVectors, Curves);

TYPED_TEST(PairingVectors, PairingsEqualFfjavascript) {
  using P = TypeParam;
  static const nlohmann::json vectors = LoadVectors("pairing.json");
  size_t count = 0;
  for (const auto& c : vectors.at(P::kName).at("cases")) {
    SCOPED_TRACE(c.dump());
    const auto p = ParsePoint<typename P::G1>(c.at("p"));
    const auto q = ParsePoint<typename P::G2>(c.at("q"));
    EXPECT_EQ(Fq12Hex<P>(Pairing<P>(p, q)), ElementHex(c.at("pairing")));
    // e(p, q) = e(p, q) e(-p, q) e(p, q): three Miller loops, one final exponentiation.
    const G2Prepared<P> prepared(q);
    const PairingTerm<P> terms[] = {{p, &prepared}, {-p, &prepared}, {p, &prepared}};
    EXPECT_EQ(Fq12Hex<P>(PairingProduct<P>(terms)), ElementHex(c.at("pairing")));
    ++count;
  }
  EXPECT_GE(count, 3u);
}

}  // namespace
}  // namespace provd::pairing
