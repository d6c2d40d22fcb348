// models/memiv: the closed-form memory system behind the interval SIMT cores (docs/memiv.md).
//
// Most cases use a small hand-made configuration (Small() below) so every figure can be computed
// by hand from memiv.h's rules:
//   clocks     core = icnt = L2 = DRAM = 1 GHz: every crossing between domains costs one cycle
//              (the receiver's first edge strictly after the sender's);
//   icnt       crossbar, switch latency 1, 40-byte flits: a read request (8 bytes) and a sector
//              reply (8 + 32 bytes) are one flit, arrival = grant + 1 + flits - 1;
//   partition  2 channels x 1 slice, ROP 20, DRAM latency 10 (L2 cycles), L2 "S:16:128:4" sectored
//              write-back with lazy fetch on read, 32-byte data / fill port;
//   DRAM       4 banks, tRCD 10, tRP 8, tRAS 20, tRC 30, CL 12, WL 4, tWR 6; bus 8 bytes x BL 4,
//              ratio 2: one 32-byte column command per sector, 2 bus cycles each (16 bytes / cycle);
//   address    bits 0-4 burst, 5-7 column, 8 channel, 9-10 column, 11-12 bank, 13-28 row.
// A read of one sector leaving SM 0 at core cycle `at`:
//   icnt at+1, arrives at+2, L2 at+3 = intake a, A = a + 20 + 1 = at+24, DRAM request at
//   A + 2 + 10 = at+36 (arbiter), DRAM at+37;
//   L2 hit:   reply leaves A + 2 = at+26, icnt at+27, arrives at+28, core at+29;
//   L2 miss, bank closed:  ACT at+37, column at+47, data at+59..at+60, back at the L2 at+62,
//             fill at+62, reply leaves at+64, icnt at+65, arrives at+66, core at+67;
//   row hit:  column at once: 10 cycles (tRCD) less: at+57;  row conflict: tRP + tRCD more than a
//             hit: at+75.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include "config.h"
#include "devmem.h"
#include "gpu_config.h"
#include "gpu_params.h"
#include "gpu_simt_timing.h"
#include "mempart.h"
#include "memiv.h"
#include "stats.h"
}

namespace {

constexpr uint8_t kRead = MEM_ACC_GLOBAL_R;
constexpr uint8_t kWrite = MEM_ACC_GLOBAL_W;

std::string SmallMap() {
  char field[64];
  for (int b = 0; b < 64; b++) field[b] = '0';
  for (int b = 0; b <= 4; b++) field[b] = 'S';
  for (int b = 5; b <= 7; b++) field[b] = 'C';
  field[8] = 'D';
  for (int b = 9; b <= 10; b++) field[b] = 'C';
  for (int b = 11; b <= 12; b++) field[b] = 'B';
  for (int b = 13; b <= 28; b++) field[b] = 'R';
  std::string s;
  for (int b = 63; b >= 0; b--) s += field[b];
  return s;
}

struct Small {
  std::string map = SmallMap();
  memiv_config cfg{};
  stats *st = stats_create();
  memiv *m = nullptr;
  simtvp_diag diag{};

  Small() {
    cfg.n_sms = 8;
    cfg.cores_per_cluster = 1;
    cfg.core_khz = cfg.icnt_khz = cfg.l2_khz = cfg.dram_khz = 1000000;
    cfg.topology = MEMIV_ICNT_XBAR;
    cfg.icnt_latency = 1;
    cfg.flit_bytes = 40;
    cfg.n_channels = 2;
    cfg.n_sub = 1;
    cfg.addr_mapping = map.c_str();
    cfg.indexing = DRAM_PART_LINEAR;
    cfg.l2 = "S:16:128:4,L:B:m:L:L,A:64:4,32:0,32";
    cfg.rop_latency = 20;
    cfg.dram_latency = 10;
    cfg.timing = dram_timing{4, 1, 2, 10, 20, 8, 30, 12, 4, 3, 6, 1, 0, 0};
    cfg.bus_width_bytes = 8;
    cfg.burst_length = 4;
    cfg.data_command_freq_ratio = 2;
    cfg.chips_per_channel = 1;
    cfg.stats = st;
  }
  ~Small() {
    memiv_destroy(m);
    stats_destroy(st);
  }
  void Create() {
    m = memiv_create(&cfg, &diag);
    ASSERT_NE(m, nullptr) << diag.message;
  }
  uint64_t Access(uint32_t sm, uint64_t line, uint8_t sectors, uint8_t kind, bool write, uint64_t at,
                  uint8_t ops = 0) {
    return memiv_access(m, sm, line, sectors, nullptr, kind, write, ops, at);
  }
  uint64_t Stat(const char *name) {
    int found = 0;
    uint64_t v = stats_get(st, name, &found);
    EXPECT_TRUE(found) << name;
    return v;
  }
};

TEST(Memiv, SmallMapRoutesAsItsBitsSay) {
  Small s;
  s.Create();
  memiv_route r;
  memiv_route_of(s.m, 0x0, &r);
  EXPECT_EQ(r.channel, 0u);
  EXPECT_EQ(r.bank, 0u);
  EXPECT_EQ(r.row, 0u);
  memiv_route_of(s.m, 0x100, &r);  // bit 8: channel 1
  EXPECT_EQ(r.channel, 1u);
  EXPECT_EQ(r.slice, 1u);
  memiv_route_of(s.m, 0x800, &r);  // bit 11: bank 1
  EXPECT_EQ(r.bank, 1u);
  memiv_route_of(s.m, 0x2000, &r);  // bit 13: row 1
  EXPECT_EQ(r.row, 1u);
  EXPECT_EQ(r.index_addr, 0x1000u);  // the channel bit squeezed out
}

TEST(Memiv, L2MissThenHitOnTheSameLine) {
  Small s;
  s.Create();
  // header: a miss to a closed bank replies at at+67, a hit at at+29
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 100), 167u);
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 300), 329u);
  EXPECT_EQ(s.Stat("L2_cache_bank[0].access"), 2u);
  EXPECT_EQ(s.Stat("L2_cache_bank[0].miss"), 1u);
  EXPECT_EQ(s.Stat("DRAM[0].n_rd"), 1u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 1u);
  EXPECT_EQ(s.Stat("memiv.requests"), 2u);
  EXPECT_EQ(s.Stat("memiv.latency_sum"), 67u + 29u);
}

