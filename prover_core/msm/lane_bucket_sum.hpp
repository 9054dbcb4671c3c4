// The bucket reduction of a window, sum_b (b + 1) * bucket_b, in eight AVX-512 IFMA lanes.
//
// Why: once the bucket additions ran in lanes (batch_affine_ifma.hpp), the scalar running-sum
// reduction (two XYZZ additions per bucket, ~27 scalar products) was as slow as all of a
// window's additions at 2^16 points. Here the buckets are cut into eight contiguous segments,
// lane l runs the running sum of segment l (buckets l*S .. l*S + S - 1, from the top down) in
// XYZZ coordinates, and the segments combine at the end:
//   sum_b (b + 1) B_b = sum_l [ total_l + l*S * running_l ],
// where total_l = sum_k (k + 1) B_(l*S + k) and running_l = sum_k B_(l*S + k).
//
// Exceptional additions (equal points: a doubling) are rare and leave the lanes: the lane keeps
// its old value and the scalar formulas, which handle every case, redo that one addition.
// Infinity and cancellation (ZZ = 0) are handled in the lanes by selects.
#pragma once

#include <cstddef>
#include <cstdint>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/field/ifma_extension.hpp"

namespace provd::msm::internal {

// An affine point stored in canonical lane form (x then y) as the scalar code's point.
template <typename C>
curve::AffinePoint<C> LaneAffineToScalar(const uint64_t* limbs) {
  using Field = typename C::Field;
  constexpr size_t kCoordinateLimbs =
      field::ifma::LaneField<Field>::kDegree *
      field::ifma::Radix52<typename field::ifma::LaneField<Field>::Base>::K;
  return curve::AffinePoint<C>::FromXY(
      field::ifma::LaneCoordinateToScalar<Field>(limbs),
      field::ifma::LaneCoordinateToScalar<Field>(limbs + kCoordinateLimbs));
}

#if PROVD_HAVE_IFMA

template <typename C>
class LaneBucketSum {
 public:
  using Field = typename C::Field;
  using Ops = typename field::ifma::LaneField<Field>::Ops;
  using V = typename Ops::V;
  using Block = typename Ops::Block;
  using Affine = curve::AffinePoint<C>;
  using Xyzz = curve::XyzzPoint<C>;
  static constexpr size_t kCoordinateLimbs = Ops::kElementLimbs;
  static constexpr size_t kStride = 2 * kCoordinateLimbs;

  // `buckets`: `count` affine points in canonical lane form (x then y, kStride limbs each),
  // `empty[b]` nonzero for empty ones. `count` a power of two, at least 8.
  PROVD_IFMA_TARGET static Xyzz WeightedSum(const uint64_t* buckets, const uint8_t* empty,
                                            size_t count) {
    const size_t segment = count / 8;
    Points running = Infinity();
    Points total = Infinity();
    for (size_t k = segment; k-- > 0;) {
      // Lane l reads bucket l * segment + k.
      alignas(64) int64_t offsets[8];
      __mmask8 present = 0;
      for (size_t l = 0; l < 8; ++l) {
        offsets[l] = static_cast<int64_t>((l * segment + k) * kStride);
        present |= static_cast<__mmask8>((empty[l * segment + k] == 0 ? 1u : 0u) << l);
      }
      if (present != 0) {
        const __m512i offset = _mm512_load_si512(offsets);
        const V qx = Ops::Gather(buckets, offset, present, Ops::Zero());
        const V qy = Ops::Gather(buckets + kCoordinateLimbs, offset, present, Ops::Zero());
        const Points before = running;
        const __mmask8 doubling = AddAffine(running, qx, qy, present);
        for (size_t l = 0; l < 8; ++l) {
          if ((doubling >> l & 1) == 0) continue;
          Xyzz r = ReadPoint(before, l);
          r.AddAffine(LaneAffineToScalar<C>(buckets + (l * segment + k) * kStride));
          WritePoint(running, l, r);
        }
      }
      const Points total_before = total;
      const __mmask8 doubling = Add(total, running);
      for (size_t l = 0; l < 8; ++l) {
        if ((doubling >> l & 1) == 0) continue;
        Xyzz t = ReadPoint(total_before, l);
        t.Add(ReadPoint(running, l));
        WritePoint(total, l, t);
      }
    }
    // sum_l total_l + segment * sum_l l * running_l; the inner sum as a running sum.
    Xyzz sum;
    Xyzz suffix;
    Xyzz weighted;
    for (size_t l = 8; l-- > 0;) {
      sum.Add(ReadPoint(total, l));
      if (l == 0) break;
      suffix.Add(ReadPoint(running, l));
      weighted.Add(suffix);
    }
    for (size_t s = segment; s > 1; s >>= 1) weighted = weighted.Double();  // a power of two
    sum.Add(weighted);
    return sum;
  }

 private:
  struct Points {
    V x, y, zz, zzz;
  };

  PROVD_IFMA_INLINE static Points Infinity() {
    return {Ops::Zero(), Ops::Zero(), Ops::Zero(), Ops::Zero()};
  }

