// k * G for one fixed point G and many scalars k, as a key setup needs (every key point is a
// multiple of the generator): a table of d * 2^(w*j) * G for every w-bit window j and digit d
// turns each multiplication into one mixed addition per window and no doublings. With w = 8
// that is 32 additions for a 256-bit scalar against ~380 operations for double-and-add, for a
// table of 32 * 255 affine points (0.5 MiB for a BN254 G1 point).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "prover_core/curve/short_weierstrass.hpp"
#include "prover_core/thread_pool.hpp"

namespace provd::curve {

template <typename C>
class FixedBaseMul {
 public:
  using Affine = AffinePoint<C>;
  using Xyzz = XyzzPoint<C>;
  using ScalarInt = typename C::ScalarInt;
  static constexpr size_t kWindowBits = 8;  // a byte: digits come straight from the limbs
  static constexpr size_t kDigits = (size_t{1} << kWindowBits) - 1;  // digit 0 adds nothing
  static constexpr size_t kWindows = (ScalarInt::kBits + kWindowBits - 1) / kWindowBits;

  explicit FixedBaseMul(const Affine& base) : table_(kWindows * kDigits) {
    std::vector<Xyzz> multiples(table_.size());
    Xyzz window_base(base);  // 2^(w*j) * G
    for (size_t j = 0; j < kWindows; ++j) {
      Xyzz acc = window_base;
      for (size_t d = 0; d < kDigits; ++d) {
        multiples[j * kDigits + d] = acc;
        acc.Add(window_base);
      }
      window_base = acc;  // 256 * 2^(w*j) * G
    }
    BatchToAffine<C>(multiples, table_);
  }

  Xyzz operator()(const ScalarInt& k) const {
    Xyzz acc;
    for (size_t j = 0; j < kWindows; ++j) {
      const uint32_t digit = static_cast<uint8_t>(k.limbs[j / 8] >> (8 * (j % 8)));
      if (digit != 0) acc.AddAffine(table_[j * kDigits + digit - 1]);
    }
    return acc;
  }

  // out[i] = scalars[i] * G in affine form, in parallel on `pool`.
  template <typename Fr>
  void MulMany(std::span<const Fr> scalars, std::span<Affine> out, ThreadPool& pool) const {
    pool.ParallelForRange(scalars.size(), 256, [&](size_t begin, size_t end) {
      std::vector<Xyzz> products(end - begin);
      for (size_t i = begin; i < end; ++i) products[i - begin] = (*this)(scalars[i].ToCanonical());
      BatchToAffine<C>(products, out.subspan(begin, end - begin));
    });
  }

 private:
  std::vector<Affine> table_;
};

}  // namespace provd::curve
