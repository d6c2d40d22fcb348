// report/ on its own: kernel names as people read them, the default per-kernel block and table
// (hand-computed from a statistics sink filled by hand), progress lines with an injected clock,
// the timeline's lanes, the trace file against the trace-event format, the deadlock-dump fold,
// the report's adaptive samples and its embedded data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "demangle.h"
#include "html_report.h"
#include "json_text.h"
#include "json_reader.h"
#include "message_fold.h"
#include "progress.h"
#include "series.h"
#include "stats.h"
#include "stats_json.h"
#include "summary.h"
#include "timeline.h"
#include "trace_check.h"
#include "trace_json.h"
#include "trace_vcd.h"

using namespace simtvp::report;

namespace {

std::string slurp_stream(void (*write)(FILE *, void *), void *ctx) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  write(f, ctx);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

const char kTiled[] = "_Z11sgemm_tilediiifPKfS0_fPf";

TEST(Demangle, ItaniumNamesBecomeCppAndOtherNamesStay) {
  EXPECT_EQ(demangle(kTiled), "sgemm_tiled(int, int, int, float, float const*, float const*, float, float*)");
  EXPECT_EQ(demangle("vecAdd"), "vecAdd");          // extern "C"
  EXPECT_EQ(demangle("_Zbroken"), "_Zbroken");      // not a valid mangled name
}

TEST(Demangle, ShortNamesFoldTemplatesAndParameters) {
  std::string d = demangle("_ZN4cuda6detail6reduceILi256EN3foo3BarIfEEEEvPKfPfi");
  EXPECT_EQ(d, "void cuda::detail::reduce<256, foo::Bar<float> >(float const*, float*, int)");
  EXPECT_EQ(short_name(d, 200), "void cuda::detail::reduce<256, foo::Bar<\xe2\x80\xa6> >(float const*, float*, int)");
  EXPECT_EQ(short_name(d, 50), "void cuda::detail::reduce<256, foo::Bar<\xe2\x80\xa6> >(\xe2\x80\xa6)");
  EXPECT_EQ(short_name(d, 200, true), "void cuda::detail::reduce<256, foo::Bar<\xe2\x80\xa6> >");
  EXPECT_EQ(short_name(demangle(kTiled), 40, true), "sgemm_tiled");
  EXPECT_EQ(display_width(short_name(d, 20)), 20u);  // cut with "…"
  EXPECT_EQ(short_name("(anonymous namespace)::k(int)", 100, true), "(anonymous namespace)::k");
}

// A sink with one kernel whose figures are easy to check by hand.
struct Sink {
  stats *s = stats_create();
  timeline t;
  ~Sink() { stats_destroy(s); }
  void kernel(const char *name, uint64_t uid, bool timing, uint64_t l2_access) {
    uint64_t *cyc = stats_counter(s, "gpu_sim_cycle", "cycles", "");
    uint64_t *insn = stats_counter(s, "gpu_sim_insn", "insn", "");
    uint64_t *winsn = timing ? stats_counter(s, "gpgpu_n_tot_w_icount", "insn", "")
                             : stats_counter(s, "func.warp_insn", "insn", "");
    stats_ratio(s, "gpu_ipc", "", "gpu_sim_insn", "gpu_sim_cycle");
    kernel_span k;
    k.uid = uid;
    k.name = name;
    k.grid[0] = 3, k.grid[1] = 4, k.grid[2] = 1;
    k.block[0] = 16, k.block[1] = 16, k.block[2] = 1;
    k.n_ctas = 12;
    k.begin_ps = 0;
    t.kernel_begin(k);
    stats_kernel_begin(s, name, uid);
    *insn += 64000;
    *winsn += 2000;
    if (timing) {
      *cyc += 1000;
      *stats_counter(s, "simt.resident_warp_cycles", "", "") += 24000;
      *stats_counter(s, "simt.warp_slot_cycles", "", "") += 48000;
      *stats_counter(s, "W1", "", "") += 200;
      *stats_counter(s, "W32", "", "") += 1800;
      *stats_counter(s, "simt_sched_stall[no_warp]", "", "") += 0;
      *stats_counter(s, "simt_sched_stall[barrier]", "", "") += 200;
      *stats_counter(s, "simt_sched_stall[scoreboard]", "", "") += 1500;
      *stats_counter(s, "simt_sched_stall[pipe_busy]", "", "") += 300;
      *stats_counter(s, "L1D_cache_core[0].access", "", "") += 100;
      *stats_counter(s, "L1D_cache_core[0].miss", "", "") += 25;
      *stats_counter(s, "L2_cache_bank[0].access", "", "") += l2_access;
      *stats_counter(s, "L2_cache_bank[0].miss", "", "") += 0;
      *stats_counter(s, "DRAM[0].bwutil", "", "") += 50;
      *stats_counter(s, "DRAM[0].n_cmd", "", "") += 1000;
      *stats_counter(s, "DRAM[1].bwutil", "", "") += 150;
      *stats_counter(s, "DRAM[1].n_cmd", "", "") += 1000;
      stats_sum(s, "L1D_total_cache_accesses", "", "", "L1D_cache_core[*].access");
      stats_sum(s, "L1D_total_cache_misses", "", "", "L1D_cache_core[*].miss");
      stats_sum(s, "L2_total_cache_accesses", "", "", "L2_cache_bank[*].access");
      stats_sum(s, "L2_total_cache_misses", "", "", "L2_cache_bank[*].miss");
    }
    stats_kernel_end(s);
    t.kernel_end(uid, 8038000, timing ? 1000 : 0);
  }
};

TEST(Summary, KernelBlockHasTheHeadlineFigures) {
  // IPC 64000 / 1000; occupancy 24000 / 48000; scheduler cycles 2000 issue + 2000 stalls: issue
  // 50%, scoreboard 1500/4000, pipe busy 300/4000, barrier 200/4000; L1D hit 1 - 25/100; no L2
  // access: "-"; DRAM (50 + 150) / (1000 + 1000).
  Sink k;
  k.kernel(kTiled, 1, true, 0);
  kernel_figures f = kernel_figures_of(k.s, 0, &k.t);
  EXPECT_EQ(kernel_block(f),
            "simtvp: kernel 1: sgemm_tiled(int, int, int, float, float const*, float const*, float, float*)\n"
            "  grid (3,4,1)  block (16,16,1)  12 CTAs  |  1000 cycles (8.038 us)  IPC 64.00  warp insns 2000\n"
            "  occupancy 50.0%  |  issue 50.0%, stalls: scoreboard 37.5%, pipe busy 7.5%, barrier 5.0%\n"
            "  L1D hit 75.0%  L2 hit -  DRAM bandwidth 10.0% of peak\n");
  std::string table = kernel_table({f});
  EXPECT_NE(table.find("sgemm_tiled (3,4,1) (16,16,1)   1000 64.00     50.0%   75.0%      -   10.0% scoreboard 37.5%"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("nan"), std::string::npos);
  EXPECT_EQ(table.find("total"), std::string::npos);  // one kernel: no total line
}

TEST(Summary, FunctionalKernelsShowInstructionsNotRates) {
  Sink k;
  k.kernel("vecAdd", 1, false, 0);
  kernel_figures f = kernel_figures_of(k.s, 0, &k.t);
  EXPECT_EQ(kernel_block(f),
            "simtvp: kernel 1: vecAdd\n  grid (3,4,1)  block (16,16,1)  12 CTAs  |  functional (no timing): 2000 warp "
            "insns, 64000 thread insns\n");
  std::string table = kernel_table({f, f});
  EXPECT_NE(table.find("thread insns"), std::string::npos) << table;
  EXPECT_NE(table.find("total"), std::string::npos) << table;
  EXPECT_EQ(table.find("IPC"), std::string::npos) << table;
}

TEST(Summary, ManyLaunchesOfOneKernelBecomeOneRow) {
  Sink k;
  std::vector<kernel_figures> all;
  for (uint64_t uid = 1; uid <= 40; uid++) {
    k.kernel(uid % 2 ? kTiled : "other", uid, true, 10);
    all.push_back(kernel_figures_of(k.s, static_cast<uint32_t>(uid - 1), &k.t));
  }
  std::string table = kernel_table(all, 30);
  EXPECT_NE(table.find("simtvp: 40 kernels\n"), std::string::npos) << table;
  EXPECT_NE(table.find("x20 sgemm_tiled"), std::string::npos) << table;
  EXPECT_NE(table.find("x20 other"), std::string::npos) << table;
  EXPECT_NE(table.find("40000"), std::string::npos) << table;  // total cycles
}

double g_now = 0;
double fake_clock() { return g_now; }

progress_state sample_state() {
  progress_state s;
  s.kernel_index = 2;
  s.running = 1;
  s.kernel = demangle(kTiled);
  s.kernel_cycles = 1000;
  s.kernel_insn = 64000;
  s.ctas_done = 3;
  s.ctas_total = 12;
  s.total_cycles = 31000;
  s.total_insn = 2000000;
  return s;
}

TEST(Progress, OffATerminalALineComesEveryPeriodOfTheClock) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  g_now = 100.0;
  progress p(progress::lines, f, 2.0, fake_clock);
  progress_state s = sample_state();
  g_now = 101.0;
  EXPECT_FALSE(p.due());
  p.print(s);
  g_now = 102.0;  // one period: a line (elapsed 2 s: 2000000 insn / 2 s; ipc 2000000 / 31000)
  EXPECT_TRUE(p.due());
  p.print(s);
  g_now = 103.5;
  p.print(s);     // not yet
  g_now = 109.0;  // several periods later: one line, not a burst
  p.print(s);
  p.print(s);
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  EXPECT_EQ(out,
            "simtvp: cycles simulated: 31000  inst.: 2000000 (ipc=64.5) sim_rate=1000000 (inst/sec) elapsed = "
            "0:0:00:02 / kernel 2 sgemm_tiled, CTAs 3/12\n"
            "simtvp: cycles simulated: 31000  inst.: 2000000 (ipc=64.5) sim_rate=222222 (inst/sec) elapsed = "
            "0:0:00:09 / kernel 2 sgemm_tiled, CTAs 3/12\n");
  s.running = 0;
  EXPECT_NE(progress::liveness_line(s, 3725.0).find("elapsed = 0:1:02:05 / between kernels (2 so far)"),
            std::string::npos);
}

TEST(Progress, OnATerminalOneLineIsRedrawnInPlaceWithABar) {
  setenv("COLUMNS", "120", 1);
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  g_now = 0;
  progress p(progress::tty, f, 1.0, fake_clock);
  progress_state s = sample_state();
  g_now = 0.4;
  p.print(s);  // nothing in the first half second
  g_now = 0.5;
  p.print(s);
  g_now = 0.6;
  p.print(s);  // at most 4 redraws a second
  g_now = 0.75;
  s.ctas_done = 12;
  p.print(s);
  p.clear();
  p.clear();  // nothing shown any more: nothing to erase
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  // 0.5 s: 2000000 insn / 0.5 s; 1000 cycles, IPC 64000 / 1000; 3 of 12 CTAs = 5 of 20 marks.
  EXPECT_EQ(out,
            "\r[kernel 2 sgemm_tiled] 1.0k cycles  IPC 64.0  4.00M insn/s  CTAs [#####---------------] 3/12\033[K"
            "\r[kernel 2 sgemm_tiled] 1.0k cycles  IPC 64.0  2.67M insn/s  CTAs [####################] 12/12\033[K"
            "\r\033[K");
  EXPECT_EQ(out.find('\n'), std::string::npos);
  std::string narrow = progress::tty_line(s, 1.0, 60);
  EXPECT_LT(display_width(narrow), 60u) << narrow;
  unsetenv("COLUMNS");
}

TEST(Progress, QuietOrNoPeriodMeansNoProgress) {
  EXPECT_EQ(progress_mode_for(stderr, true), progress::off);
  progress p(progress::lines, stderr, 0.0, fake_clock);
  EXPECT_EQ(p.mode(), progress::off);
  EXPECT_FALSE(p.due());
}

TEST(Timeline, CtasTakeTheLowestFreeSlotAndEndOldestFirst) {
  timeline t;
  kernel_span k;
  k.uid = 7;
  k.name = "k";
  t.kernel_begin(k);
  t.cta_begin(7, 0, 100);
  t.cta_begin(7, 0, 110);
  t.cta_end(7, 0, 150, 0);  // the first one
  t.cta_begin(7, 0, 160);   // lane 0 again
  t.cta_end(7, 0, 170, 0);
  t.cta_end(7, 0, 180, 0);
  const std::vector<span> &c = t.ctas().at(0);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].lane, 0u);
  EXPECT_EQ(c[0].end_ps, 150u);
  EXPECT_EQ(c[1].lane, 1u);
  EXPECT_EQ(c[1].end_ps, 170u);
  EXPECT_EQ(c[2].lane, 0u);
  EXPECT_EQ(c[2].end_ps, 180u);
  EXPECT_EQ(t.kernel(7)->ctas_done, 3u);
  t.dram_busy(1, true, 10);
  t.dram_busy(1, false, 20);
  t.dram_busy(1, true, 20);  // no gap: one interval
  t.dram_busy(1, false, 30);
  t.dram_busy(1, true, 40);
  t.close(50);               // still busy at the end: the end is the latest time seen (180)
  const std::vector<span> &d = t.dram().at(1);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].begin_ps, 10u);
  EXPECT_EQ(d[0].end_ps, 30u);
  EXPECT_EQ(d[1].end_ps, 180u);
  EXPECT_FALSE(t.kernel(7)->ended);
  EXPECT_EQ(t.kernel(7)->end_ps, 180u);
}

