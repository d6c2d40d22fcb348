// Integer, logic, shift, bit-manipulation, extended-precision, mov/selp/setp semantics of the
// functional engine, each through a tiny PTX kernel and compared with an independent host
// computation (PTX ISA 9.7.1, 9.7.2, 9.7.5-9.7.9).
#include <climits>
#include <functional>
#include <string>

#include "func_test_util.h"

using namespace functest;

namespace {

const uint32_t k32[] = {0u, 1u, 2u, 3u, 7u, 31u, 32u, 33u, 0x7fffffffu, 0x80000000u, 0x80000001u,
                        0xfffffffeu, 0xffffffffu, 0x12345678u, 0xdeadbeefu, 0x00010000u};
const uint64_t k64[] = {0ull, 1ull, 63ull, 64ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                        0xffffffffffffffffull, 0x00000000ffffffffull, 0x123456789abcdef0ull,
                        0xfedcba9876543210ull, 0x0000000100000000ull, 2ull};

// Every (a, b) pair of 32-bit corner values, one per thread: in q[0] = a | b << 32.
std::vector<Slot> pairs32() {
  std::vector<Slot> in;
  for (uint32_t a : k32)
    for (uint32_t b : k32) {
      Slot s;
      s.set_u32(0, a);
      s.set_u32(1, b);
      s.set_u32(2, a ^ (b << 3));
      in.push_back(s);
    }
  return in;
}
std::vector<Slot> pairs64() {
  std::vector<Slot> in;
  for (uint64_t a : k64)
    for (uint64_t b : k64) {
      Slot s;
      s.q[0] = a;
      s.q[1] = b;
      s.q[2] = a * 3 + b;
      in.push_back(s);
    }
  return in;
}

// Runs `op` (a PTX line using %r2 = a, %r3 = b, %r4 = c, result in %r5) over 32-bit pairs.
void check32(const std::string &op, const std::function<uint32_t(uint32_t, uint32_t, uint32_t)> &want) {
  auto in = pairs32();
  auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n ld.global.u32 %r3, [%rd4+4];\n"
                       "ld.global.u32 %r4, [%rd4+8];\n" + op + "\n st.global.u32 [%rd5], %r5;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    uint32_t a = in[i].u32(0), b = in[i].u32(1), c = in[i].u32(2);
    ASSERT_EQ(out[i].u32(0), want(a, b, c)) << op << " a=0x" << std::hex << a << " b=0x" << b << " c=0x" << c;
  }
}
void check64(const std::string &op, const std::function<uint64_t(uint64_t, uint64_t, uint64_t)> &want) {
  auto in = pairs64();
  auto out = run_lanes("ld.global.u64 %rd6, [%rd4];\n ld.global.u64 %rd7, [%rd4+8];\n"
                       "ld.global.u64 %rd8, [%rd4+16];\n cvt.u32.u64 %r3, %rd7;\n" + op +
                       "\n st.global.u64 [%rd5], %rd9;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    uint64_t a = in[i].q[0], b = in[i].q[1], c = in[i].q[2];
    ASSERT_EQ(out[i].q[0], want(a, b, c)) << op << " a=0x" << std::hex << a << " b=0x" << b;
  }
}

int32_t s(uint32_t x) { return (int32_t)x; }

