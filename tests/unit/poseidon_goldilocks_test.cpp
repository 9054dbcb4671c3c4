// The fast scalar and the batched (AVX-512 where the CPU has it) Poseidon permutations against
// the plain reference, which tests/stark checks against pil-stark itself.
#include "prover_core/stark/poseidon_goldilocks.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/support/random.hpp"

namespace provd::stark {
namespace {

using testing::TestRng;

PoseidonState RandomState(TestRng& rng) {
  PoseidonState s;
  for (Goldilocks& x : s) x = rng.NextField<Goldilocks>();
  return s;
}

// All zeros, all p - 1, 0..11, and elements next to the reductions' edges (2^32 - 1, 2^32,
// 2^63, p - 2^32).
std::vector<PoseidonState> EdgeStates() {
  std::vector<PoseidonState> states;
  PoseidonState s{};
  states.push_back(s);
  s.fill(Goldilocks::FromUint64(Goldilocks::kP - 1));
  states.push_back(s);
  for (size_t i = 0; i < kPoseidonWidth; ++i) s[i] = Goldilocks::FromUint64(i);
  states.push_back(s);
  for (uint64_t v :
       {0xffffffffull, 0x100000000ull, 0x8000000000000000ull, Goldilocks::kP - 0x100000000ull}) {
    s.fill(Goldilocks::FromUint64(v));
    states.push_back(s);
  }
  return states;
}

PoseidonState Reference(PoseidonState s) {
  PoseidonPermuteReference(s);
  return s;
}

TEST(PoseidonGoldilocksTest, ReferenceOfZeroStateIsPlonky2sVector) {
  const PoseidonState out = Reference(PoseidonState{});
  EXPECT_EQ(out[0].value(), 0x3c18a9786cb0b359ull);
}

TEST(PoseidonGoldilocksTest, FastScalarEqualsReferenceOnEdgeStates) {
  for (const PoseidonState& in : EdgeStates()) {
    PoseidonState fast = in;
    PoseidonPermute(fast);
    EXPECT_EQ(fast, Reference(in));
  }
}

TEST(PoseidonGoldilocksTest, FastScalarEqualsReferenceOnRandomStates) {
  TestRng rng(0x5eed0001);
  for (int i = 0; i < 2000; ++i) {
    const PoseidonState in = RandomState(rng);
    PoseidonState fast = in;
    PoseidonPermute(fast);
    ASSERT_EQ(fast, Reference(in)) << "state " << i;
  }
}

TEST(PoseidonGoldilocksTest, BatchEqualsReferenceForEveryBatchSize) {
  std::printf("PoseidonPermuteBatch uses AVX-512: %s\n", PoseidonBatchUsesAvx512() ? "yes" : "no");
  TestRng rng(0x5eed0002);
  for (size_t n : {0, 1, 2, 3, 7, 8, 9, 17, 64}) {
    std::vector<PoseidonState> states;
    for (size_t i = 0; i < n; ++i) states.push_back(RandomState(rng));
    std::vector<PoseidonState> expected;
    for (const PoseidonState& s : states) expected.push_back(Reference(s));
    PoseidonPermuteBatch(states);
    EXPECT_EQ(states, expected) << "batch of " << n;
  }
}

TEST(PoseidonGoldilocksTest, BatchEqualsReferenceOnEdgeStatesInEveryLane) {
  // Each edge state next to random ones and in every lane position of a group of eight.
  TestRng rng(0x5eed0003);
  for (const PoseidonState& edge : EdgeStates()) {
    for (size_t lane = 0; lane < 9; ++lane) {
      std::vector<PoseidonState> states;
      for (size_t i = 0; i < 9; ++i) states.push_back(i == lane ? edge : RandomState(rng));
      std::vector<PoseidonState> expected;
      for (const PoseidonState& s : states) expected.push_back(Reference(s));
      PoseidonPermuteBatch(states);
      ASSERT_EQ(states, expected) << "lane " << lane;
    }
  }
  std::vector<PoseidonState> all_edges = EdgeStates();
  all_edges.resize(8, all_edges.back());
  std::vector<PoseidonState> expected;
  for (const PoseidonState& s : all_edges) expected.push_back(Reference(s));
  PoseidonPermuteBatch(all_edges);
  EXPECT_EQ(all_edges, expected);
}

TEST(PoseidonGoldilocksTest, BatchEqualsReferenceOnManyRandomStates) {
  TestRng rng(0x5eed0004);
  std::vector<PoseidonState> states;
  for (size_t i = 0; i < 4096; ++i) states.push_back(RandomState(rng));
  std::vector<PoseidonState> expected;
  for (const PoseidonState& s : states) expected.push_back(Reference(s));
  PoseidonPermuteBatch(states);
  for (size_t i = 0; i < states.size(); ++i) ASSERT_EQ(states[i], expected[i]) << "state " << i;
}

TEST(PoseidonGoldilocksTest, HashIsThePermutationsFirstFourElements) {
  TestRng rng(0x5eed0005);
  const PoseidonState in = RandomState(rng);
  Digest capacity;
  for (size_t i = 0; i < kDigestElements; ++i) capacity[i] = in[kPoseidonRate + i];
  const Digest d =
      PoseidonHash(std::span<const Goldilocks, kPoseidonRate>(in.data(), kPoseidonRate), capacity);
  const PoseidonState out = Reference(in);
  for (size_t i = 0; i < kDigestElements; ++i) EXPECT_EQ(d[i], out[i]);
}

}  // namespace
}  // namespace provd::stark
