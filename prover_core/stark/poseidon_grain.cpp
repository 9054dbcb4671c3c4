#include "prover_core/stark/poseidon_grain.hpp"

namespace provd::stark {
namespace {

// Writes the `width` low bits of `value`, most significant first.
size_t PutBits(uint8_t* out, size_t at, unsigned value, unsigned width) {
  for (unsigned i = 0; i < width; ++i) out[at + i] = (value >> (width - 1 - i)) & 1;
  return at + width;
}

}  // namespace

GrainBits::GrainBits(unsigned field, unsigned sbox, unsigned field_bits, unsigned width,
                     unsigned full_rounds, unsigned partial_rounds) {
  size_t at = PutBits(state_, 0, field, 2);
  at = PutBits(state_, at, sbox, 4);
  at = PutBits(state_, at, field_bits, 12);
  at = PutBits(state_, at, width, 12);
  at = PutBits(state_, at, full_rounds, 10);
  at = PutBits(state_, at, partial_rounds, 10);
  while (at < 80) state_[at++] = 1;
  for (int i = 0; i < 160; ++i) Step();
}

// b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i.
bool GrainBits::Step() {
  auto bit = [&](size_t k) { return state_[(head_ + k) % 80]; };
  const uint8_t next = bit(62) ^ bit(51) ^ bit(38) ^ bit(23) ^ bit(13) ^ bit(0);
  state_[head_] = next;  // the oldest bit's slot becomes the newest
  head_ = (head_ + 1) % 80;
  return next != 0;
}

bool GrainBits::Next() {
  for (;;) {
    const bool keep = Step();
    const bool bit = Step();
    if (keep) return bit;
  }
}

}  // namespace provd::stark
