// DramAddrdec — -gpgpu_mem_addr_mapping decoding on hand-decoded addresses, partition indexing
// (linear / xor / ipoly), channel counts that are not powers of two, sub-partitions, and
// malformed maps.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

extern "C" {
#include "dram_addrdec.h"
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
