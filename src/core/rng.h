// A small deterministic PRNG for reproducible experiments: SplitMix64 (Steele, Lea and Flood,
// 2014), whose output for a seed is fixed by its definition, so a run gives the same numbers on
// every platform and standard library (unlike std::*_distribution). Not thread-safe.
#ifndef SQUEEZE_CORE_RNG_H_
#define SQUEEZE_CORE_RNG_H_

#include <cstdint>

namespace squeeze {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // The next 64 bits of the SplitMix64 stream.
  uint64_t Next();
  // Uniform in [0, n), n >= 1, without modulo bias: outputs below 2^64 mod n are rejected.
  uint64_t UniformInt(uint64_t n);

 private:
  uint64_t state_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_RNG_H_
