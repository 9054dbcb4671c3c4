// The lane arithmetic (ifma_field.hpp) for both kinds of coordinate field a curve can have: a
// prime field (G1) and its quadratic extension Fq2 (G2), behind one interface, so the MSM's
// lane code is written once for both groups.
//
// LaneField<Field> gives:
//   Base, kDegree          the prime field and the number of its elements per coordinate;
//   Component / Assemble   a coordinate to and from its base-field components;
//   Ops                    LaneOps<Base> for prime fields, LaneOpsFp2<Base> for Fq2: the same
//                          names (V, Block, kElementLimbs, Mul, Square, Add, Sub, Neg, ...).
// In memory a coordinate is kDegree * K limbs: c0's K limbs, then c1's.
#pragma once

#include <cstddef>

#include "prover_core/field/fp2.hpp"
#include "prover_core/field/ifma_field.hpp"
#include "prover_core/field/montgomery_field.hpp"

namespace provd::field::ifma {

#if PROVD_HAVE_IFMA

// Fq2 = Fq[u] / (u^2 + 1) in lanes: pairs of base-field lane values, Karatsuba products.
template <typename Fq>
struct LaneOpsFp2 {
  using B = LaneOps<Fq>;
  static constexpr size_t K = B::K;
  static constexpr size_t kElementLimbs = 2 * K;
  struct V {
    Lanes<Fq> c0;
    Lanes<Fq> c1;
  };
  struct Block {
    LaneBlock<Fq> c0;
    LaneBlock<Fq> c1;
  };