TEST(Timeline, BeyondItsCapIntervalsAreCountedNotKept) {
  timeline t(2);
  for (int i = 0; i < 5; i++) t.cta_begin(1, 0, 10u * i);
  EXPECT_EQ(t.ctas().at(0).size(), 2u);
  EXPECT_EQ(t.dropped(), 3u);
}

TEST(Trace, TimelineIsValidTraceEventJsonWithEveryTrack) {
  timeline t;
  kernel_span k;
  k.uid = 1;
  k.name = kTiled;
  k.block[0] = 256;
  k.begin_ps = 1000000;
  t.kernel_begin(k);
  t.cta_begin(1, 0, 1000000);
  t.cta_begin(1, 0, 1000000);
  t.cta_begin(1, 3, 1000000);
  t.cta_end(1, 0, 1500000, 0);
  t.cta_end(1, 3, 1600000, 0);
  t.cta_end(1, 0, 1700000, 0);
  t.kernel_end(1, 1800000, 2457);
  t.copy(100, 900000, 4096, 0, 1, 0);
  t.copy(200, 300000, 64, 1, 0, 0);
  t.cp_work(50, 70, 0, 0x1010);
  t.packet(60, 0, 1);
  t.irq(1900000, true);
  t.irq(1950000, false);
  t.dram_busy(2, true, 1100000);
  t.dram_busy(2, false, 1200000);
  t.close(2000000);
  std::string text = slurp_stream(
      [](FILE *f, void *ctx) { write_trace_json(f, *static_cast<timeline *>(ctx), nullptr, trace_info{}); }, &t);
  json_reader::Value doc = json_reader::parse(text);
  EXPECT_EQ(trace_check::check(doc), "");
  std::map<std::string, int> by_cat;
  const json_reader::Value &ev = doc["traceEvents"];
  for (size_t i = 0; i < ev.size(); i++)
    if (ev[i].has("cat")) by_cat[ev[i]["cat"].text]++;
  EXPECT_EQ(by_cat["kernel"], 1);
  EXPECT_EQ(by_cat["cta"], 3);
  EXPECT_EQ(by_cat["copy"], 2);
  EXPECT_EQ(by_cat["cp"], 1);
  EXPECT_EQ(by_cat["packet"], 1);
  EXPECT_EQ(by_cat["dram"], 1);
  EXPECT_NE(text.find("\"name\":\"sgemm_tiled\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"LAUNCH\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"copy H2D\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"memset D\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"register write "), std::string::npos);
  EXPECT_EQ(trace_us(1234567), "1.234567");
  // A partly overlapping pair on one thread is what the check catches.
  json_reader::Value bad = json_reader::parse(
      "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":10}]}");
  EXPECT_NE(trace_check::check(bad), "");
}

