// circomlib's Poseidon over BN254 with parameters derived by our Grain LFSR, against values
// circomlibjs 0.1.7 computes (tests/stark compares whole BN128 trees with pil-stark's).
#include "prover_core/stark/poseidon_bn254.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "prover_core/stark/merkle_tree_bn128.hpp"
#include "prover_core/stark/poseidon_grain.hpp"

namespace provd::stark {
namespace {

using Int = Bn254Fr::Int;

Bn254Fr FromHex(const char* hex) { return Bn254Fr::FromCanonical(Int::FromHex(hex)); }

TEST(PoseidonGrainTest, DerivesCircomlibsConstantsAndMatrix) {
  // circomlibjs's poseidon_constants.json, t = 3: C[1][0], C[1][1] and M[1][0][0], M[1][0][1].
  const GrainPoseidonParameters<Bn254Fr> p = DeriveGrainPoseidon<Bn254Fr>(3, 8, 57);
  ASSERT_EQ(p.round_constants.size(), 3u * (8 + 57));
  EXPECT_EQ(p.round_constants[0],
            FromHex("0x0ee9a592ba9a9518d05986d656f40c2114c4993c11bb29938d21d47304cd8e6e"));
  EXPECT_EQ(p.round_constants[1],
            FromHex("0x00f1445235f2148c5986587169fc1bcd887b08d4d00868df5696fff40956e864"));
  ASSERT_EQ(p.mds.size(), 3u);
  EXPECT_EQ(p.mds[0][0],
            FromHex("0x109b7f411ba0e4c9b2b70caf5c36a7b194be7c11ad24378bfedb68592ba8118b"));
  EXPECT_EQ(p.mds[0][1],
            FromHex("0x16ed41e13bb9c0c66ae119424fddbcbc9314dc9fdbdeea55d6c64543dc4903e0"));
}

TEST(PoseidonBn254Test, MatchesCircomlibjs) {
  // circomlibjs: poseidon([1, 2]).
  const std::vector<Bn254Fr> two = {Bn254Fr::FromUint64(1), Bn254Fr::FromUint64(2)};
  EXPECT_EQ(PoseidonBn254Hash(two, Bn254Fr::Zero()),
            FromHex("0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a"));
  // circomlibjs: poseidon([1, ..., 16], 17), the widest state (t = 17).
  std::vector<Bn254Fr> sixteen;
  for (uint64_t i = 1; i <= 16; ++i) sixteen.push_back(Bn254Fr::FromUint64(i));
  EXPECT_EQ(PoseidonBn254Hash(sixteen, Bn254Fr::FromUint64(17)),
            FromHex("0x1163741e4f65057a9f670377aaa2ba62f52ab13f6732283f02a105b965591fbe"));
}

TEST(PoseidonBn254Test, TheSparsePartialRoundsEqualThePlainOnesAtEveryWidth) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  for (size_t t = 2; t <= kPoseidonBn254MaxWidth; ++t) {
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<Bn254Fr> state(t);
      for (Bn254Fr& x : state) {
        Int v{};
        for (uint64_t& limb : v.limbs) limb = next();
        x = trial == 0 ? Bn254Fr::Zero() : Bn254Fr::FromIntReduced(v);
      }
      std::vector<Bn254Fr> plain = state;
      PoseidonBn254Permute(state);
      PoseidonBn254PermuteReference(plain);
      EXPECT_TRUE(state == plain) << "width " << t << ", trial " << trial;
    }
  }
}

TEST(PoseidonBn254Test, PartialRoundsAreCircomlibs) {
  EXPECT_EQ(PoseidonBn254PartialRounds(2), 56u);
  EXPECT_EQ(PoseidonBn254PartialRounds(14), 70u);
  EXPECT_EQ(PoseidonBn254PartialRounds(17), 68u);
}

TEST(MerkleBn128Test, ShortRowsAreTheirIntegerReduced) {
  using field::Goldilocks;
  // Four words of p - 1 make an integer past the BN254 modulus: reduced, not hashed.
  const uint64_t top = Goldilocks::kP - 1;
  const std::vector<Goldilocks> row(4, Goldilocks::FromUint64(top));
  Int v{};
  v.limbs = {top, top, top, top};
  EXPECT_EQ(LinearHashBn128(row, 16), Bn254Fr::FromIntReduced(v));
  const std::vector<Goldilocks> one = {Goldilocks::FromUint64(5)};
  EXPECT_EQ(LinearHashBn128(one, 16), Bn254Fr::FromUint64(5));
}

TEST(MerkleBn128Test, LongRowsPackThreeElementsAndAbsorbArityAtATime) {
  using field::Goldilocks;
  std::vector<Goldilocks> row;
  for (uint64_t i = 1; i <= 7; ++i) row.push_back(Goldilocks::FromUint64(i));
  auto packed = [&](size_t first, size_t count) {
    Int v{};
    for (size_t k = 0; k < count; ++k) v.limbs[k] = row[first + k].value();
    return Bn254Fr::FromCanonical(v);
  };
  // Arity 16: the three packed elements (3 + 3 + 1) in one permutation.
  const std::vector<Bn254Fr> all = {packed(0, 3), packed(3, 3), packed(6, 1)};
  EXPECT_EQ(LinearHashBn128(row, 16), PoseidonBn254Hash(all, Bn254Fr::Zero()));
  // Arity 2: two, then the last one with the first digest as the initial state.
  const std::vector<Bn254Fr> first_two = {all[0], all[1]};
  const std::vector<Bn254Fr> last = {all[2]};
  EXPECT_EQ(LinearHashBn128(row, 2),
            PoseidonBn254Hash(last, PoseidonBn254Hash(first_two, Bn254Fr::Zero())));
}

TEST(MerkleBn128Test, DigestWordsAreMontgomeryLimbs) {
  const Bn254Fr x = Bn254Fr::FromUint64(123456789);
  std::vector<uint64_t> words(4);
  StoreBn128Digest(x, words);
  EXPECT_EQ(words[0], x.Montgomery().limbs[0]);
  EXPECT_EQ(LoadBn128Digest(words), x);
  const std::array<uint64_t, 4> integer =
      Bn128RootInteger(std::span<const uint64_t, 4>(words.data(), 4));
  EXPECT_EQ(integer, (std::array<uint64_t, 4>{123456789, 0, 0, 0}));
}

}  // namespace
}  // namespace provd::stark
