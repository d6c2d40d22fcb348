/* alu_int — the longer integer and bit-manipulation instructions (PTX ISA 9.7.1.17-24: brev, bfe,
 * bfi, szext, bmsk, dp4a, dp2a, fns; 9.7.8.7 prmt; 9.7.18 video). Each follows the ISA's own
 * pseudocode. */
#include "alu.h"

uint32_t alu_brev_b32(uint32_t a) {
  a = ((a >> 1) & 0x55555555u) | ((a & 0x55555555u) << 1);
  a = ((a >> 2) & 0x33333333u) | ((a & 0x33333333u) << 2);
  a = ((a >> 4) & 0x0f0f0f0fu) | ((a & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(a);
}

uint64_t alu_brev_b64(uint64_t a) {
  return ((uint64_t)alu_brev_b32((uint32_t)a) << 32) | alu_brev_b32((uint32_t)(a >> 32));
}

/* bfe on a value of `width` bits (32 or 64). */
static uint64_t bfe(uint64_t a, uint32_t b, uint32_t c, unsigned width, bool is_signed) {
  unsigned msb = width - 1;
  unsigned pos = b & 0xffu, len = c & 0xffu;
  uint64_t sbit = 0;
  if (is_signed && len != 0) {
    unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
    sbit = (a >> top) & 1u;
  }
  /* bits [0, n) come from a[pos ..], the rest are sbit; n = min(len, width - pos) (0 if pos > msb) */
  unsigned n = pos > msb ? 0 : (len < width - pos ? len : width - pos);
  uint64_t wmask = width == 64 ? ~0ull : (1ull << width) - 1;
  uint64_t field = n == 0 ? 0 : (a >> pos) & (n >= 64 ? ~0ull : (1ull << n) - 1);
  uint64_t fill = (sbit && n < 64) ? (~0ull << n) : 0;
  return (field | fill) & wmask;
}
uint32_t alu_bfe_u32(uint32_t a, uint32_t pos, uint32_t len) { return (uint32_t)bfe(a, pos, len, 32, false); }
uint32_t alu_bfe_s32(uint32_t a, uint32_t pos, uint32_t len) { return (uint32_t)bfe(a, pos, len, 32, true); }
uint64_t alu_bfe_u64(uint64_t a, uint32_t pos, uint32_t len) { return bfe(a, pos, len, 64, false); }
uint64_t alu_bfe_s64(uint64_t a, uint32_t pos, uint32_t len) { return bfe(a, pos, len, 64, true); }

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t c, uint32_t d, unsigned width) {
  unsigned pos = c & 0xffu, len = d & 0xffu;
  if (len == 0 || pos >= width) return b;
  unsigned n = len < width - pos ? len : width - pos;
  uint64_t m = (n >= 64 ? ~0ull : (1ull << n) - 1) << pos;
  return (b & ~m) | ((a << pos) & m);
}
uint32_t alu_bfi_b32(uint32_t a, uint32_t b, uint32_t pos, uint32_t len) { return (uint32_t)bfi(a, b, pos, len, 32); }
uint64_t alu_bfi_b64(uint64_t a, uint64_t b, uint32_t pos, uint32_t len) { return bfi(a, b, pos, len, 64); }

uint32_t alu_prmt_b32(uint32_t a, uint32_t b, uint32_t c, ptx_prmt_mode mode) {
  uint64_t src = ((uint64_t)b << 32) | a; /* bytes b7..b0 */
  /* Selectors per destination byte (d.b0 .. d.b3), from the ISA's table of the special modes. */
  static const uint8_t f4e[4][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}};
  static const uint8_t b4e[4][4] = {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
  static const uint8_t rc8[4][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}};
  static const uint8_t ecl[4][4] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
  static const uint8_t ecr[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
  static const uint8_t rc16[4][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
  const uint8_t(*table)[4] = NULL;
  switch (mode) {
  case PTX_PRMT_F4E: table = f4e; break;
  case PTX_PRMT_B4E: table = b4e; break;
  case PTX_PRMT_RC8: table = rc8; break;
  case PTX_PRMT_ECL: table = ecl; break;
  case PTX_PRMT_ECR: table = ecr; break;
  case PTX_PRMT_RC16: table = rc16; break;
  default: break;
  }
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; i++) {
    uint32_t byte;
    if (table) {
      byte = (uint32_t)(src >> (8 * table[c & 3u][i])) & 0xffu;
    } else {
      uint32_t sel = (c >> (4 * i)) & 0xfu;
      byte = (uint32_t)(src >> (8 * (sel & 7u))) & 0xffu;
      if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0; /* replicate the byte's sign */
    }
    d |= byte << (8 * i);
  }
  return d;
}

uint32_t alu_bmsk_b32(uint32_t a, uint32_t b, bool wrap) {
  uint32_t a1 = a & 0x1fu, b1 = b & 0x1fu, sum = a1 + b1;
  uint32_t mask0 = ~0u << a1;
  uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
  bool overflow = sum >= 32;
  if (!wrap) {
    if (a >= 32) {
      overflow = true;
      mask0 = 0;
    }
    if (b >= 32) overflow = true;
  }
  if (overflow) mask1 = 0;
  else if (b1 == 0) mask1 = ~0u;
  return mask0 & ~mask1;
}

uint32_t alu_szext_b32(uint32_t a, uint32_t b, bool is_signed, bool wrap) {
  uint32_t b1 = b & 0x1fu;
  bool too_large = b >= 32 && !wrap;
  uint32_t mask = too_large ? 0 : ~0u << b1;
  uint32_t sign_pos = (b1 - 1) & 0x1fu;
  bool sign_bit = (b1 == 0 || too_large || !is_signed) ? false : ((a >> sign_pos) & 1u);
  return (a & ~mask) | (sign_bit ? mask : 0);
}

static inline int32_t byte_of(uint32_t x, unsigned i, bool is_signed) {
  uint32_t v = (x >> (8 * i)) & 0xffu;
  return is_signed ? (int32_t)(int8_t)v : (int32_t)v;
}
static inline int32_t half_of(uint32_t x, unsigned i, bool is_signed) {
  uint32_t v = (x >> (16 * i)) & 0xffffu;
  return is_signed ? (int32_t)(int16_t)v : (int32_t)v;
}

uint32_t alu_dp4a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed) {
  uint32_t d = c;
  for (unsigned i = 0; i < 4; i++)
    d += (uint32_t)(byte_of(a, i, a_signed) * byte_of(b, i, b_signed));
  return d;
}

