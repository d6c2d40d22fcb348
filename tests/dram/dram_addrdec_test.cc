// DramAddrdec — -gpgpu_mem_addr_mapping decoding on hand-decoded addresses, partition indexing
// (linear / xor / ipoly, the fallback of unmodelled ones), channel counts that are not powers of
// two, sub-partitions, malformed maps; the IPOLY polynomials.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "dram_addrdec.h"
#include "simtvp_gf2.h"
}

namespace {

// The TITAN V map (gpgpusim.config): channel by division at bit 8, then (bit 27 down to 0)
//   R×13 (27..15)  B (14..12)  C (11..9)  B (8)  C (7..5)  S×5 (4..0)
const char *kTitanV =
    "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS";
// Eight channels in D bits 7..5: R (31..16) B (15..12) C (11..8) D (7..5) S (4..0).
const char *kEightChannels =
    "00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.DDDSSSSS";
// Four channels in D bits 6..5: R (31..16) B (15..12) C (11..7) D (6..5) S (4..0).
const char *kFourChannels =
    "00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CDDSSSSS";

struct Map {
  dram_addrmap *m = nullptr;
  simtvp_diag diag{};
  simtvp_status st;
  Map(const char *text, uint32_t channels, uint32_t sub = 1,
      dram_partition_indexing idx = DRAM_PART_LINEAR) {
    dram_addrmap_config c = {text, channels, sub, idx};
    simtvp_diag_clear(&diag);
    st = dram_addrmap_create(&c, &m, &diag);
  }
  ~Map() { dram_addrmap_destroy(m); }
  dram_addr Decode(uint64_t a) const {
    dram_addr out;
    dram_addrmap_decode(m, a, &out);
    return out;
  }
};

}  // namespace

TEST(DramAddrdec, TitanVMapWithTwentyFourChannels) {
  Map map(kTitanV, 24, 2);
  ASSERT_EQ(map.st, SIMTVP_OK) << map.diag.message;
  // 0x12345678: addr >> 8 = 0x123456 = 1193046 = 24 × 49710 + 6 -> channel 6.
  // Remaining address: 49710 << 8 | 0x78 = 0xC22E78 = 1100 0010 0010 1110 0111 1000 (bits 23..0).
  //   S  = bits 4..0            = 11000     = 24
  //   C  = bits 11..9, 7..5     = 111, 011  = 59
  //   B  = bits 14..12, 8       = 010, 0    = 4
  //   R  = bits 27..15          = 0000 1100 0010 0 -> 388
  // Sub-partition = 6 × 2 + (bank 4 mod 2) = 12.
  dram_addr a = map.Decode(0x12345678);
  EXPECT_EQ(a.channel, 6u);
  EXPECT_EQ(a.burst, 24u);
  EXPECT_EQ(a.column, 59u);
  EXPECT_EQ(a.bank, 4u);
  EXPECT_EQ(a.row, 388u);
  EXPECT_EQ(a.sub_partition, 12u);
  EXPECT_EQ(dram_addrmap_bank_bits(map.m), 4u);
  EXPECT_EQ(dram_addrmap_row_bits(map.m), 13u);
  EXPECT_EQ(dram_addrmap_column_bits(map.m), 6u);
  // Consecutive 256-byte chunks rotate over all 24 channels.
  for (uint64_t i = 0; i < 48; i++) EXPECT_EQ(map.Decode(i * 256).channel, i % 24);
  // Bank bit 0 at address bit 8 of the remaining address: 0x100 after the channel division is
  // 24 × 256 = 0x1800 -> bank 1, sub-partition 1.
  EXPECT_EQ(map.Decode(0x1800).bank, 1u);
  EXPECT_EQ(map.Decode(0x1800).sub_partition, 1u);
}

TEST(DramAddrdec, ChannelBitsInTheMap) {
  Map map(kEightChannels, 8, 2);
  ASSERT_EQ(map.st, SIMTVP_OK) << map.diag.message;
  // row 0x1234, bank 0xA, column 5, channel 3, burst 7.
  dram_addr a = map.Decode(0x1234A567);
  EXPECT_EQ(a.channel, 3u);
  EXPECT_EQ(a.bank, 10u);
  EXPECT_EQ(a.row, 0x1234u);
  EXPECT_EQ(a.column, 5u);
  EXPECT_EQ(a.burst, 7u);
  EXPECT_EQ(a.sub_partition, 6u);  // 3 × 2 + (10 mod 2)
}