TEST(FuncInt, AddSubMulWrapAround32) {
  check32("add.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return a + b; });
  check32("sub.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return a - b; });
  check32("mul.lo.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return a * b; });
  check32("mad.lo.s32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) { return a * b + c; });
  check32("add.u32 %r5, %r2, 17;", [](uint32_t a, uint32_t, uint32_t) { return a + 17; });
  check32("sub.s32 %r5, -5, %r3;", [](uint32_t, uint32_t b, uint32_t) { return (uint32_t)-5 - b; });
}

// mul.wide by an immediate: a power of two below 2^31 takes the engine's shift path (the
// operand's extension shifted), anything else the general product; both are the exact 64-bit
// product of the extended operands.
TEST(FuncInt, MulWideByAnImmediateIsTheExactProduct) {
  auto in = pairs32();
  const char *imms[] = {"1", "2", "4", "8", "1073741824", "12", "-4", "0x80000000"};
  for (const char *imm : imms) {
    for (bool sgn : {true, false}) {
      std::string op = std::string("mul.wide.") + (sgn ? "s32" : "u32") + " %rd9, %r2, " + imm + ";";
      auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n" + op + "\n st.global.u64 [%rd5], %rd9;", in);
      uint32_t b = (uint32_t)std::stoll(imm, nullptr, 0);
      for (size_t i = 0; i < in.size(); i++) {
        uint32_t a = in[i].u32(0);
        uint64_t want = sgn ? (uint64_t)((int64_t)(int32_t)a * (int64_t)(int32_t)b) : (uint64_t)a * b;
        ASSERT_EQ(out[i].q[0], want) << op << " a=0x" << std::hex << a;
      }
    }
  }
}

TEST(FuncInt, MulHiAndWideUseTheFullProduct) {
  check32("mul.hi.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return (uint32_t)(((uint64_t)a * b) >> 32); });
  check32("mul.hi.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    return (uint32_t)((uint64_t)((int64_t)s(a) * s(b)) >> 32);
  });
  check32("mul.wide.s32 %rd9, %r2, %r3; cvt.u32.u64 %r5, %rd9; shr.u64 %rd9, %rd9, 32; cvt.u32.u64 %r6, %rd9; xor.b32 %r5, %r5, %r6;",
          [](uint32_t a, uint32_t b, uint32_t) {
            uint64_t p = (uint64_t)((int64_t)s(a) * s(b));
            return (uint32_t)p ^ (uint32_t)(p >> 32);
          });
  check32("mad.hi.sat.s32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) {
    int64_t hi = ((int64_t)s(a) * s(b)) >> 32;
    int64_t r = hi + s(c);
    return (uint32_t)(int32_t)(r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r);
  });
  check64("mul.hi.u64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) {
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
  });
  check64("mul.hi.s64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) {
    return (uint64_t)((__int128)(int64_t)a * (int64_t)b >> 64);
  });
  check64("mad.lo.s64 %rd9, %rd6, %rd7, %rd8;", [](uint64_t a, uint64_t b, uint64_t c) { return a * b + c; });
}

TEST(FuncInt, SaturatingAddClampsAtTheInt32Limits) {
  check32("add.sat.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    int64_t r = (int64_t)s(a) + s(b);
    return (uint32_t)(int32_t)(r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r);
  });
  check32("sub.sat.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    int64_t r = (int64_t)s(a) - s(b);
    return (uint32_t)(int32_t)(r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r);
  });
}

TEST(FuncInt, DivisionByZeroAndOverflowGiveTheHardwareResults) {
  check32("div.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return b ? a / b : 0xffffffffu; });
  check32("rem.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return b ? a % b : a; });
  check32("div.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) -> uint32_t {
    if (b == 0) return s(a) < 0 ? 1u : 0xffffffffu;
    if (s(b) == -1) return 0u - a;
    return (uint32_t)(s(a) / s(b));
  });
  check32("rem.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) -> uint32_t {
    if (b == 0) return a;
    if (s(b) == -1) return 0;
    return (uint32_t)(s(a) % s(b));
  });
  check64("div.s64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    if (b == 0) return (int64_t)a < 0 ? 1 : ~0ull;
    if ((int64_t)b == -1) return 0 - a;
    return (uint64_t)((int64_t)a / (int64_t)b);
  });
  check64("rem.u64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) { return b ? a % b : a; });
}

TEST(FuncInt, ShiftsByTheWidthOrMoreClamp) {
  check32("shl.b32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return b >= 32 ? 0 : a << b; });
  check32("shr.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return b >= 32 ? 0 : a >> b; });
  check32("shr.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    return (uint32_t)(s(a) >> (b >= 32 ? 31 : b));
  });
  check64("shl.b64 %rd9, %rd6, %r3;", [](uint64_t a, uint64_t b, uint64_t) {
    uint32_t n = (uint32_t)b;
    return n >= 64 ? 0 : a << n;
  });
  check64("shr.s64 %rd9, %rd6, %r3;", [](uint64_t a, uint64_t b, uint64_t) {
    uint32_t n = (uint32_t)b;
    return (uint64_t)((int64_t)a >> (n >= 64 ? 63 : n));
  });
  check32("shf.l.wrap.b32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) {
    uint32_t n = c & 31;
    return (uint32_t)((((uint64_t)b << 32 | a) << n) >> 32);
  });
  check32("shf.r.clamp.b32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) {
    uint32_t n = c > 32 ? 32 : c;
    return (uint32_t)(((uint64_t)b << 32 | a) >> n);
  });
}

