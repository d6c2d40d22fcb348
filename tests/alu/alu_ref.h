// alu_ref — an independent reference for the alu tests: exact arithmetic on binary values held in
// 128-bit integers, and its own rounding of the exact result to any of the GPU's formats. It
// shares no code with models/func/alu (which rounds through a different algorithm and in 64-bit
// arithmetic), so agreement between the two is evidence, not tautology.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ref {

using u128 = unsigned __int128;

struct Fmt {
  int p;          // precision in bits, hidden bit included
  int exp_bits;
  int bias;
  bool has_inf;   // false: OCP e4m3 (no Inf, only S.1111.111 is NaN)
  int total_bits() const { return 1 + exp_bits + p - 1; }
  int emin() const { return 1 - bias; }                    // leading-bit exponent of the smallest normal
  int emax() const { return has_inf ? bias : (1 << exp_bits) - 1 - bias; }
};
extern const Fmt F64, F32, F16, BF16, TF32, E4M3, E5M2;

enum Mode { RN, RZ, RM, RP, RNA };

// |x| = (m + sticky * eps) * 2^e with 0 < eps < 1.
struct Exact {
  bool neg = false;
  u128 m = 0;
  int e = 0;
  bool sticky = false;
  bool is_zero() const { return m == 0 && !sticky; }
};

enum Class { ZERO, FINITE, INF, NAN_ };
struct Decoded {
  Class cls;
  Exact x;  // sign always set; value for ZERO/FINITE
};
Decoded decode(const Fmt &f, uint64_t bits);

// Rounds x (not zero) to f. Overflow: Inf or the largest finite value as IEEE 754 7.4 says for the
// mode, always the largest finite with satfinite or for formats without Inf.
uint64_t round(const Fmt &f, const Exact &x, Mode mode, bool satfinite = false);
uint64_t max_finite(const Fmt &f, bool neg);
uint64_t inf(const Fmt &f, bool neg);

// Exact operations on finite values (inputs without sticky; div/sqrt results carry sticky).
Exact add(const Exact &a, const Exact &b);
Exact mul(const Exact &a, const Exact &b);
Exact div(const Exact &a, const Exact &b);
Exact sqrt(const Exact &a);
// Exact integer rounding of |x| with the given mode (x finite); *overflow when >= 2^127.
u128 to_integer(const Exact &x, Mode mode, bool *overflow);

// Test inputs: deterministic pseudo-random bit patterns of a format, weighted towards the corners
// (zeros, subnormals, Inf, NaN, values near 1, near overflow, close exponents).
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint64_t bits(const Fmt &f);
  uint64_t near(const Fmt &f, uint64_t other);  // a value with an exponent close to `other`'s
  uint64_t u64() { return rng_(); }
  uint32_t u32() { return (uint32_t)rng_(); }
  std::mt19937_64 &rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

// Every interesting special value of a format (±0, ±min subnormal, ±max subnormal, ±min normal,
// ±1, ±max finite, ±Inf, a quiet and a signalling NaN of each sign).
std::vector<uint64_t> specials(const Fmt &f);

}  // namespace ref