TEST(DramAddrdec, XorIndexingFoldsRowBitsIntoTheChannel) {
  Map map(kEightChannels, 8, 1, DRAM_PART_XOR);
  ASSERT_EQ(map.st, SIMTVP_OK);
  // Channel 3 ^ (row 0x1234 & 7 = 4) = 7.
  EXPECT_EQ(map.Decode(0x1234A567).channel, 7u);
  // A 64 KB stride (one row) stays in one channel with linear indexing, walks all 8 with xor.
  Map linear(kEightChannels, 8);
  std::set<uint32_t> lin, x;
  for (uint64_t i = 0; i < 8; i++) {
    lin.insert(linear.Decode(i << 16).channel);
    x.insert(map.Decode(i << 16).channel);
  }
  EXPECT_EQ(lin.size(), 1u);
  EXPECT_EQ(x.size(), 8u);
}

TEST(DramAddrdec, IpolyIndexingHashesTheUpperAddress) {
  Map map(kFourChannels, 4, 1, DRAM_PART_IPOLY);
  ASSERT_EQ(map.st, SIMTVP_OK);
  // 4 channels: k = 2, P = x^2 + x + 1. Channel bits 2 (0b10), address above them u = 0b101
  // (addr = 5 << 7 | 2 << 5 = 704). u·x^2 = x^4 + x^2; x^2 = x + 1 and x^4 = x (mod P), so
  // u·x^2 = x + x + 1 = 1 -> channel = 2 ^ 1 = 3.
  EXPECT_EQ(map.Decode(704).channel, 3u);
  // u = 0 leaves the channel alone.
  EXPECT_EQ(map.Decode(2 << 5).channel, 2u);
  // Power-of-two strides spread over all channels.
  Map big(kEightChannels, 8, 1, DRAM_PART_IPOLY);
  std::set<uint32_t> seen;
  for (uint64_t i = 0; i < 8; i++) seen.insert(big.Decode(i << 16).channel);
  EXPECT_EQ(seen.size(), 8u);
}

TEST(DramAddrdec, EveryIndexingIsOneToOneEvenForOddChannelCounts) {
  const dram_partition_indexing kinds[] = {DRAM_PART_LINEAR, DRAM_PART_XOR, DRAM_PART_IPOLY};
  for (uint32_t channels : {24u, 12u, 6u, 32u}) {
    for (auto kind : kinds) {
      Map map(kTitanV, channels, 2, kind);
      ASSERT_EQ(map.st, SIMTVP_OK) << map.diag.message;
      std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> tuples;
      uint32_t per_channel[32] = {0};
      const uint64_t n = 1u << 16;
      for (uint64_t i = 0; i < n; i++) {
        uint64_t addr = i * 32 * 7;  // 224-byte stride: crosses every field
        dram_addr a = map.Decode(addr);
        ASSERT_LT(a.channel, channels);
        per_channel[a.channel]++;
        tuples.insert({a.channel, a.bank, a.row, a.column, a.burst});
      }
      EXPECT_EQ(tuples.size(), n) << channels << " channels, indexing " << kind;
      for (uint32_t c = 0; c < channels; c++) EXPECT_GT(per_channel[c], 0u);
    }
  }
}