uint32_t alu_dp2a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed, bool hi) {
  unsigned base = hi ? 2 : 0;
  uint32_t d = c;
  for (unsigned i = 0; i < 2; i++)
    d += (uint32_t)(half_of(a, i, a_signed) * byte_of(b, base + i, b_signed));
  return d;
}

uint32_t alu_fns_b32(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return ((mask >> (base & 31u)) & 1u) ? base : 0xffffffffu;
  int64_t count = (offset > 0 ? (int64_t)offset : -(int64_t)offset) - 1;
  int inc = offset > 0 ? 1 : -1;
  for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc) {
    if ((mask >> pos) & 1u) {
      if (count == 0) return (uint32_t)pos;
      count--;
    }
  }
  return 0xffffffffu;
}

/* ---- video ---- */

static int64_t video_op(alu_vop op, int64_t x, int64_t y) {
  switch (op) {
  case ALU_VADD: return x + y;
  case ALU_VSUB: return x - y;
  case ALU_VMIN: return x < y ? x : y;
  case ALU_VMAX: return x > y ? x : y;
  default: return x < y ? y - x : x - y;
  }
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

uint32_t alu_video4(alu_vop op, uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed,
                    bool sat, ptx_video_op sec) {
  /* the destination is signed when either source is (PTX 9.7.18.2: .dtype follows the sources in
   * the forms real code uses: vabsdiff4.u32.u32.u32) */
  bool d_signed = a_signed || b_signed;
  int64_t t[4];
  for (unsigned i = 0; i < 4; i++) {
    t[i] = video_op(op, byte_of(a, i, a_signed), byte_of(b, i, b_signed));
    if (sat && sec != PTX_VIDEO_ADD) t[i] = d_signed ? clamp64(t[i], -128, 127) : clamp64(t[i], 0, 255);
  }
  if (sec == PTX_VIDEO_ADD) return c + (uint32_t)(t[0] + t[1] + t[2] + t[3]);
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; i++) {
    int64_t v = t[i];
    if (sec == PTX_VIDEO_MIN || sec == PTX_VIDEO_MAX) {
      int64_t cv = byte_of(c, i, d_signed);
      v = sec == PTX_VIDEO_MIN ? (v < cv ? v : cv) : (v > cv ? v : cv);
    }
    d |= ((uint32_t)v & 0xffu) << (8 * i);
  }
  return d;
}

uint32_t alu_video1(alu_vop op, uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed,
                    bool d_signed, bool sat, ptx_video_op sec) {
  int64_t x = a_signed ? (int64_t)(int32_t)a : (int64_t)a;
  int64_t y = b_signed ? (int64_t)(int32_t)b : (int64_t)b;
  int64_t t = video_op(op, x, y);
  if (sat) t = d_signed ? clamp64(t, INT32_MIN, INT32_MAX) : clamp64(t, 0, UINT32_MAX);
  int64_t cv = d_signed ? (int64_t)(int32_t)c : (int64_t)c;
  switch (sec) {
  case PTX_VIDEO_ADD: t = t + cv; break;
  case PTX_VIDEO_MIN: t = t < cv ? t : cv; break;
  case PTX_VIDEO_MAX: t = t > cv ? t : cv; break;
  default: break;
  }
  return (uint32_t)t;
}