TEST(FuncInt, SixteenBitArithmeticWrapsAndSignExtends) {
  check32("cvt.u16.u32 %h1, %r2; cvt.u16.u32 %h2, %r3; add.u16 %h3, %h1, %h2; cvt.u32.u16 %r5, %h3;",
          [](uint32_t a, uint32_t b, uint32_t) { return (a + b) & 0xffff; });
  check32("cvt.u16.u32 %h1, %r2; cvt.u16.u32 %h2, %r3; shr.s16 %h3, %h1, 3; cvt.s32.s16 %r5, %h3;",
          [](uint32_t a, uint32_t, uint32_t) { return (uint32_t)(int32_t)(int16_t)((int16_t)a >> 3); });
  check32("cvt.u16.u32 %h1, %r2; cvt.u16.u32 %h2, %r3; mul.wide.s16 %r5, %h1, %h2;",
          [](uint32_t a, uint32_t b, uint32_t) { return (uint32_t)((int32_t)(int16_t)a * (int16_t)b); });
  check32("cvt.u16.u32 %h1, %r2; cvt.u16.u32 %h2, %r3; min.s16 %h3, %h1, %h2; cvt.s32.s16 %r5, %h3;",
          [](uint32_t a, uint32_t b, uint32_t) {
            int16_t x = (int16_t)a, y = (int16_t)b;
            return (uint32_t)(int32_t)(x < y ? x : y);
          });
}

TEST(FuncInt, CarryChainsAdd64BitNumbersFrom32BitHalves) {
  // (a:c) + (b:c') with add.cc / addc, and the borrow chain with sub.cc / subc
  auto in = pairs64();
  auto out = run_lanes(
      "ld.global.u64 %rd6, [%rd4];\n ld.global.u64 %rd7, [%rd4+8];\n"
      "mov.b64 {%r2, %r3}, %rd6;\n mov.b64 {%r4, %r5}, %rd7;\n"
      "add.cc.u32 %r6, %r2, %r4;\n addc.u32 %r7, %r3, %r5;\n mov.b64 %rd8, {%r6, %r7};\n"
      "sub.cc.u32 %r8, %r2, %r4;\n subc.cc.u32 %r9, %r3, %r5;\n subc.u32 %r10, 0, 0;\n"
      "mov.b64 %rd9, {%r8, %r9};\n"
      "st.global.u64 [%rd5], %rd8;\n st.global.u64 [%rd5+8], %rd9;\n st.global.u32 [%rd5+16], %r10;",
      in);
  for (size_t i = 0; i < in.size(); i++) {
    uint64_t a = in[i].q[0], b = in[i].q[1];
    EXPECT_EQ(out[i].q[0], a + b);
    EXPECT_EQ(out[i].q[1], a - b);
    EXPECT_EQ(out[i].u32(4), a < b ? 0xffffffffu : 0u) << "borrow out of the 64-bit subtraction";
  }
}

TEST(FuncInt, MadCarryChainMultipliesTo64Bits) {
  // lo = a*b (low), hi = mul.hi + carry of (lo + c) — the multiword multiply nvcc emits
  check32("mad.lo.cc.u32 %r5, %r2, %r3, %r4; madc.hi.u32 %r6, %r2, %r3, 0; xor.b32 %r5, %r5, %r6;",
          [](uint32_t a, uint32_t b, uint32_t c) {
            uint64_t p = (uint64_t)a * b;
            uint64_t lo = (p & 0xffffffffu) + c;
            uint32_t hi = (uint32_t)(p >> 32) + (uint32_t)(lo >> 32);
            return (uint32_t)lo ^ hi;
          });
}

uint32_t ref_bfe_u(uint32_t a, uint32_t pos, uint32_t len) {
  pos &= 0xff, len &= 0xff;
  uint32_t r = 0;
  for (uint32_t i = 0; i < len && i < 32; i++) {
    uint32_t bit = pos + i < 32 ? (a >> (pos + i)) & 1 : 0;
    r |= bit << i;
  }
  return r;
}
uint32_t ref_bfe_s(uint32_t a, uint32_t pos, uint32_t len) {
  pos &= 0xff, len &= 0xff;
  uint32_t sbit = len == 0 ? 0 : (pos + len - 1 >= 31 ? a >> 31 : (a >> (pos + len - 1)) & 1);
  uint32_t r = 0;
  for (uint32_t i = 0; i < 32; i++) {
    uint32_t bit = i < len ? (pos + i < 32 ? (a >> (pos + i)) & 1 : sbit) : sbit;
    r |= bit << i;
  }
  return r;
}

