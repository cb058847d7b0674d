#include "core/rng.h"

#include <cassert>

namespace squeeze {

uint64_t Rng::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::UniformInt(uint64_t n) {
  assert(n >= 1);
  // 2^64 mod n: the outputs [0, threshold) are the incomplete last cycle of residues.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t x = Next();
    if (x >= threshold) return x % n;
  }
}

}  // namespace squeeze