// The timeline as a Value Change Dump, by hand: variables in the order they are declared get the
// identifiers '!', '"', '#', …; at #0 every value, then at each time only what changed. Two CTAs
// on SM 0 from 1000 to 1500 and 1700 make sm0_ctas 2, 1, 0; the two overlapping copies take
// engine lanes 0 and 1; a packet at 60 counts 1 with opcode 1.
TEST(Vcd, TimelineBecomesWaveformsWithEveryChangeAtItsTime) {
  timeline t;
  kernel_span k;
  k.uid = 1;
  k.name = kTiled;
  k.begin_ps = 1000;
  t.kernel_begin(k);
  t.cta_begin(1, 0, 1000);
  t.cta_begin(1, 0, 1000);
  t.cta_begin(1, 3, 1000);
  t.cta_end(1, 0, 1500, 0);
  t.cta_end(1, 3, 1600, 0);
  t.cta_end(1, 0, 1700, 0);
  t.kernel_end(1, 1800, 2457);
  t.copy(100, 900, 4096, 0, 1, 0);
  t.copy(200, 300, 64, 1, 0, 0);
  t.cp_work(50, 70, 0, 0x1010);
  t.packet(60, 0, 1);
  t.irq(1900, true);
  t.irq(1950, false);
  t.dram_busy(2, true, 1100);
  t.dram_busy(2, false, 1200);
  t.close(2000);
  std::string text = slurp_stream(
      [](FILE *f, void *ctx) {
        vcd_info vi;
        vi.gpu = "RTX";
        vi.config = "default";
        vi.simt_model = "ca";
        EXPECT_TRUE(write_trace_vcd(f, *static_cast<timeline *>(ctx), vi));
      },
      &t);
  EXPECT_EQ(text,
            "$version simtvp $end\n"
            "$comment GPU RTX, configuration default, SIMT model ca; simulated time $end\n"
            "$timescale 1ps $end\n"
            "$scope module gpu $end\n"
            "$var wire 1 ! irq $end\n"
            "$var reg 32 \" kernels $end\n"
            "$var reg 32 # kernel0 $end\n"
            "$scope module sm $end\n"
            "$var reg 16 $ sm0_ctas $end\n"
            "$var reg 16 % sm3_ctas $end\n"
            "$upscope $end\n"
            "$scope module copy_engine $end\n"
            "$var wire 1 & ce0_busy $end\n"
            "$var reg 64 ' ce0_bytes $end\n"
            "$var wire 1 ( ce1_busy $end\n"
            "$var reg 64 ) ce1_bytes $end\n"
            "$upscope $end\n"
            "$scope module command_processor $end\n"
            "$var wire 1 * busy $end\n"
            "$var reg 32 + packets $end\n"
            "$var reg 32 , opcode $end\n"
            "$upscope $end\n"
            "$scope module dram $end\n"
            "$var wire 1 - ch2_busy $end\n"
            "$upscope $end\n"
            "$upscope $end\n"
            "$enddefinitions $end\n"
            "#0\n$dumpvars\n0!\nb0 \"\nb0 #\nb0 $\nb0 %\n0&\nb0 '\n0(\nb0 )\n0*\nb0 +\nb0 ,\n0-\n$end\n"
            "#50\n1*\n"
            "#60\nb1 +\nb1 ,\n"
            "#70\n0*\n"
            "#100\n1&\nb1000000000000 '\n"
            "#200\n1(\nb1000000 )\n"
            "#300\n0(\nb0 )\n"
            "#900\n0&\nb0 '\n"
            "#1000\nb1 \"\nb1 #\nb10 $\nb1 %\n"
            "#1100\n1-\n"
            "#1200\n0-\n"
            "#1500\nb1 $\n"
            "#1600\nb0 %\n"
            "#1700\nb0 $\n"
            "#1800\nb0 \"\nb0 #\n"
            "#1900\n1!\n"
            "#1950\n0!\n");
}