TEST(Memiv, RowHitIsCheaperThanRowMissByTrpPlusTrcd) {
  Small s;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x000, 0x1, kRead, false, 100), 167u);   // opens row 0 of bank 0 (ACT 137)
  EXPECT_EQ(s.Access(0, 0x080, 0x1, kRead, false, 1000), 1057u);  // row 0 again: no ACT, +57
  EXPECT_EQ(s.Access(0, 0x2000, 0x1, kRead, false, 2000), 2075u); // row 1: PRE + ACT, +57 + 8 + 10
  EXPECT_EQ(s.Stat("DRAM[0].row_buffer_hits"), 1u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 2u);
  EXPECT_EQ(s.Stat("DRAM[0].n_pre"), 1u);
}

TEST(Memiv, TwoRequestsToOneChannelSerialiseOnTheDataBusByTheBurstTime) {
  Small s;
  s.Create();
  // SM 0 and SM 1 (two clusters) at cycle 100, lines 0x000 and 0x080 (channel 0, bank 0, row 0):
  // the slice's ejection port takes them at icnt 101 and 102, the slice at L2 103 and 104, the
  // DRAM at 137 and 138; the second is a row hit on the row the first opens (column 147 both),
  // data 159-160 and then 161-162 (2 bus cycles per sector); replies 2 cycles apart.
  uint64_t a = s.Access(0, 0x000, 0x1, kRead, false, 100);
  uint64_t b = s.Access(1, 0x080, 0x1, kRead, false, 100);
  EXPECT_EQ(a, 167u);
  EXPECT_EQ(b, 169u);
  EXPECT_EQ(s.Stat("DRAM[0].bwutil"), 4u);
}

TEST(Memiv, ColumnCommandsOfOneBankGroupAreTccdlApart) {
  for (bool same_group : {true, false}) {
    Small s;
    s.cfg.timing.nbkgrp = 2;  // banks 0-1 group 0, banks 2-3 group 1 (-dram_bnkgrp_indexing_policy 0)
    s.cfg.timing.tCCDL = 6;
    s.Create();
    // bank 0 (0x000) and then bank 1 (0x800, same group) or bank 2 (0x1000, other group), both
    // opened by their own ACT at DRAM 137 and 138 (the slice takes them 1 cycle apart): columns
    // 147 and 148. Another group: the second's data follows the first's burst, 161-162 (as
    // TwoRequests...). The same group: its column waits until 147 + tCCDL = 153, data 165-166.
    uint64_t a = s.Access(0, 0x000, 0x1, kRead, false, 100);
    uint64_t b = s.Access(1, same_group ? 0x800 : 0x1000, 0x1, kRead, false, 100);
    EXPECT_EQ(a, 167u);
    EXPECT_EQ(b, same_group ? 173u : 169u) << same_group;
  }
}

TEST(Memiv, RequestToTheRowOpenBeforeItsPrechargeIsARowHit) {
  Small s;
  s.Create();
  // SM 0: row 0 of bank 0 at 100, DRAM 137 (ACT 137, column 147, PRE allowed from 137 + tRAS =
  // 157); SM 1: row 1 at 101, DRAM 138 (PRE 157, ACT max(165, 137 + tRC) = 167). SM 2: row 0
  // again at 102, DRAM 139: row 0 is open until 157, so FR-FCFS serves it before the PRE: a row
  // hit, column after the first's, its data after the first's burst: 161-162, back at the L2 164,
  // reply leaves 166, core 169 (a conflict would have waited for ACT 167 + tRCD: ~215).
  s.Access(0, 0x000, 0x1, kRead, false, 100);
  s.Access(1, 0x2000, 0x1, kRead, false, 101);
  EXPECT_EQ(s.Access(2, 0x080, 0x1, kRead, false, 102), 169u);
  EXPECT_EQ(s.Stat("DRAM[0].row_buffer_hits"), 1u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 2u);
  // after the precharge, row 0 needs an ACT again
  s.Access(0, 0x200, 0x1, kRead, false, 1000);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 3u);
}

TEST(Memiv, StreamingSmsSaturateAChannelAtItsBusBandwidth) {
  Small s;
  s.Create();
  // 4 SMs each ask for 32 whole lines of channel 0, one line per SM per cycle: 128 lines x 4
  // sectors x 2 bus cycles = 1024 bus cycles of data at 16 bytes per DRAM cycle. The slice takes
  // one per cycle, so the bus, not the slice, limits: once busy it stays busy, and the last
  // reply comes 1024 - 8 cycles after the first (each reply waits for its own 8 bus cycles).
  std::vector<uint64_t> replies;
  for (uint32_t r = 0; r < 32; r++)
    for (uint32_t sm = 0; sm < 4; sm++) {
      uint32_t k = r * 4 + sm;
      uint64_t line = (uint64_t)(k / 2) * 0x200 + (k % 2) * 0x80;  // channel 0 lines in order
      replies.push_back(s.Access(sm, line, 0xF, kRead, false, 100 + r));
    }
  uint64_t first = *std::min_element(replies.begin(), replies.end());
  uint64_t last = *std::max_element(replies.begin(), replies.end());
  EXPECT_EQ(s.Stat("DRAM[0].bwutil"), 1024u);
  EXPECT_EQ(s.Stat("DRAM[0].n_rd"), 512u);
  EXPECT_EQ(last - first, 1024u - 8u);
  // bytes per DRAM cycle over the busy span: 128 x 128 / 1024 = 16
  EXPECT_EQ(128u * 128u / s.Stat("DRAM[0].bwutil"), 16u);
}