TEST(DramAddrdec, MalformedMapsNameTheOption) {
  struct Case {
    const char *map;
    uint32_t channels;
    const char *option;
  } cases[] = {
      {"00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.DDDSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // 63 characters
      {"00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.DDDSSSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // 65
      {"00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRX.BBBBCCCC.DDDSSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // unknown character
      {"dramid@8;00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.DDDSSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // D bits with dramid@
      {"dramid@;00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // no bit number
      {"dramid@8 00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS", 8,
       "-gpgpu_mem_addr_mapping"},  // no ';'
      {kEightChannels, 6, "-gpgpu_n_mem"},  // 3 D bits cannot address 6 channels
      {kEightChannels, 0, "-gpgpu_n_mem"},
  };
  for (const auto &c : cases) {
    Map map(c.map, c.channels);
    EXPECT_NE(map.st, SIMTVP_OK) << c.map;
    EXPECT_EQ(map.m, nullptr);
    EXPECT_STREQ(map.diag.option, c.option) << c.map << ": " << map.diag.message;
    EXPECT_NE(std::string(map.diag.message).find(c.option), std::string::npos) << map.diag.message;
  }
  Map bad_sub(kEightChannels, 8, 3);
  EXPECT_EQ(bad_sub.st, SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(bad_sub.diag.option, "-gpgpu_n_sub_partition_per_mchannel");
}

// The L2 slices (models/mempart mempart_index) and this decoder read the map with the same
// parser: whatever it refuses, both refuse; lower-case letters read as upper case.
TEST(DramAddrdec, LowerCaseMapLettersDecodeAsUpperCase) {
  Map upper(kEightChannels, 8);
  Map lower("00000000.00000000.00000000.00000000.rrrrrrrr.rrrrrrrr.bbbbcccc.dddsssss", 8);
  ASSERT_EQ(lower.st, SIMTVP_OK) << lower.diag.message;
  for (uint64_t a : {0x12345678ull, 0xfedcba98ull, 0x1000ull}) {
    dram_addr u = upper.Decode(a), l = lower.Decode(a);
    EXPECT_EQ(u.channel, l.channel);
    EXPECT_EQ(u.bank, l.bank);
    EXPECT_EQ(u.row, l.row);
    EXPECT_EQ(u.column, l.column);
    EXPECT_EQ(u.burst, l.burst);
  }
}

// -gpgpu_memory_partition_indexing: 0-2 are modelled; 3 (pae), 4 (random), 5 (custom) fall back
// to 2 with one warning each time; anything else is an error naming the option.
TEST(DramAddrdec, UnmodelledPartitionIndexingsFallBackToIpolyWithAWarning) {
  std::vector<std::string> said;
  simtvp_msg_port msg = {&said, [](void *ctx, simtvp_severity, const char *m) {
                           static_cast<std::vector<std::string> *>(ctx)->push_back(m);
                         }};
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  const dram_partition_indexing modelled[] = {DRAM_PART_LINEAR, DRAM_PART_XOR, DRAM_PART_IPOLY};
  for (int32_t v = 0; v <= 2; v++) {
    dram_partition_indexing out = DRAM_PART_XOR;
    ASSERT_EQ(dram_partition_indexing_from_option(v, &msg, &out, &diag), SIMTVP_OK);
    EXPECT_EQ(out, modelled[v]);
  }
  EXPECT_TRUE(said.empty());
  const char *names[] = {"pae", "random", "custom"};
  for (int32_t v = 3; v <= 5; v++) {
    dram_partition_indexing out = DRAM_PART_LINEAR;
    ASSERT_EQ(dram_partition_indexing_from_option(v, &msg, &out, &diag), SIMTVP_OK);
    EXPECT_EQ(out, DRAM_PART_IPOLY);
    ASSERT_EQ(said.size(), static_cast<size_t>(v - 2));
    EXPECT_NE(said.back().find(std::string("-gpgpu_memory_partition_indexing ") + std::to_string(v) + " (" +
                               names[v - 3] + ") is not modelled by the memory system: using 2 (ipoly"),
              std::string::npos)
        << said.back();
  }
  dram_partition_indexing out;
  EXPECT_EQ(dram_partition_indexing_from_option(6, nullptr, &out, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-gpgpu_memory_partition_indexing");
  EXPECT_EQ(dram_partition_indexing_from_option(-1, nullptr, &out, &diag), SIMTVP_ERR_CONFIG);
}

// The IPOLY polynomials (models/common simtvp_gf2, shared with the caches' 'P' set index) are
// primitive: x has order 2^k - 1 modulo P_k, so x^(2^k - 1) = 1 and no smaller power is 1; and
// x^k mod P_k is P_k without its x^k term.
TEST(SimtvpGf2, EveryPolynomialIsPrimitiveAndResiduesReduceModuloIt) {
  for (uint32_t k = 1; k <= SIMTVP_GF2_MAX_DEGREE; k++) {
    const uint32_t p = simtvp_gf2_poly(k);
    ASSERT_EQ(p >> k, 1u) << "degree " << k;
    EXPECT_EQ(simtvp_gf2_xpow_mod(k, k), p ^ (1u << k)) << "degree " << k;
    const uint32_t order = (1u << k) - 1;
    EXPECT_EQ(simtvp_gf2_xpow_mod(order, k), 1u) << "degree " << k;
    for (uint32_t d = 1; d < order; d++) {
      if (order % d != 0) continue;
      EXPECT_NE(simtvp_gf2_xpow_mod(d, k), 1u) << "degree " << k << ", x^" << d;
    }
  }
  EXPECT_EQ(simtvp_gf2_xpow_mod(5, 0), 0u);
  EXPECT_EQ(simtvp_gf2_poly(SIMTVP_GF2_MAX_DEGREE + 1), 0u);
}