TEST(FuncInt, BitFieldExtractAndInsertFollowTheIsaPseudocode) {
  check32("and.b32 %r6, %r3, 63; and.b32 %r7, %r4, 63; bfe.u32 %r5, %r2, %r6, %r7;",
          [](uint32_t a, uint32_t b, uint32_t c) { return ref_bfe_u(a, b & 63, c & 63); });
  check32("and.b32 %r6, %r3, 63; and.b32 %r7, %r4, 63; bfe.s32 %r5, %r2, %r6, %r7;",
          [](uint32_t a, uint32_t b, uint32_t c) { return ref_bfe_s(a, b & 63, c & 63); });
  check32("and.b32 %r6, %r4, 31; bfi.b32 %r5, %r2, %r3, %r6, 8;", [](uint32_t a, uint32_t b, uint32_t c) {
    uint32_t pos = c & 31, len = 8;
    uint32_t mask = (len >= 32 ? 0xffffffffu : ((1u << len) - 1)) << pos;
    return (b & ~mask) | ((a << pos) & mask);
  });
}

TEST(FuncInt, BitCountsAndReversal) {
  check32("popc.b32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return (uint32_t)__builtin_popcount(a); });
  check32("clz.b32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return a ? (uint32_t)__builtin_clz(a) : 32u; });
  check32("brev.b32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((a >> i) & 1) << (31 - i);
    return r;
  });
  check32("bfind.u32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return a ? 31u - __builtin_clz(a) : 0xffffffffu; });
  check32("bfind.s32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) {
    uint32_t x = s(a) < 0 ? ~a : a;
    return x ? 31u - __builtin_clz(x) : 0xffffffffu;
  });
  check32("bfind.shiftamt.u32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return a ? (uint32_t)__builtin_clz(a) : 0xffffffffu; });
  check64("popc.b64 %r5, %rd6; cvt.u64.u32 %rd9, %r5;", [](uint64_t a, uint64_t, uint64_t) { return (uint64_t)__builtin_popcountll(a); });
  check64("clz.b64 %r5, %rd6; cvt.u64.u32 %rd9, %r5;", [](uint64_t a, uint64_t, uint64_t) { return a ? (uint64_t)__builtin_clzll(a) : 64ull; });
}

TEST(FuncInt, PermuteSelectsBytes) {
  check32("prmt.b32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) {
    uint64_t x = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) {
      uint32_t sel = (c >> (4 * k)) & 0xf;
      uint32_t byte = (uint32_t)(x >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * k);
    }
    return r;
  });
}