TEST(Memiv, BacklogLongerThanThePortWindowStillSerialises) {
  Small s;
  s.Create();
  // 600 whole lines of channel 0 from 4 SMs at cycle 100: 600 x 8 = 4800 bus cycles, more than a
  // port's 4096-cycle window, so the ring slides under the backlog while bookings still want
  // cycles near its start; they skip the backlog's full words: the bus stays busy without a gap
  // and without overlap, the last reply 4800 - 8 cycles after the first (StreamingSmsSaturate...).
  std::vector<uint64_t> replies;
  for (uint32_t k = 0; k < 600; k++) {
    uint64_t line = (uint64_t)(k / 2) * 0x200 + (k % 2) * 0x80;
    replies.push_back(s.Access(k % 4, line, 0xF, kRead, false, 100));
  }
  uint64_t first = *std::min_element(replies.begin(), replies.end());
  uint64_t last = *std::max_element(replies.begin(), replies.end());
  EXPECT_EQ(s.Stat("DRAM[0].bwutil"), 4800u);
  EXPECT_EQ(last - first, 4800u - 8u);
}

// System memory (zero-copy host memory): addresses at or above 1 TiB, in this test's aperture.
uint8_t AboveOneTiB(void *, uint64_t addr) { return addr >= (1ull << 40) ? MEM_APERTURE_SYSMEM : MEM_APERTURE_VIDMEM; }

// The hub's link, as models/hub: 100 L2 cycles round trip, 8 bytes per cycle (8000 per 1000), so
// a 32-byte sector holds it 4 cycles. A one-sector read leaving SM 0 at `at` (header): the slice's
// A = at+24, the partition's queue toward DRAM and the hub A + 2 + 10 = at+36 (arbiter), pushed to
// the hub at+37, on the link at+37..at+40, back at the slice at+37 + 4 + 100 + 1 = at+142, reply
// at the core 3 cycles later (as an L2 hit's): at+145. SM 1's read at the same cycle, to channel 1
// (another slice, another arbiter), shares only the link: on it at+41..at+44, 4 cycles later.
TEST(Memiv, SystemMemoryRequestsSerialiseOnTheHubLinkAtItsBandwidth) {
  Small s;
  s.cfg.aperture.of = AboveOneTiB;
  s.cfg.sysmem_latency = 100;
  s.cfg.sysmem_bytes_per_kcycle = 8000;
  s.Create();
  const uint64_t host = 1ull << 40;
  EXPECT_EQ(s.Access(0, host + 0x000, 0x1, kRead, false, 100), 245u);
  EXPECT_EQ(s.Access(1, host + 0x100, 0x1, kRead, false, 100), 249u);
  // Whole lines hold the link 16 cycles each: at 1000, on it 1037..1052, back at the slice
  // 1037 + 16 + 101 = 1154; the reply is 8 + 128 bytes = 4 flits: icnt 1155, arrives 1155 + 1 + 3,
  // core 1160. The other channel's line behind it: on the link 1053..1068, at the core 16 later.
  EXPECT_EQ(s.Access(2, host + 0x2000, 0xF, kRead, false, 1000), 1160u);
  EXPECT_EQ(s.Access(3, host + 0x2100, 0xF, kRead, false, 1000), 1176u);
  EXPECT_EQ(s.Stat("memiv.sysmem_requests"), 4u);
  EXPECT_EQ(s.Stat("L2_cache_bank[0].access"), 0u);  // around the L2
}

// Without a bandwidth (0) the link never queues: both reads of the case above back at at+141.
TEST(Memiv, SystemMemoryWithoutLinkBandwidthOnlyPaysTheRoundTrip) {
  Small s;
  s.cfg.aperture.of = AboveOneTiB;
  s.cfg.sysmem_latency = 100;
  s.Create();
  const uint64_t host = 1ull << 40;
  EXPECT_EQ(s.Access(0, host + 0x000, 0x1, kRead, false, 100), 241u);
  EXPECT_EQ(s.Access(1, host + 0x100, 0x1, kRead, false, 100), 241u);
}

// Requests reach memiv in host order, interval cores up to their horizon apart in time. SM 0's
// miss at 1000 (header: the slice at A = 1024, filled at 1062, at the core 1067) was presented
// first; SM 1's read of the same line at 100 comes after it in host order but first in time: it
// waits the miss's own 38 cycles from its A = 124 (filled 162, at the core 167, as the miss would
// have), not for the fill at 1062.
TEST(Memiv, PendingHitOfAnEarlierTimeWaitsTheMissLatencyFromItsArrival) {
  Small s;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 1000), 1067u);
  EXPECT_EQ(s.Access(1, 0x0, 0x1, kRead, false, 100), 167u);
  EXPECT_EQ(s.Stat("memiv.reordered_fills"), 1u);
  // a later one (A = 134) waits for that fill at 162: its reply leaves at 164 behind SM 1's on the
  // slice's injection port, one cycle later: 168
  EXPECT_EQ(s.Access(2, 0x0, 0x1, kRead, false, 110), 168u);
  EXPECT_EQ(s.Stat("L2_cache_bank[0].miss"), 1u);
}