// Intervals that end where the next begins on the same line keep it high (no zero-width glitch),
// and an empty timeline is a valid dump of the interrupt line alone.
TEST(Vcd, BackToBackIntervalsStayHighAndAnEmptyRunIsValid) {
  timeline t;
  t.copy(100, 200, 8, 0, 0, 0);
  t.copy(200, 300, 16, 0, 0, 0);
  std::string text = slurp_stream(
      [](FILE *f, void *ctx) { write_trace_vcd(f, *static_cast<timeline *>(ctx), vcd_info{}); }, &t);
  size_t defs = text.find("$enddefinitions $end\n");
  ASSERT_NE(defs, std::string::npos);
  // ce0_busy is '#', ce0_bytes '$' (after irq and kernels)
  EXPECT_EQ(text.substr(defs), "$enddefinitions $end\n#0\n$dumpvars\n0!\nb0 \"\n0#\nb0 $\n0%\nb0 &\nb0 '\n$end\n"
                               "#100\n1#\nb1000 $\n#200\nb10000 $\n#300\n0#\nb0 $\n") << text;
  timeline empty;
  std::string e = slurp_stream(
      [](FILE *f, void *ctx) { write_trace_vcd(f, *static_cast<timeline *>(ctx), vcd_info{}); }, &empty);
  EXPECT_NE(e.find("$var wire 1 ! irq $end\n"), std::string::npos) << e;
  EXPECT_NE(e.find("$enddefinitions $end\n#0\n$dumpvars\n0!\n"), std::string::npos) << e;
}

