// Roots of unity, FFT, inverse FFT and coset FFT byte-exact against ffjavascript.
#include "gtest/gtest.h"
#include "prover_core/field/bls12_381.hpp"
#include "prover_core/field/bn254.hpp"
#include "prover_core/field/goldilocks.hpp"
#include "prover_core/ntt/ntt.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/vectors.hpp"

namespace provd::ntt {
namespace {

using ::provd::testing::ElementHex;
using ::provd::testing::IsOk;
using ::provd::testing::LoadVectors;
using ::provd::testing::ParseElement;
using ::provd::testing::ToHex;

template <typename F>
struct Named;
template <>
struct Named<field::Bn254Fr> {
  static constexpr char kKey[] = "bn254_fr";
};
template <>
struct Named<field::Bls12381Fr> {
  static constexpr char kKey[] = "bls12_381_fr";
};
template <>
struct Named<field::Goldilocks> {
  static constexpr char kKey[] = "goldilocks";
};

template <typename F>
std::vector<F> ParseVector(const nlohmann::json& j) {
  std::vector<F> out;
  for (const auto& e : j) out.push_back(ParseElement<F>(e));
  return out;
}

template <typename F>
std::vector<std::string> Hexes(const std::vector<F>& v) {
  std::vector<std::string> out;
  for (const F& x : v) out.push_back(ToHex(x));
  return out;
}

std::vector<std::string> Hexes(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& e : j) out.push_back(ElementHex(e));
  return out;
}

template <typename F>
class NttVectors : public ::testing::Test {};
using NttFields = ::testing::Types<field::Bn254Fr, field::Bls12381Fr, field::Goldilocks>;
TYPED_TEST_SUITE(NttVectors, NttFields);

TYPED_TEST(NttVectors, RootsOfUnityAreSnarkjsRoots) {
  using F = TypeParam;
  const nlohmann::json roots = LoadVectors("roots.json").at(Named<F>::kKey);
  ASSERT_EQ(roots.at("two_adicity").get<size_t>(), F::kTwoAdicity);
  ASSERT_EQ(ElementHex(roots.at("nqr")), ToHex(F::FromUint64(F::NonResidue())));
  ASSERT_EQ(roots.at("roots").size(), F::kTwoAdicity + 1);
  for (size_t k = 0; k <= F::kTwoAdicity; ++k) {
    EXPECT_EQ(ToHex(RootOfUnity<F>(k)), ElementHex(roots.at("roots")[k])) << "k=" << k;
  }
}

TYPED_TEST(NttVectors, FftAndIfftMatchFfjavascript) {
  using F = TypeParam;
  ThreadPool pool(2);
  const nlohmann::json fft = LoadVectors("fft.json").at(Named<F>::kKey);
  size_t count = 0;
  for (const auto& c : fft.at("cases")) {
    SCOPED_TRACE("log_n=" + std::to_string(c.at("log_n").get<int>()));
    std::vector<F> forward = ParseVector<F>(c.at("input"));
    std::vector<F> inverse = forward;
    ASSERT_THAT(Forward<F>(forward, pool), IsOk());
    ASSERT_THAT(Inverse<F>(inverse, pool), IsOk());
    EXPECT_EQ(Hexes(forward), Hexes(c.at("fft")));
    EXPECT_EQ(Hexes(inverse), Hexes(c.at("ifft")));
    ++count;
  }
  EXPECT_GE(count, 12u);
  for (const auto& c : fft.at("coset_fft")) {
    SCOPED_TRACE("coset log_n=" + std::to_string(c.at("log_n").get<int>()) + " " +
                 c.at("kind").get<std::string>());
    std::vector<F> data = ParseVector<F>(c.at("input"));
    ASSERT_THAT(CosetForward<F>(data, ParseElement<F>(c.at("shift")), pool), IsOk());
    EXPECT_EQ(Hexes(data), Hexes(c.at("output")));
    if (c.at("kind") == "odd") {
      // snarkjs's odd coset for Groth16's H: the shift is w_{2n}.
      EXPECT_EQ(ToHex(RootOfUnity<F>(c.at("log_n").get<size_t>() + 1)), ElementHex(c.at("shift")));
    }
  }
}

}  // namespace
}  // namespace provd::ntt