// The same in a DRAM bank: SM 0's miss at 1000 opens row 1 of bank 0 (ACT at 1037); SM 1's miss
// to row 0 of that bank at 100 arrived first in time, so it does not wait for row 1's precharge
// (ACT 1037 + tRAS 20 at the earliest): the bank has been used, so a row is taken to be open at
// its arrival: PRE at 137, its own ACT tRP = 8 later, at the core 167 + 8 = 175 (header).
TEST(Memiv, RowOpenedByALaterRequestDoesNotDelayAnEarlierOne) {
  Small s;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x2000, 0x1, kRead, false, 1000), 1067u);
  EXPECT_EQ(s.Access(1, 0x0, 0x1, kRead, false, 100), 175u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 2u);
  EXPECT_EQ(s.Stat("DRAM[0].n_pre"), 1u);
}

// A strided stream to one bank's rows 0, 1, 2 (0x0000, 0x2000, 0x4000 and a second line of each),
// two requests a row, each pair reaching memiv in host order the later-timed first (interval cores
// run apart): A at T + 10 then B at T, T = 100, 300, 500. The CA controller's FR-FCFS queue would
// have opened each row once, for B, and served A as its row hit: 3 ACTs, 3 row hits.
//   row 0: A DRAM 147 on the closed bank: ACT 147, column 157, core 177. B DRAM 137 arrived
//          before A's opener: in time order it opened row 0 itself, on a bank never used, at its
//          arrival: ACT 137, column 147, core 167 (a closed bank's at+67). A's ACT is the one.
//          Row 0's PRE is ready at max(ACT 147 + tRAS, the bursts 157 + 2, 147 + 2) = 167.
//   row 1: A DRAM 347: PRE 347, ACT max(355, 147 + tRC) = 355, column 365, core 385 (at+75);
//          the bank-bound part of that ACT: max(167 + tRP, 147 + tRC) = 177. B DRAM 337 arrived
//          after row 0's opener and before row 1's: it opened row 1: PRE at its arrival, ACT
//          max(177, 337 + tRP) = 345, column 355, core 375 (its own row conflict, at+75).
//          Row 1's PRE is ready at max(355 + tRAS, 365 + 2, 355 + 2) = 375.
//   row 2: A DRAM 547: PRE 547, ACT max(555, 355 + 30) = 555, column 565, core 585; floor
//          max(375 + 8, 385) = 385. B DRAM 537: ACT max(385, 545) = 545, column 555, core 575.
// Before B joined its row (each B its own PRE and ACT): 6 ACTs, no row hit, row 0's B at 175.
TEST(Memiv, StridedStreamArrivingSlightlyOutOfOrderGetsTheFrFcfsRowHits) {
  Small s;
  s.Create();
  const uint64_t expect_a[] = {177, 385, 585}, expect_b[] = {167, 375, 575};
  for (uint64_t r = 0; r < 3; r++) {
    uint64_t t = 100 + 200 * r;
    EXPECT_EQ(s.Access(2 * r, 0x2000 * r, 0x1, kRead, false, t + 10), expect_a[r]) << "row " << r;
    EXPECT_EQ(s.Access(2 * r + 1, 0x2000 * r + 0x80, 0x1, kRead, false, t), expect_b[r]) << "row " << r;
  }
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 3u);
  EXPECT_EQ(s.Stat("DRAM[0].row_buffer_hits"), 3u);
  EXPECT_EQ(s.Stat("DRAM[0].n_pre"), 2u);
}

// A row opened out of time order is remembered in its place: SM 0 opens row 0 at 100 (core
// 167); SM 1 at 1000 books row 2 (DRAM 1037: PRE 1037, ACT 1045, column 1055, core 1075). SM 2's
// row 1 at 500 (DRAM 537) arrived between them: it waits for neither (PRE at its arrival, ACT
// 545, column 555, core 575: a row conflict at its own time), and row 1 stays open until row 2's
// PRE (1037). SM 3's second line of row 1 at 510 (DRAM 547) is its row hit: column 555 + the
// first's burst on the bus (data 567-568): 557, core 577 (its own PRE and ACT: column 565, 585).
TEST(Memiv, RowOpenedOutOfOrderServesLaterArrivalsAsRowHitsUntilTheNextRowsPrecharge) {
  Small s;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x0000, 0x1, kRead, false, 100), 167u);
  EXPECT_EQ(s.Access(1, 0x4000, 0x1, kRead, false, 1000), 1075u);
  EXPECT_EQ(s.Access(2, 0x2000, 0x1, kRead, false, 500), 575u);
  EXPECT_EQ(s.Access(3, 0x2080, 0x1, kRead, false, 510), 577u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 3u);
  EXPECT_EQ(s.Stat("DRAM[0].row_buffer_hits"), 1u);
  // after row 2's PRE row 1 is closed again: SM 4's row 1 at 1020 (DRAM 1057) needs its own ACT
  s.Access(4, 0x2200, 0x1, kRead, false, 1020);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 4u);
}