TEST(MessageFold, AlikeDeadlockedCtasBecomeOneLine) {
  message_fold f;
  std::vector<std::string> out;
  auto feed = [&](const std::string &l) {
    for (auto &x : f.feed(l)) out.push_back(x);
  };
  for (int cta = 0; cta < 4; cta++) {
    std::string c = std::to_string(cta);
    feed("SIMT core " + c + ": kernel K CTA (" + c + ",0,0): barrier deadlock at cycle 9: every live warp waits; warps:");
    feed("  warp 0 (slot 0, sched 0): barrier 0 (pc 63 `bar.sync 0;`), next pc 64, in flight " + c);
    feed("  warp 1 (slot 1, sched 1): barrier 1 (pc 65 `bar.sync 1, 64;`), next pc 66");
  }
  feed("something else");
  feed("something else");
  feed("something else");
  for (auto &x : f.flush()) out.push_back(x);
  std::vector<std::string> want = {
      "SIMT core 0: kernel K CTA (0,0,0): barrier deadlock at cycle 9: every live warp waits; warps:",
      "  warp 0 (slot 0, sched 0): barrier 0 (pc 63 `bar.sync 0;`), next pc 64, in flight 0",
      "  warp 1 (slot 1, sched 1): barrier 1 (pc 65 `bar.sync 1, 64;`), next pc 66",
      "... and 3 more CTAs of K deadlocked the same way (SIMT cores 1-3, CTAs (1,0,0) .. (3,0,0))",
      "something else",
      "(the message above 2 more times)"};
  EXPECT_EQ(out, want);
}