  // a += (qx, qy) in the lanes of `present` (madd-2008-s, as XyzzPoint::AddAffine). Returns
  // the lanes that needed a doubling; those keep their old value.
  PROVD_IFMA_INLINE static __mmask8 AddAffine(Points& a, const V& qx, const V& qy,
                                              __mmask8 present) {
    const __mmask8 a_infinity = Ops::IsZero(a.zz);
    const V p = Ops::Sub(Ops::Mul(qx, a.zz), a.x);
    const V r = Ops::Sub(Ops::Mul(qy, a.zzz), a.y);
    const __mmask8 p_zero = Ops::IsZero(p);
    const __mmask8 r_zero = Ops::IsZero(r);
    const V pp = Ops::Square(p);
    const V ppp = Ops::Mul(p, pp);
    const V qq = Ops::Mul(a.x, pp);
    const V x3 = Ops::Sub(Ops::Sub(Ops::Square(r), ppp), Ops::Add(qq, qq));
    const V y3 = Ops::Sub(Ops::Mul(r, Ops::SubLazy(qq, x3)), Ops::Mul(a.y, ppp));
    const V zz3 = Ops::Mul(a.zz, pp);
    const V zzz3 = Ops::Mul(a.zzz, ppp);
    const __mmask8 generic = present & ~a_infinity & ~p_zero;
    const __mmask8 take_q = present & a_infinity;
    const __mmask8 cancel = present & ~a_infinity & p_zero & ~r_zero;
    const V one = Ops::One();
    a.x = Ops::Select(take_q, qx, Ops::Select(generic, x3, a.x));
    a.y = Ops::Select(take_q, qy, Ops::Select(generic, y3, a.y));
    a.zz =
        Ops::Select(take_q, one, Ops::Select(cancel, Ops::Zero(), Ops::Select(generic, zz3, a.zz)));
    a.zzz = Ops::Select(take_q, one,
                        Ops::Select(cancel, Ops::Zero(), Ops::Select(generic, zzz3, a.zzz)));
    return present & ~a_infinity & p_zero & r_zero;
  }

  // t += a in every lane (add-2008-s, as XyzzPoint::Add). Returns the lanes that needed a
  // doubling; those keep their old value.
  PROVD_IFMA_INLINE static __mmask8 Add(Points& t, const Points& a) {
    const __mmask8 t_infinity = Ops::IsZero(t.zz);
    const __mmask8 a_infinity = Ops::IsZero(a.zz);
    const V u1 = Ops::Mul(t.x, a.zz);
    const V s1 = Ops::Mul(t.y, a.zzz);
    const V p = Ops::Sub(Ops::Mul(a.x, t.zz), u1);
    const V r = Ops::Sub(Ops::Mul(a.y, t.zzz), s1);
    const __mmask8 p_zero = Ops::IsZero(p);
    const __mmask8 r_zero = Ops::IsZero(r);
    const V pp = Ops::Square(p);
    const V ppp = Ops::Mul(p, pp);
    const V qq = Ops::Mul(u1, pp);
    const V x3 = Ops::Sub(Ops::Sub(Ops::Square(r), ppp), Ops::Add(qq, qq));
    const V y3 = Ops::Sub(Ops::Mul(r, Ops::SubLazy(qq, x3)), Ops::Mul(s1, ppp));
    const V zz3 = Ops::Mul(Ops::Mul(t.zz, a.zz), pp);
    const V zzz3 = Ops::Mul(Ops::Mul(t.zzz, a.zzz), ppp);
    const __mmask8 both = ~t_infinity & ~a_infinity;
    const __mmask8 generic = both & ~p_zero;
    const __mmask8 take_a = t_infinity & ~a_infinity;
    const __mmask8 cancel = both & p_zero & ~r_zero;
    t.x = Ops::Select(take_a, a.x, Ops::Select(generic, x3, t.x));
    t.y = Ops::Select(take_a, a.y, Ops::Select(generic, y3, t.y));
    t.zz = Ops::Select(take_a, a.zz,
                       Ops::Select(cancel, Ops::Zero(), Ops::Select(generic, zz3, t.zz)));
    t.zzz = Ops::Select(take_a, a.zzz,
                        Ops::Select(cancel, Ops::Zero(), Ops::Select(generic, zzz3, t.zzz)));
    return both & p_zero & r_zero;
  }

  PROVD_IFMA_TARGET static Field ReadCoordinate(const V& v, size_t lane) {
    Block block;
    Ops::Store(block, Ops::Canonical(v));
    uint64_t limbs[kCoordinateLimbs];
    Ops::ReadLane(block, lane, limbs);
    return field::ifma::LaneCoordinateToScalar<Field>(limbs);
  }
  PROVD_IFMA_TARGET static void WriteCoordinate(V& v, size_t lane, const Field& value) {
    Block block;
    Ops::Store(block, v);
    uint64_t limbs[kCoordinateLimbs];
    field::ifma::ScalarToLaneCoordinate(value, limbs);
    Ops::WriteLane(block, lane, limbs);
    v = Ops::Load(block);
  }
  PROVD_IFMA_TARGET static Xyzz ReadPoint(const Points& a, size_t lane) {
    return Xyzz::FromCoordinates(ReadCoordinate(a.x, lane), ReadCoordinate(a.y, lane),
                                 ReadCoordinate(a.zz, lane), ReadCoordinate(a.zzz, lane));
  }
  PROVD_IFMA_TARGET static void WritePoint(Points& a, size_t lane, const Xyzz& p) {
    WriteCoordinate(a.x, lane, p.x());
    WriteCoordinate(a.y, lane, p.y());
    WriteCoordinate(a.zz, lane, p.zz());
    WriteCoordinate(a.zzz, lane, p.zzz());
  }
};

#endif  // PROVD_HAVE_IFMA

}  // namespace provd::msm::internal