// A bank remembers its last 8 rows (docs/memiv.md §3). SM 0 opens rows 0-8 of bank 0 one after
// another, 200 cycles apart (row 0 on the closed bank at+67, the others row conflicts at+75; row 8
// at 1700 replaces row 0, the first remembered). SM 1's second line of row 0 at 150 (DRAM 187)
// arrived while row 0 was open (ACT 137, PRE at 337 for row 1), but row 0 is forgotten: older
// than every row remembered, a row miss of its own (PRE 187, ACT 195, column 205, core 225, where
// a hit would be at+57 = 207), not remembered. SM 2's row 10 at 1550 (DRAM 1587) arrived after row 7's opener and before row 8's:
// its own row (PRE 1587, ACT 1595, column 1605, core 1625), remembered in place of row 1, never
// of the open row 8, so SM 3's second line of row 8 at 1800 is its row hit (core at+57 = 1857).
TEST(Memiv, FullBankForgetsRowsInTheOrderItRememberedThemNeverTheOpenOne) {
  Small s;
  s.Create();
  for (uint64_t r = 0; r < 9; r++)
    EXPECT_EQ(s.Access(0, 0x2000 * r, 0x1, kRead, false, 100 + 200 * r), 100 + 200 * r + (r ? 75u : 67u)) << r;
  EXPECT_EQ(s.Access(1, 0x80, 0x1, kRead, false, 150), 225u);
  EXPECT_EQ(s.Access(2, 0x2000 * 10, 0x1, kRead, false, 1550), 1625u);
  EXPECT_EQ(s.Access(3, 0x2000 * 8 + 0x80, 0x1, kRead, false, 1800), 1857u);
  EXPECT_EQ(s.Stat("DRAM[0].n_act"), 11u);
  EXPECT_EQ(s.Stat("DRAM[0].row_buffer_hits"), 1u);
}

TEST(Memiv, SectorWrittenInPartsIsFetchedFromDramWhenRead) {
  // Lazy fetch-on-read (the L2's write-allocate L), as the CA partition's L2: a write covering a
  // whole sector makes it readable, one covering part of it leaves it unreadable — even once a
  // second write covered the rest (cache.c's rule) — so a read of it is a sector miss that goes
  // to DRAM (at+67 on a closed bank, as L2MissThenHitOnTheSameLine), not a hit (at+29).
  Small s;
  s.Create();
  const uint64_t even[2] = {0x00000000FFFF0000ull, 0}, odd[2] = {0x000000000000FFFFull, 0};
  const uint64_t whole[2] = {0, 0xFFFFFFFF00000000ull}; /* sector 3 */
  EXPECT_EQ(memiv_access(s.m, 0, 0x0, 0x1, even, kWrite, true, 0, 100), 129u);
  EXPECT_EQ(memiv_access(s.m, 0, 0x0, 0x1, odd, kWrite, true, 0, 200), 229u);
  EXPECT_EQ(memiv_access(s.m, 0, 0x0, 0x8, whole, kWrite, true, 0, 300), 329u);
  EXPECT_EQ(s.Stat("DRAM[0].n_rd"), 0u);
  EXPECT_EQ(s.Access(0, 0x0, 0x8, kRead, false, 400), 429u);  // sector 3: written whole, a hit
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 500), 567u);  // sector 0: written in parts
  EXPECT_EQ(s.Stat("DRAM[0].n_rd"), 1u);
  EXPECT_EQ(s.Stat("L2_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS]"), 1u);
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 700), 729u);  // fetched: a hit now
}

// A write to 0x0 is absorbed by the write-back L2 (lazy fetch on read: no fetch) and acknowledged
// as a hit (at+29). Lines 0x1000, 0x2000, 0x3000, 0x4000 index the same set (index address / 128
// mod 16 = 0) of the 4-way slice: the fourth read evicts 0x0. The DRAM writes that took (column
// commands of 32 bytes), with the L2 `l2` (NULL: Small's sectored one).
uint64_t dirty_victim_writes(const char *l2) {
  Small s;
  if (l2) s.cfg.l2 = l2;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kWrite, true, 100), 129u);
  memiv_route r;
  for (uint64_t line : {0x1000ull, 0x2000ull, 0x3000ull, 0x4000ull}) {
    memiv_route_of(s.m, line, &r);
    EXPECT_EQ(r.channel, 0u);
    EXPECT_EQ((r.index_addr >> 7) % 16, 0u) << line;
  }
  s.Access(0, 0x1000, 0x1, kRead, false, 1000);
  s.Access(0, 0x2000, 0x1, kRead, false, 2000);
  s.Access(0, 0x3000, 0x1, kRead, false, 3000);
  EXPECT_EQ(s.Stat("memiv.l2_writebacks"), 0u);
  s.Access(0, 0x4000, 0x1, kRead, false, 4000);
  EXPECT_EQ(s.Stat("memiv.l2_writebacks"), 1u);
  return s.Stat("DRAM[0].n_write");
}

TEST(Memiv, DirtyVictimIsWrittenBackToDram) {
  EXPECT_EQ(dirty_victim_writes(nullptr), 1u);  // one 32-byte sector: one column command
}

TEST(Memiv, DirtyVictimOfAnUnsectoredL2IsWrittenBackWhole) {
  // An L2 of whole 128-byte lines (N): the dirty line leaves whole, four column commands, as the
  // CA partition's write-back request of the line's size (cache_line_sectors).
  EXPECT_EQ(dirty_victim_writes("N:16:128:4,L:B:m:L:L,A:64:4,32:0,32"), 4u);
}

TEST(Memiv, FlushWritesBackEveryDirtyLine) {
  Small s;
  s.Create();
  s.Access(0, 0x0, 0x3, kWrite, true, 100);
  s.Access(0, 0x100, 0x1, kWrite, true, 100);  // channel 1
  EXPECT_EQ(memiv_flush_l2(s.m), 2u);
  EXPECT_EQ(s.Stat("DRAM[0].n_write"), 2u);  // two sectors
  EXPECT_EQ(s.Stat("DRAM[1].n_write"), 1u);
  EXPECT_EQ(memiv_flush_l2(s.m), 0u);
}