TEST(Series, HalvesItsSamplesAndDoublesItsPeriodWhenFull) {
  stats *s = stats_create();
  uint64_t *insn = stats_counter(s, "gpu_sim_insn", "insn", "");
  stats_counter(s, "simt_core[1].thread_insn", "insn", "");
  stats_counter(s, "simt_core[0].thread_insn", "insn", "");
  series ser(10, 4);
  ser.attach(s);
  ASSERT_NE(ser.find("insn"), nullptr);
  ASSERT_EQ(ser.columns().size(), 3u);
  EXPECT_EQ(ser.columns()[1].name, "sm[0].insn");  // by instance number
  for (uint64_t t = 0; t < 5; t++) {
    *insn = t * 100;
    ser.sample(t * 10);
  }
  // Full at 4 samples: 0, 20 kept, period 20, then 40.
  EXPECT_EQ(ser.period_ps(), 20u);
  EXPECT_EQ(ser.times_ps(), (std::vector<uint64_t>{0, 20, 40}));
  EXPECT_EQ(ser.find("insn")->values, (std::vector<uint64_t>{0, 200, 400}));
  *insn = 450;
  ser.sample(40);  // same instant: newer values
  EXPECT_EQ(ser.find("insn")->values.back(), 450u);
  stats_destroy(s);
}