TEST(FuncInt, LogicAndLop3) {
  check32("and.b32 %r5, %r2, %r3; or.b32 %r6, %r2, %r4; xor.b32 %r5, %r5, %r6; not.b32 %r5, %r5;",
          [](uint32_t a, uint32_t b, uint32_t c) { return ~((a & b) ^ (a | c)); });
  check32("lop3.b32 %r5, %r2, %r3, %r4, 0xe8;", [](uint32_t a, uint32_t b, uint32_t c) {
    return (a & b) | (a & c) | (b & c); // 0xe8 = majority
  });
  check32("cnot.b32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return a == 0 ? 1u : 0u; });
}

TEST(FuncInt, MinMaxAbsNeg) {
  check32("min.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return s(a) < s(b) ? a : b; });
  check32("max.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return a > b ? a : b; });
  check32("abs.s32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return s(a) < 0 ? 0u - a : a; });
  check32("neg.s32 %r5, %r2;", [](uint32_t a, uint32_t, uint32_t) { return 0u - a; });
  check64("min.s64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) { return (int64_t)a < (int64_t)b ? a : b; });
  check64("max.u64 %rd9, %rd6, %rd7;", [](uint64_t a, uint64_t b, uint64_t) { return a > b ? a : b; });
}

TEST(FuncInt, Mul24UsesTheLow24Bits) {
  check32("mul24.lo.u32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    return (uint32_t)((uint64_t)(a & 0xffffff) * (b & 0xffffff));
  });
  check32("mul24.hi.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) {
    int64_t x = (int32_t)(a << 8) >> 8, y = (int32_t)(b << 8) >> 8;
    return (uint32_t)((uint64_t)(x * y) >> 16);
  });
  check32("sad.u32 %r5, %r2, %r3, %r4;", [](uint32_t a, uint32_t b, uint32_t c) { return c + (a > b ? a - b : b - a); });
}

TEST(FuncInt, SetpEveryIntegerComparison) {
  struct C { const char *op; std::function<bool(uint32_t, uint32_t)> f; };
  std::vector<C> cmps = {
      {"eq.s32", [](uint32_t a, uint32_t b) { return a == b; }},
      {"ne.u32", [](uint32_t a, uint32_t b) { return a != b; }},
      {"lt.s32", [](uint32_t a, uint32_t b) { return s(a) < s(b); }},
      {"le.s32", [](uint32_t a, uint32_t b) { return s(a) <= s(b); }},
      {"gt.s32", [](uint32_t a, uint32_t b) { return s(a) > s(b); }},
      {"ge.s32", [](uint32_t a, uint32_t b) { return s(a) >= s(b); }},
      {"lt.u32", [](uint32_t a, uint32_t b) { return a < b; }},
      {"ge.u32", [](uint32_t a, uint32_t b) { return a >= b; }},
      {"lo.s32", [](uint32_t a, uint32_t b) { return a < b; }},
      {"ls.u32", [](uint32_t a, uint32_t b) { return a <= b; }},
      {"hi.u32", [](uint32_t a, uint32_t b) { return a > b; }},
      {"hs.s32", [](uint32_t a, uint32_t b) { return a >= b; }},
  };
  for (auto &c : cmps)
    check32(std::string("setp.") + c.op + " %p1, %r2, %r3; selp.u32 %r5, 1, 0, %p1;",
            [&](uint32_t a, uint32_t b, uint32_t) { return c.f(a, b) ? 1u : 0u; });
}

TEST(FuncInt, SetpCombinesWithAPredicateAndWritesTheComplementPair) {
  check32("setp.ne.u32 %p3, %r4, 0;\n setp.lt.and.s32 %p1|%p2, %r2, %r3, %p3;\n"
          "selp.u32 %r5, 1, 0, %p1; selp.u32 %r6, 2, 0, %p2; or.b32 %r5, %r5, %r6;",
          [](uint32_t a, uint32_t b, uint32_t c) {
            bool t = s(a) < s(b), p = c != 0;
            return (t && p ? 1u : 0u) | (!t && p ? 2u : 0u);
          });
  check32("setp.ne.u32 %p3, %r4, 0;\n setp.eq.xor.u32 %p1, %r2, %r3, !%p3;\n selp.u32 %r5, 1, 0, %p1;",
          [](uint32_t a, uint32_t b, uint32_t c) { return ((a == b) != (c == 0)) ? 1u : 0u; });
  check32("setp.gt.u32 %p1, %r2, %r3; setp.gt.u32 %p2, %r3, %r4; and.pred %p3, %p1, !%p2; "
          "or.pred %p4, %p3, %p2; xor.pred %p4, %p4, %p1; not.pred %p5, %p4; selp.u32 %r5, 1, 0, %p5;",
          [](uint32_t a, uint32_t b, uint32_t c) {
            bool p1 = a > b, p2 = b > c, p3 = p1 && !p2, p4 = (p3 || p2) != p1;
            return !p4 ? 1u : 0u;
          });
}

TEST(FuncInt, SetWritesAllOnesOrZero) {
  check32("set.lt.u32.s32 %r5, %r2, %r3;", [](uint32_t a, uint32_t b, uint32_t) { return s(a) < s(b) ? 0xffffffffu : 0u; });
}

TEST(FuncInt, MovPacksAndUnpacksVectors) {
  check32("cvt.u16.u32 %h1, %r2; cvt.u16.u32 %h2, %r3; mov.b32 %r5, {%h1, %h2};",
          [](uint32_t a, uint32_t b, uint32_t) { return (a & 0xffff) | (b << 16); });
  check32("mov.b32 {%h1, %h2}, %r2; cvt.u32.u16 %r5, %h2; cvt.u32.u16 %r6, %h1; shl.b32 %r6, %r6, 16; or.b32 %r5, %r5, %r6;",
          [](uint32_t a, uint32_t, uint32_t) { return (a >> 16) | (a << 16); });
  check64("mov.b64 {%r5, %r6}, %rd6; mov.b64 %rd9, {%r6, %r5};", [](uint64_t a, uint64_t, uint64_t) {
    return (a >> 32) | (a << 32);
  });
}

TEST(FuncInt, SelpPicksByPredicatePerLane) {
  check32("setp.lt.u32 %p1, %r2, %r3; selp.b32 %r5, %r2, %r3, %p1;",
          [](uint32_t a, uint32_t b, uint32_t) { return a < b ? a : b; });
  check64("setp.lt.u64 %p1, %rd6, %rd7; selp.b64 %rd9, %rd8, 77, !%p1;",
          [](uint64_t a, uint64_t b, uint64_t c) { return !(a < b) ? c : 77; });
}

TEST(FuncInt, GuardedInstructionsLeaveOtherLanesUntouched) {
  check32("mov.u32 %r5, 99; setp.lt.u32 %p1, %r2, %r3; @%p1 add.u32 %r5, %r2, %r3; @!%p1 sub.u32 %r5, %r5, 1;",
          [](uint32_t a, uint32_t b, uint32_t) { return a < b ? a + b : 98u; });
}

TEST(FuncInt, SpecialRegistersDescribeTheThread) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;  mov.u32 %r2, %tid.y;  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y; mov.u32 %r12, %nctaid.z;
  mov.u32 %r13, %laneid; mov.u32 %r14, %warpid; mov.u32 %r15, %lanemask_lt; mov.u32 %r16, %lanemask_ge;
  mov.u32 %r17, %lanemask_eq; mov.u32 %r18, %lanemask_le; mov.u32 %r19, %lanemask_gt;
  mov.u32 %r20, %nsmid; mov.u32 %r21, %dynamic_smem_size; mov.u32 %r22, %envreg3;
  // linear thread id in the grid
  mad.lo.u32 %r30, %r3, %r5, %r2;  mad.lo.u32 %r30, %r30, %r4, %r1;
  mad.lo.u32 %r31, %r9, %r11, %r8; mad.lo.u32 %r31, %r31, %r10, %r7;
  mul.lo.u32 %r32, %r4, %r5; mul.lo.u32 %r32, %r32, %r6;
  mad.lo.u32 %r33, %r31, %r32, %r30;
  mul.wide.u32 %rd2, %r33, 64; add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r7};
  st.global.v4.u32 [%rd3+16], {%r8, %r9, %r13, %r14};
  st.global.v4.u32 [%rd3+32], {%r15, %r16, %r17, %r18};
  st.global.v4.u32 [%rd3+48], {%r19, %r20, %r21, %r22};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  const uint32_t bx = 5, by = 3, bz = 4, gx = 2, gy = 2, gz = 2;  // 60 threads: two warps, the 2nd partial
  uint32_t n = bx * by * bz * gx * gy * gz;
  uint64_t out = g.alloc(n * 64);
  ASSERT_EQ(g.launch("k", gx, bx, {out}, 24, gy, by, gz, bz), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, n * 16);
  for (uint32_t cz = 0; cz < gz; cz++)
    for (uint32_t cy = 0; cy < gy; cy++)
      for (uint32_t cx = 0; cx < gx; cx++)
        for (uint32_t tz = 0; tz < bz; tz++)
          for (uint32_t ty = 0; ty < by; ty++)
            for (uint32_t tx = 0; tx < bx; tx++) {
              uint32_t t = (tz * by + ty) * bx + tx, c = (cz * gy + cy) * gx + cx;
              const uint32_t *e = &v[(c * bx * by * bz + t) * 16];
              uint32_t lane = t % 32;
              ASSERT_EQ(e[0], tx);
              ASSERT_EQ(e[1], ty);
              ASSERT_EQ(e[2], tz);
              ASSERT_EQ(e[3], cx);
              ASSERT_EQ(e[4], cy);
              ASSERT_EQ(e[5], cz);
              ASSERT_EQ(e[6], lane);
              ASSERT_EQ(e[7], t / 32);
              ASSERT_EQ(e[8], (1u << lane) - 1);
              ASSERT_EQ(e[9], ~((1u << lane) - 1));
              ASSERT_EQ(e[10], 1u << lane);
              ASSERT_EQ(e[11], lane == 31 ? 0xffffffffu : (2u << lane) - 1);
              ASSERT_EQ(e[12], lane == 31 ? 0u : ~((2u << lane) - 1));
              ASSERT_EQ(e[13], 1u);
              ASSERT_EQ(e[14], 24u);
              ASSERT_EQ(e[15], 0u);
            }
}

}  // namespace