TEST(Memiv, AtomicsToOneSliceWaitForItsAtomicUnit) {
  for (uint32_t ops : {0u, 1u}) {
    Small s;
    s.cfg.atomic_ops = ops;
    s.Create();
    s.Access(0, 0x0, 0x1, kRead, false, 100);  // the line is in the L2
    // three atomics of 8 lane operations from SMs 0-2 at 1000: L2 intake 1003, 1004, 1005,
    // A = 1024, 1025, 1026; with one operation per cycle A = 1024, 1032, 1040. Reply = A + 5.
    uint64_t a = s.Access(0, 0x0, 0x1, MEM_ACC_ATOMIC, true, 1000, 8);
    uint64_t b = s.Access(1, 0x0, 0x1, MEM_ACC_ATOMIC, true, 1000, 8);
    uint64_t c = s.Access(2, 0x0, 0x1, MEM_ACC_ATOMIC, true, 1000, 8);
    if (ops) {
      EXPECT_EQ(a, 1029u);
      EXPECT_EQ(b, 1037u);
      EXPECT_EQ(c, 1045u);
    } else {
      EXPECT_EQ(a, 1029u);
      EXPECT_EQ(b, 1030u);
      EXPECT_EQ(c, 1031u);
    }
  }
}

TEST(Memiv, OutOfOrderBookingDoesNotQueueBehindLaterOnes) {
  Small s;
  s.Create();
  // SM 0 at 1000 (a miss, bank 0), then SM 0 at 500 (another bank of the same channel): the
  // earlier one finds its ports and bank free at its own time: zero-load latency 67.
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 1000), 1067u);
  EXPECT_EQ(s.Access(0, 0x800, 0x1, kRead, false, 500), 567u);
  // two at the same cycle on the same ports still serialise (1 icnt cycle on the injection port)
  uint64_t x = s.Access(2, 0x080, 0x1, kRead, false, 3000);
  uint64_t y = s.Access(2, 0x0, 0x1, kRead, false, 3000);  // a hit behind it
  EXPECT_EQ(x, 3057u);                                     // row hit on row 0 of bank 0
  EXPECT_EQ(y, 3030u);                                     // one cycle behind a lone hit
  EXPECT_EQ(s.Stat("memiv.late_bookings"), 0u);
}

TEST(Memiv, BookingOlderThanThePortWindowIsPlacedAtItsStart) {
  Small s;
  s.Create();
  s.Access(0, 0x0, 0x1, kRead, false, 20000);
  uint64_t r = s.Access(0, 0x80, 0x1, kRead, false, 100);  // 19 900 cycles behind: beyond 4096
  EXPECT_GT(s.Stat("memiv.late_bookings"), 0u);
  EXPECT_GT(r, 20000u - 4096u);
}

TEST(Memiv, SlowerDramClockCrossesAtTheFirstEdgeStrictlyAfter) {
  Small s;
  s.cfg.dram_khz = 500000;
  s.Create();
  // L2 136 -> DRAM floor(136 / 2) + 1 = 69: ACT 69, column 79, data 91-92, end 93 -> L2
  // 93 x 2 + 1 = 187, fill 187, reply leaves 189, icnt 190, arrives 191, core 192
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 100), 192u);
}

TEST(Memiv, SameRequestsGiveTheSameRepliesAndStatistics) {
  auto run = [](std::vector<uint64_t> *out, std::string *json) {
    Small s;
    s.Create();
    uint64_t x = 12345;
    for (int i = 0; i < 4000; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t line = (x >> 20) & 0xFFFFF80ull;
      bool w = (x >> 5) % 4 == 0;
      out->push_back(s.Access((uint32_t)(x >> 8) % 8, line, (uint8_t)((x >> 12) % 15 + 1), w ? kWrite : kRead, w,
                              100 + i / 4 + (x >> 40) % 300));
    }
    char *buf = nullptr;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    stats_write_json_stream(s.st, f, nullptr);
    fclose(f);
    *json = std::string(buf, n);
    free(buf);
  };
  std::vector<uint64_t> a, b;
  std::string ja, jb;
  run(&a, &ja);
  run(&b, &jb);
  EXPECT_EQ(a, b);
  EXPECT_EQ(ja, jb);
  for (size_t i = 0; i < a.size(); i++) ASSERT_GT(a[i], 100u);
}

TEST(Memiv, WithoutStatsSinkRegistersNothingAndStillAnswers) {
  Small s;
  s.cfg.stats = nullptr;
  s.Create();
  EXPECT_EQ(s.Access(0, 0x0, 0x1, kRead, false, 100), 167u);
  EXPECT_EQ(stats_counter_count(s.st), 0u);
}

// ---- bad configuration ---------------------------------------------------------------------------

TEST(MemivConfig, MalformedL2StringIsReportedByOption) {
  Small s;
  s.cfg.l2 = "S:16:128";
  EXPECT_EQ(memiv_create(&s.cfg, &s.diag), nullptr);
  EXPECT_STREQ(s.diag.option, "-gpgpu_cache:dl2");
}

TEST(MemivConfig, MalformedAddressMapIsReportedByOption) {
  Small s;
  s.cfg.addr_mapping = "DDXX";
  EXPECT_EQ(memiv_create(&s.cfg, &s.diag), nullptr);
  EXPECT_STREQ(s.diag.option, "-gpgpu_mem_addr_mapping");
}

TEST(MemivConfig, SubPartitionsNotAPowerOfTwoAreReportedByOption) {
  Small s;
  s.cfg.n_sub = 3;
  EXPECT_EQ(memiv_create(&s.cfg, &s.diag), nullptr);
  EXPECT_STREQ(s.diag.option, "-gpgpu_n_sub_partition_per_mchannel");
}