TEST(HtmlReport, DataIsJsonAndThePageCannotBeBrokenByNames) {
  Sink k;
  k.kernel("evil</script><b>", 1, true, 10);
  html_info info;
  info.title = "prog</script>";
  info.sm_model = {"ca", "at"};
  info.dram_model = {"ca"};
  info.max_warps_per_sm = 32;
  std::string data = report_data_json(k.s, k.t, nullptr, info);
  json_reader::Value d = json_reader::parse(data);
  EXPECT_EQ(d["kernels"].size(), 1u);
  EXPECT_EQ(d["kernels"][0]["name"].text, "evil</script><b>");
  EXPECT_EQ(d["kernels"][0]["cycles"].u64(), 1000u);
  EXPECT_EQ(d["config"]["fidelity"]["sm"].size(), 2u);
  EXPECT_EQ(d["hotspots"].kind, json_reader::Value::Null);  // the profile is off
  struct ctx_t {
    Sink *k;
    html_info *i;
  } c{&k, &info};
  std::string page = slurp_stream(
      [](FILE *f, void *p) {
        auto *c = static_cast<ctx_t *>(p);
        write_html_report(f, c->k->s, c->k->t, nullptr, *c->i);
      },
      &c);
  size_t n = 0;
  for (size_t at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) n++;
  EXPECT_EQ(n, 2u);  // the data's and the script's own ends, nothing from the names
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));  // no other address
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
}

}  // namespace

namespace {
// The report's numbers: an integral double is written as "%.0f" would (without printf), others
// with six significant digits.
TEST(ReportJsonText, IntegralDoublesHavePrintfsDigits) {
  simtvp::report::json_text j;
  j.begin_array();
  const double values[] = {0.0, -0.0, 1.0, -3.0, 123456789012345.0, -8.99e15, 2.5, 1e20};
  for (double v : values) j.num(v);
  j.end_array();
  std::string want = "[";
  for (double v : values) {
    char buf[64];
    std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 9e15 ? "%.0f" : "%.6g", v);
    want += std::string(want.size() > 1 ? "," : "") + buf;
  }
  want += "]";
  EXPECT_EQ(j.text(), want);
}

// Keys and strings: plain ones go out between quotes as they are, any other takes stats_json's
// escaping (quote, backslash, control characters, UTF-8 checked), wherever the odd byte is;
// integers of every width keep their digits.
TEST(ReportJsonText, StringsNeedingNoEscapeAndTheRestMatchStatsJson) {
  const std::string strings[] = {"", "L1D_total_cache_accesses", "a\"b", "back\\slash", "tab\tend",
                                 std::string("nul\0x", 5), "caf\xc3\xa9", "\xff", "\x7f"};
  for (const std::string &s : strings) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    stats_json_write_escaped(f, s.c_str());
    fclose(f);
    std::string want(buf, len);
    free(buf);
    simtvp::report::json_text j;
    j.begin_object().key(s).str(s).end_object();
    EXPECT_EQ(j.text(), "{" + want + ":" + want + "}") << s;
    EXPECT_EQ(simtvp::report::json_text::quote(s), want) << s;
  }
  simtvp::report::json_text j;
  j.begin_array().num(uint64_t{0}).num(UINT64_MAX).num(uint32_t{7}).num(int64_t{-5}).end_array();
  EXPECT_EQ(j.text(), "[0,18446744073709551615,7,-5]");
}
}  // namespace