  PROVD_IFMA_INLINE static V Zero() { return {B::Zero(), B::Zero()}; }
  PROVD_IFMA_INLINE static V One() { return {B::One(), B::Zero()}; }
  PROVD_IFMA_INLINE static V Load(const Block& b) { return {B::Load(b.c0), B::Load(b.c1)}; }
  PROVD_IFMA_INLINE static void Store(Block& b, const V& a) {
    B::Store(b.c0, a.c0);
    B::Store(b.c1, a.c1);
  }
  PROVD_IFMA_INLINE static V Gather(const uint64_t* base, __m512i index, __mmask8 mask,
                                    const V& fallback) {
    return {B::Gather(base, index, mask, fallback.c0),
            B::Gather(base + K, index, mask, fallback.c1)};
  }
  PROVD_IFMA_INLINE static void Scatter(uint64_t* base, __m512i index, __mmask8 mask, const V& a) {
    B::Scatter(base, index, mask, a.c0);
    B::Scatter(base + K, index, mask, a.c1);
  }
  static void ReadLane(const Block& block, size_t lane, uint64_t* limbs) {
    B::ReadLane(block.c0, lane, limbs);
    B::ReadLane(block.c1, lane, limbs + K);
  }
  static void WriteLane(Block& block, size_t lane, const uint64_t* limbs) {
    B::WriteLane(block.c0, lane, limbs);
    B::WriteLane(block.c1, lane, limbs + K);
  }
  PROVD_IFMA_INLINE static __mmask8 IsZero(const V& a) { return B::IsZero(a.c0) & B::IsZero(a.c1); }
  PROVD_IFMA_INLINE static V Select(__mmask8 mask, const V& if_set, const V& otherwise) {
    return {B::Select(mask, if_set.c0, otherwise.c0), B::Select(mask, if_set.c1, otherwise.c1)};
  }
  PROVD_IFMA_INLINE static V Add(const V& a, const V& b) {
    return {B::Add(a.c0, b.c0), B::Add(a.c1, b.c1)};
  }
  PROVD_IFMA_INLINE static V Sub(const V& a, const V& b) {
    return {B::Sub(a.c0, b.c0), B::Sub(a.c1, b.c1)};
  }
  // Fully reduced here: the product adds its operands' components, which must stay below 2p.
  PROVD_IFMA_INLINE static V SubLazy(const V& a, const V& b) { return Sub(a, b); }
  PROVD_IFMA_INLINE static V Neg(const V& a) { return {B::Neg(a.c0), B::Neg(a.c1)}; }
  PROVD_IFMA_INLINE static V Canonical(const V& a) {
    return {B::Canonical(a.c0), B::Canonical(a.c1)};
  }
  // (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u.
  PROVD_IFMA_INLINE static V Mul(const V& a, const V& b) {
    const auto v0 = B::Mul(a.c0, b.c0);
    const auto v1 = B::Mul(a.c1, b.c1);
    const auto cross = B::Mul(B::Add(a.c0, a.c1), B::Add(b.c0, b.c1));
    return {B::Sub(v0, v1), B::Sub(B::Sub(cross, v0), v1)};
  }
  // (a0 + a1)(a0 - a1) + 2 a0 a1 u.
  PROVD_IFMA_INLINE static V Square(const V& a) {
    const auto t = B::Mul(a.c0, a.c1);
    return {B::Mul(B::Add(a.c0, a.c1), B::Sub(a.c0, a.c1)), B::Add(t, t)};
  }
  // conj(a) / norm(a), the norm a0^2 + a1^2 inverted in the base field.
  PROVD_IFMA_TARGET static V Inverse(const V& a) {
    const auto norm_inv = B::Inverse(B::Add(B::Square(a.c0), B::Square(a.c1)));
    return {B::Mul(a.c0, norm_inv), B::Neg(B::Mul(a.c1, norm_inv))};
  }
};

#endif  // PROVD_HAVE_IFMA

template <typename Field>
struct LaneField;

template <typename P>
struct LaneField<Fp<P>> {
  using Base = Fp<P>;
  static constexpr size_t kDegree = 1;
  static const Base& Component(const Fp<P>& a, size_t) { return a; }
  static Fp<P> Assemble(const Base* components) { return components[0]; }
#if PROVD_HAVE_IFMA
  using Ops = LaneOps<Base>;
#endif
};

template <typename Fq>
struct LaneField<Fp2<Fq>> {
  using Base = Fq;
  static constexpr size_t kDegree = 2;
  static const Base& Component(const Fp2<Fq>& a, size_t i) { return i == 0 ? a.c0() : a.c1(); }
  static Fp2<Fq> Assemble(const Base* components) { return Fp2<Fq>(components[0], components[1]); }
#if PROVD_HAVE_IFMA
  using Ops = LaneOpsFp2<Fq>;
#endif
};

// One coordinate between the scalar field and its canonical lane form (kDegree * K limbs).
template <typename Field>
void ScalarToLaneCoordinate(const Field& a, uint64_t* limbs) {
  using LF = LaneField<Field>;
  constexpr size_t K = Radix52<typename LF::Base>::K;
  for (size_t i = 0; i < LF::kDegree; ++i) {
    const auto c = ScalarToLaneLimbs(LF::Component(a, i));
    for (size_t j = 0; j < K; ++j) limbs[i * K + j] = c[j];
  }
}
template <typename Field>
Field LaneCoordinateToScalar(const uint64_t* limbs) {
  using LF = LaneField<Field>;
  constexpr size_t K = Radix52<typename LF::Base>::K;
  typename LF::Base components[LF::kDegree];
  for (size_t i = 0; i < LF::kDegree; ++i) {
    components[i] = LaneLimbsToScalar<typename LF::Base>(limbs + i * K);
  }
  return LF::Assemble(components);
}
template <typename Field>
void NegateLaneCoordinate(const uint64_t* a, uint64_t* out) {
  using LF = LaneField<Field>;
  constexpr size_t K = Radix52<typename LF::Base>::K;
  for (size_t i = 0; i < LF::kDegree; ++i) {
    NegateLaneLimbs<typename LF::Base>(a + i * K, out + i * K);
  }
}

}  // namespace provd::field::ifma
