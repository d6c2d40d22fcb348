// half_float — IEEE binary16 for host references in the tests, written out (round to nearest
// even; what _Float16 conversions give with gcc) because clang 14, Debian 12's, has no _Float16 on
// x86-64 and the sanitizer stage builds with it.
#ifndef SIMTVP_TESTS_HALF_FLOAT_H
#define SIMTVP_TESTS_HALF_FLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>

// The binary16 encoding of d, rounded to nearest even (overflow: infinity; NaN: a quiet NaN).
inline uint16_t half_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
  int exp = (int)((b >> 52) & 0x7ff);
  uint64_t man = b & ((1ull << 52) - 1);
  if (exp == 0x7ff) return sign | 0x7c00u | (man ? 0x200u : 0u);  // infinity, quiet NaN
  if (exp == 0) return sign;                                       // double subnormals: far below
  int e = exp - 1023;
  if (e > 15) return sign | 0x7c00u;
  uint64_t m = man | (1ull << 52);
  int shift = e >= -14 ? 42 : 28 - e;  // bits below half precision's last significand bit
  if (shift > 63) return sign;
  uint64_t keep = m >> shift, rem = m & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (keep & 1))) keep++;
  if (e < -14) return (uint16_t)(sign | keep);  // subnormal (0x400 after rounding: the smallest normal)
  uint32_t hexp = (uint32_t)(e + 15);
  if (keep >> 11) {
    keep >>= 1;
    hexp++;
  }
  if (hexp >= 31) return sign | 0x7c00u;
  return (uint16_t)(sign | hexp << 10 | (keep & 0x3ffu));
}

// The value of a binary16 encoding.
inline float half_value(uint16_t u) {
  uint32_t sign = (uint32_t)(u & 0x8000u) << 16, exp = (u >> 10) & 0x1fu, man = u & 0x3ffu;
  if (exp == 31) return sign ? -(man ? NAN : INFINITY) : (man ? NAN : INFINITY);
  float v = exp ? std::ldexp((float)(man | 0x400u), (int)exp - 25) : std::ldexp((float)man, -24);
  return sign ? -v : v;
}

#endif  // SIMTVP_TESTS_HALF_FLOAT_H