TEST(MemivConfig, ZeroClockIsReportedByOption) {
  Small s;
  s.cfg.dram_khz = 0;
  EXPECT_EQ(memiv_create(&s.cfg, &s.diag), nullptr);
  EXPECT_STREQ(s.diag.option, "-gpgpu_clock_domains");
}

// ---- from the shipped configurations --------------------------------------------------------------

struct Loaded {
  gpu_config g{};
  simtvp_diag diag{};
  simtvp_status Load(const std::string &file, std::vector<const char *> args = {}) {
    config_registry *reg = config_registry_create(nullptr);
    simtvp_status st = gpu_config_register(reg, &g, &diag);
    if (st == SIMTVP_OK) st = config_registry_load_file(reg, file.c_str(), &diag);
    if (st == SIMTVP_OK && !args.empty())
      st = config_registry_parse_args(reg, static_cast<int>(args.size()), args.data(), &diag);
    if (st == SIMTVP_OK) st = gpu_config_finalize(&g, reg, &diag);
    config_registry_destroy(reg);
    return st;
  }
};

std::string ConfigPath(const char *name) { return std::string(SIMTVP_SOURCE_DIR) + "/configs/" + name; }

TEST(MemivConfig, EveryShippedConfigurationBuilds) {
  int n = 0;
  for (const auto &e : std::filesystem::directory_iterator(std::string(SIMTVP_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".config") continue;
    Loaded l;
    ASSERT_EQ(l.Load(e.path().string()), SIMTVP_OK) << e.path() << ": " << l.diag.message;
    memiv_config c;
    ASSERT_EQ(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK) << e.path() << ": " << l.diag.message;
    memiv *m = memiv_create(&c, &l.diag);
    ASSERT_NE(m, nullptr) << e.path() << ": " << l.diag.message;
    uint64_t r = memiv_access(m, 0, 0x12380, 0xF, nullptr, kRead, false, 0, 1000);
    EXPECT_GT(r, 1000u + c.rop_latency) << e.path();
    memiv_destroy(m);
    n++;
  }
  EXPECT_GE(n, 7);
}

TEST(MemivConfig, Qv100LatenciesComeFromItsOptions) {
  Loaded l;
  ASSERT_EQ(l.Load(ConfigPath("SM7_QV100.config")), SIMTVP_OK) << l.diag.message;
  memiv_config c;
  ASSERT_EQ(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK) << l.diag.message;
  EXPECT_EQ(c.n_sms, 80u);
  EXPECT_EQ(c.n_channels, 32u);
  EXPECT_EQ(c.n_sub, 2u);
  EXPECT_EQ(c.core_khz, 1132000u);
  EXPECT_EQ(c.dram_khz, 850000u);
  EXPECT_EQ(c.rop_latency, 120u);   // core = L2 clock: unchanged
  EXPECT_EQ(c.dram_latency, 100u);
  EXPECT_EQ(c.flit_bytes, 40u);
  EXPECT_EQ(c.timing.tRCD, 12u);
  EXPECT_EQ(c.topology, MEMIV_ICNT_XBAR);  // -network_mode 1 is modelled as the crossbar
}

// The hub's link as tlm/mem/mem_system.cc gives it to models/hub: RTX2060's L2 at 1365 MHz,
// -host_sysmem_latency_ns 600 → 819 L2 cycles, -host_bus_bandwidth_gbs 12 → 12e6 / 1365 = 8791
// bytes per 1000 L2 cycles (a 128-byte line: 15 cycles on the link).
TEST(MemivConfig, HostLinkLatencyAndBandwidthComeFromTheHostOptions) {
  Loaded l;
  ASSERT_EQ(l.Load(ConfigPath("SM75_RTX2060.config")), SIMTVP_OK) << l.diag.message;
  memiv_config c;
  ASSERT_EQ(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK) << l.diag.message;
  EXPECT_EQ(c.sysmem_latency, 819u);
  EXPECT_EQ(c.sysmem_bytes_per_kcycle, 8791u);
}

TEST(MemivConfig, ZeroHostLinkBandwidthIsReportedByOption) {
  Loaded l;
  ASSERT_EQ(l.Load(ConfigPath("SM75_RTX2060.config")), SIMTVP_OK) << l.diag.message;
  l.g.host.bus_bandwidth_gbs = 0;
  memiv_config c;
  EXPECT_NE(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK);
  EXPECT_STREQ(l.diag.option, "-host_bus_bandwidth_gbs");
}

TEST(MemivConfig, UnknownNetworkModeIsReportedByOption) {
  Loaded l;
  ASSERT_EQ(l.Load(ConfigPath("SM7_QV100.config")), SIMTVP_OK) << l.diag.message;
  l.g.icnt.network_mode = 7;
  memiv_config c;
  EXPECT_NE(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK);
  EXPECT_STREQ(l.diag.option, "-network_mode");
}

TEST(MemivConfig, MalformedDramTimingIsReportedByOption) {
  Loaded l;
  ASSERT_EQ(l.Load(ConfigPath("SM7_QV100.config")), SIMTVP_OK) << l.diag.message;
  std::strcpy(l.g.dram.timing, "nbk=16:RCD=x");
  memiv_config c;
  EXPECT_NE(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK);
  EXPECT_STREQ(l.diag.option, "-gpgpu_dram_timing_opt");
}

// The channel, slice and L2 index address of an address are the memory system's: the DRAM
// decoder's (as tlm/mem builds it) and the partition's own index address (mempart_index_addr).
// QV100 and RTX 3070 decode by one table entry per address byte; RTX 2060, GTX 480 and A100 divide
// by 12, 6 and 40 channels (the tables then index the address with the channel squeezed out).
// Every third address uses all 64 bits (the tables' upper bytes).
TEST(MemivConfig, SliceAndIndexEqualTheMemoryPartitionsOnQv100AndRtx2060) {
  for (const char *name : {"SM7_QV100.config", "SM75_RTX2060.config", "SM86_RTX3070.config", "SM2_GTX480.config",
                           "SM80_A100.config"}) {
    Loaded l;
    ASSERT_EQ(l.Load(ConfigPath(name)), SIMTVP_OK) << l.diag.message;
    memiv_config c;
    ASSERT_EQ(memiv_config_from_gpu(&l.g, &c, &l.diag), SIMTVP_OK) << l.diag.message;
    memiv *m = memiv_create(&c, &l.diag);
    ASSERT_NE(m, nullptr) << l.diag.message;
    dram_partition_indexing ix;
    ASSERT_EQ(dram_partition_indexing_from_option(l.g.mem.partition_indexing, nullptr, &ix, &l.diag), SIMTVP_OK);
    dram_addrmap_config mc = {l.g.mem.addr_mapping, l.g.mem.n_channels, l.g.mem.sub_partitions_per_channel, ix};
    dram_addrmap *map = nullptr;
    ASSERT_EQ(dram_addrmap_create(&mc, &map, &l.diag), SIMTVP_OK);
    std::vector<mempart *> parts(l.g.mem.n_channels, nullptr);
    uint64_t x = 99;
    for (int i = 0; i < 3000; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t addr = (i % 3 ? x >> 24 : x) & ~127ull;
      dram_addr a;
      dram_addrmap_decode(map, addr, &a);
      memiv_route r;
      memiv_route_of(m, addr, &r);
      ASSERT_EQ(r.channel, a.channel) << name << " 0x" << std::hex << addr;
      ASSERT_EQ(r.slice, a.sub_partition) << name << " 0x" << std::hex << addr;
      ASSERT_EQ(r.row, a.row);
      if (!parts[a.channel]) {
        mempart_config pc;
        mempart_config_default(&pc);
        ASSERT_EQ(mempart_config_from_gpu(&l.g, a.channel, &pc, &l.diag), SIMTVP_OK);
        pc.model = "at";
        pc.ports.reply = [](void *, uint32_t, mem_req *, uint64_t) { return false; };
        pc.ports.dram = [](void *, mem_req *, uint64_t) { return false; };
        ASSERT_EQ(mempart_create(&pc, &parts[a.channel], &l.diag), SIMTVP_OK) << l.diag.message;
      }
      ASSERT_EQ(r.index_addr, mempart_index_addr(parts[a.channel], addr)) << name << " 0x" << std::hex << addr;
    }
    for (mempart *p : parts) mempart_destroy(p);
    dram_addrmap_destroy(map);
    memiv_destroy(m);
  }
}

// ---- wiring: the timing SIMT side builds memiv only for interval cores ------------------------------

struct Side {
  Loaded l;
  gpu_params params{};
  devmem *mem = devmem_create();
  stats *st = stats_create();
  gpu_simt_timing *t = nullptr;
  simtvp_diag diag{};
  ~Side() {
    gpu_simt_timing_destroy(t);
    stats_destroy(st);
    devmem_destroy(mem);
  }
  bool Make(int interval_core) {
    EXPECT_EQ(l.Load(ConfigPath("default.config")), SIMTVP_OK) << l.diag.message;
    if (interval_core >= 0) l.g.derived.simt_model_of_core[interval_core] = GPU_FIDELITY_INTERVAL;
    EXPECT_EQ(gpu_params_from_config(&l.g, &params, &diag), SIMTVP_OK) << diag.message;
    gpu_simt_timing_config tc{};
    tc.gpu = &l.g;
    tc.params = &params;
    tc.mem = mem;
    tc.st = st;
    gpu_simt_timing_ports p{};
    p.now = [](void *) -> uint64_t { return 0; };
    t = gpu_simt_timing_create(&tc, p, &diag);
    return t != nullptr;
  }
};

TEST(MemivWiring, IntervalCoresGetThePortAndOthersDoNot) {
  Side s;
  ASSERT_TRUE(s.Make(1)) << s.diag.message;
  const simt_core_config *cc = gpu_simt_timing_core_configs(s.t);
  EXPECT_EQ(cc[0].interval_mem.ctx, nullptr);
  ASSERT_NE(cc[1].interval_mem.ctx, nullptr);
  uint64_t r = cc[1].interval_mem.access(cc[1].interval_mem.ctx, 1, 0x1000, 0x1, nullptr, kRead, false, 0, 50);
  EXPECT_GT(r, 50u);
  const uint64_t *req = stats_counter_find(s.st, "memiv.requests");
  ASSERT_NE(req, nullptr);
  EXPECT_EQ(*req, 1u);
}

TEST(MemivWiring, RunWithoutIntervalCoresRegistersNoMemivStatistic) {
  Side s;
  ASSERT_TRUE(s.Make(-1)) << s.diag.message;
  EXPECT_EQ(stats_counter_find(s.st, "memiv.requests"), nullptr);
  for (uint32_t i = 0; i < stats_counter_count(s.st); i++)
    EXPECT_NE(std::string(stats_counter_name(s.st, i)).rfind("memiv.", 0), 0u) << stats_counter_name(s.st, i);
  const simt_core_config *cc = gpu_simt_timing_core_configs(s.t);
  for (uint32_t i = 0; i < gpu_simt_timing_cores(s.t); i++) EXPECT_EQ(cc[i].interval_mem.ctx, nullptr);
}

}  // namespace
