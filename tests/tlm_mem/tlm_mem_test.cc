// TlmMem* — the memory system's SystemC shells end to end (traffic generator → interconnect shell →
// memory-partition shell → DRAM shell and back) across clock domains, back-pressure through the AT
// links, CA and AT DRAM controllers behind the same partition shell, idle domains, determinism and
// crossbar contention. TlmCommon* — clock domains, the payload pool and link errors.
//
// SystemC allows one simulation per process: CTest runs every case in its own process; a case
// that finds a simulation already run in its process is skipped (run it alone to see it).
//
// Timing rules (docs/tlm.md): an item sent at time t reaches a block of domain D at D's first edge
// strictly after t; within a block the model's own cycle timing applies (docs/mempart.md,
// docs/dram.md). For a read miss sent by a cluster at core edge T0, with a perfect interconnect:
//   icnt  i1 = after(T0)        inject and eject at i1 (perfect), sent at edge(i1)
//   L2    l1 = after(edge i1)   ROP R, access l1+R+1, DRAM latency queue l1+R+3, sent at l1+R+3+L
//   DRAM  d1 = after(...)       closed bank: ACT d1, RD d1+tRCD, done d1+tRCD+CL+burst = d1+26
//   L2    l2 = after(done)      fill l2, L2→ICNT l2+1, reply sent at l2+2
//   icnt  i2 = after(...)       inject and eject at i2
//   core  k  = after(edge i2)   the cluster takes the reply
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

#include "clock_domain.h"
#include "domain_driver.h"
#include "gpu_payload.h"
#include "link.h"
#include "mem_system.h"
#include "traffic_gen.h"

extern "C" {
#include "config.h"
#include "gpu_config.h"
#include "stats.h"
}

int sc_main(int, char *[]) { return 0; } // libsystemc refers to it; gtest's main runs the tests

using namespace simtvp;
using sc_core::SC_NS;
using sc_core::sc_time;
using tlmtest::mem_access;
using tlmtest::traffic_gen;

namespace {

bool g_simulated = false;
// One simulation per process: later cases in the same process are skipped.
#define ONE_SIMULATION_PER_PROCESS()                                                              \
  do {                                                                                            \
    if (g_simulated) GTEST_SKIP() << "SystemC runs one simulation per process; run this case alone"; \
    g_simulated = true;                                                                           \
  } while (0)

// 1 channel, 1 sub-partition; bits 31..16 row, 15..12 bank, 11..6 column, 5..0 burst (64 B).
constexpr const char *kMap1 = "00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CCSSSSSS";
// 4 channels on bits 9..8 (above the 256 B of one channel's consecutive columns), 2 sub-partitions
// on the lowest bank bit (13): bits 31..16 R | 15..13 B | 12..10 C | 9..8 D | 7..5 C | 4..0 S.
constexpr const char *kMap4 = "00000000000000000000000000000000RRRRRRRRRRRRRRRRBBBCCCDDCCCSSSSS";
constexpr const char *kL2 = "S:16:128:4,L:B:m:L:L,A:32:4,8:0,32";

constexpr uint32_t R = 10, L = 5, kDramRead = 26; // DRAM: closed-bank read = tRCD + CL + burst

mem_system_config SmallConfig(double icnt_mhz, double l2_mhz, double dram_mhz, uint32_t clusters = 1,
                              uint32_t channels = 1, uint32_t n_sub = 1) {
  mem_system_config c;
  c.icnt_mhz = icnt_mhz;
  c.l2_mhz = l2_mhz;
  c.dram_mhz = dram_mhz;
  c.n_clusters = clusters;
  c.n_channels = channels;
  c.n_sub = n_sub;
  icnt_config_default(&c.icnt);
  c.icnt.topology = ICNT_PERFECT;
  mempart_config_default(&c.partition);
  c.partition.rop_latency = R;
  c.partition.dram_latency = L;
  c.partition.l2 = kL2;
  dram_config_default(&c.dram);
  c.addr_mapping = channels == 1 ? kMap1 : kMap4;
  return c;
}

// The testbench: a core-clock driver, the memory system, one traffic generator per cluster.
struct bench {
  std::unique_ptr<domain_driver> core;
  std::unique_ptr<mem_system> mem;
  std::vector<std::unique_ptr<traffic_gen>> gens;
  bench(const char *name, double core_mhz, const mem_system_config &cfg,
        uint32_t max_outstanding = 0) {
    std::string n(name);
    core = std::make_unique<domain_driver>((n + "_core_clock").c_str(),
                                           clock_domain("core", core_mhz));
    mem = std::make_unique<mem_system>((n + "_mem").c_str(), cfg);
    for (uint32_t c = 0; c < cfg.n_clusters; c++)
      gens.push_back(std::make_unique<traffic_gen>((n + "_cluster" + std::to_string(c)).c_str(),
                                                   *core, *mem, c, max_outstanding));
  }
  ~bench() {
    mem.reset(); // before the generators: their request pools must outlive it
  }
  bool done() const {
    for (auto &g : gens)
      if (!g->done()) return false;
    return true;
  }
};

// The documented chain for one read (miss when dram_read > 0, else an L2 hit), in core cycles.
uint64_t ExpectedReplyCycle(const clock_domain &core, const clock_domain &icnt, const clock_domain &l2,
                            const clock_domain &dram, uint64_t k0, bool miss) {
  uint64_t i1 = icnt.cycle_after(core.time_of(k0));
  uint64_t l1 = l2.cycle_after(icnt.time_of(i1));
  uint64_t reply_l2;
  if (miss) {
    uint64_t d1 = dram.cycle_after(l2.time_of(l1 + R + 3 + L));
    uint64_t back = l2.cycle_after(dram.time_of(d1 + kDramRead));
    reply_l2 = back + 2;
  } else {
    reply_l2 = l1 + R + 3;
  }
  uint64_t i2 = icnt.cycle_after(l2.time_of(reply_l2));
  return core.cycle_after(icnt.time_of(i2));
}

// ---- clock domains, payloads, links (no simulation) ------------------------------------------------

TEST(TlmCommonClock, EdgesAreExactAtNonIntegerPeriods) {
  clock_domain c("core", 1132.0); // period 883.39 ps
  EXPECT_EQ(c.time_of(0), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(c.time_of(1132).value(), 1000000u);        // 1132 cycles = exactly 1 µs in ps
  EXPECT_EQ(c.time_of(1132000000ull).value(), 1000000000000ull); // 1 s: no drift
  EXPECT_EQ(c.time_of(1).value(), 883u);               // floor(1e12 / 1.132e9)
  EXPECT_EQ(c.cycle_at(sc_time(1, sc_core::SC_US)), 1132u);
  EXPECT_EQ(c.cycle_after(sc_time(1, sc_core::SC_US)), 1133u);
  EXPECT_EQ(c.cycle_at(sc_time::from_value(882)), 0u);
  EXPECT_EQ(c.cycle_at(sc_time::from_value(883)), 1u);
  EXPECT_EQ(c.cycle_from(sc_time::from_value(884)), 2u);
  EXPECT_TRUE(c.is_edge(c.time_of(977)));
  EXPECT_FALSE(c.is_edge(c.time_of(977) + sc_time::from_value(1)));
}

// time_of and cycle_at compute on 64 bits while the products fit and on 128 bits beyond: both
// sides of the switch give edge(n) = floor(n × U / f) and its inverse (U = 1e12 ps per second).
TEST(TlmCommonClock, ConversionsAgreeAcrossTheSixtyFourBitLimit) {
  using u128 = unsigned __int128;
  clock_domain c("core", 1417.5);
  const u128 f = 1417500000u, U = 1000000000000ull;
  const uint64_t n_limit = UINT64_MAX / 1000000000000ull; // the last cycle computed on 64 bits
  for (uint64_t n : {uint64_t{1}, n_limit - 1, n_limit, n_limit + 1, n_limit + 2, n_limit * 7}) {
    uint64_t edge = static_cast<uint64_t>(static_cast<u128>(n) * U / f);
    EXPECT_EQ(c.time_of(n).value(), edge) << "cycle " << n;
    EXPECT_EQ(c.cycle_at(c.time_of(n)), n) << "cycle " << n;
    EXPECT_EQ(c.cycle_at(c.time_of(n) - sc_time::from_value(1)), n - 1) << "cycle " << n;
  }
  const uint64_t v_limit = UINT64_MAX / 1417500000u; // the last time whose (v + 1) × f fits
  for (uint64_t v : {v_limit - 2, v_limit - 1, v_limit, v_limit + 1, v_limit * 3}) {
    uint64_t n = static_cast<uint64_t>(((static_cast<u128>(v) + 1) * f - 1) / U);
    EXPECT_EQ(c.cycle_at(sc_time::from_value(v)), n) << "time " << v;
  }
}

TEST(TlmCommonClock, DomainsWithRationalRatiosMeetExactly) {
  clock_domain a("a", 1000.0), b("b", 750.0);
  // 1000 and 750 MHz: edges coincide every 4 ns (4 and 3 cycles).
  EXPECT_EQ(a.time_of(4), b.time_of(3));
  EXPECT_EQ(a.time_of(4000), b.time_of(3000));
  EXPECT_EQ(b.cycle_after(a.time_of(4)), 4u); // strictly after the shared edge
  EXPECT_EQ(a.cycles_in(100, b), 75u);
  EXPECT_EQ(a.cycles_in(101, b), 76u); // rounded up
  EXPECT_EQ(b.cycles_in(3, a), 4u);
}

TEST(TlmCommonClock, ClockDomainsOptionErrorsNameTheOption) {
  double mhz[4];
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(parse_clock_domains("1132.0:1132.0:1132.0:850.0", mhz, &diag), SIMTVP_OK);
  EXPECT_DOUBLE_EQ(mhz[3], 850.0);
  EXPECT_EQ(parse_clock_domains("1132.0:1132.0:0:850.0", mhz, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-gpgpu_clock_domains");
  EXPECT_NE(std::string(diag.message).find("L2"), std::string::npos) << diag.message;
  EXPECT_EQ(parse_clock_domains("1132.0:1132.0", mhz, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_THROW(clock_domain("bad", -5.0), sc_core::sc_report);
}

TEST(TlmCommonPayload, PoolRecyclesPayloadsWithTheirExtension) {
  payload_pool pool;
  mem_req_pool *rp = mem_req_pool_create();
  mem_req *r = mem_req_alloc(rp);
  r->addr = 0x1234;
  r->size = 32;
  r->kind = MEM_ACC_ATOMIC;
  r->sm = 7;
  tlm::tlm_generic_payload *gp = pool.acquire(r);
  EXPECT_EQ(gp->get_address(), 0x1234u);
  EXPECT_EQ(gp->get_command(), tlm::TLM_IGNORE_COMMAND);
  EXPECT_EQ(gpu_req_of(*gp), r);
  EXPECT_EQ(gp->get_extension<gpu_ext>()->kind, MEM_ACC_ATOMIC);
  EXPECT_EQ(gp->get_extension<gpu_ext>()->sm, 7u);
  EXPECT_EQ(pool.in_use(), 1u);
  gp->release();
  EXPECT_EQ(pool.in_use(), 0u);
  tlm::tlm_generic_payload *again = pool.acquire(r);
  EXPECT_EQ(again, gp); // recycled, no new allocation
  EXPECT_EQ(pool.allocated(), 1u);
  again->release();
  mem_req_pool_destroy(rp);
}

// A block that records its ticks, asks for `own` after each tick and, at cycle `at`, wakes the
// blocks in `wake` (block, cycle).
struct rec_block : sc_core::sc_module, clocked {
  std::vector<uint64_t> ticks;
  std::vector<uint64_t> own;
  uint64_t at = never;
  std::vector<std::pair<clocked *, uint64_t>> wake;
  rec_block(sc_core::sc_module_name n, domain_driver &d) : sc_module(n) { d.add(*this); }
  void tick(uint64_t c) override {
    ticks.push_back(c);
    if (c == at)
      for (auto &w : wake) w.first->wake_at(w.second);
  }
  uint64_t next_tick() const override {
    for (uint64_t o : own)
      if (o > ticks.back()) return o;
    return never;
  }
};

TEST(TlmCommonDriver, WakesDuringAnEdgeTickAtTheirEdgesAndNoOthers) {
  ONE_SIMULATION_PER_PROCESS();
  // The driver reads the blocks due at an edge once, before the ticks; what the ticks change
  // (their own next ticks, wakes of blocks due now and of idle ones) decides the next edge.
  // a (due 1) wakes b for 4 and c for 7 at its tick; b is due at 1 too, ticked after a, and asks
  // for 9 itself; c is idle until woken. Edges with work: 1, 4, 7, 9 — nothing at 2.
  domain_driver d("clock", clock_domain("core", 1000.0));
  rec_block a("a", d), b("b", d), c("c", d);
  a.at = 1;
  a.wake = {{&b, 4}, {&c, 7}};
  b.own = {9};
  a.wake_at(1);
  b.wake_at(1);
  sc_core::sc_start();
  EXPECT_EQ(a.ticks, (std::vector<uint64_t>{1}));
  EXPECT_EQ(b.ticks, (std::vector<uint64_t>{1, 4, 9}));
  EXPECT_EQ(c.ticks, (std::vector<uint64_t>{7}));
  EXPECT_EQ(d.activations(), 4u);
  EXPECT_EQ(d.ticks(), 5u);
}

struct err_block : sc_core::sc_module, clocked {
  msg_in in;
  req_in rin;
  explicit err_block(sc_core::sc_module_name n)
      : sc_module(n), in("bad_in", *this, 0), rin("bad_req_in", *this, 1) {}
  void tick(uint64_t) override {}
  uint64_t next_tick() const override { return never; }
};

TEST(TlmCommonLink, BeginReqWithoutGpuExtensionIsAnErrorNamingTheSocket) {
  ONE_SIMULATION_PER_PROCESS(); // creates modules
  err_block owner("blk");
  tlm::tlm_generic_payload gp; // no gpu_ext
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = sc_core::SC_ZERO_TIME;
  try {
    owner.in.nb_transport_fw(gp, ph, d);
    FAIL() << "expected an SC_REPORT_ERROR";
  } catch (const sc_core::sc_report &e) {
    EXPECT_NE(std::string(e.what()).find("blk.bad_in"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("extension"), std::string::npos) << e.what();
  }
  ph = tlm::BEGIN_REQ;
  EXPECT_THROW(owner.rin.nb_transport_fw(gp, ph, d), sc_core::sc_report);
  EXPECT_THROW(owner.in.b_transport(gp, d), sc_core::sc_report);
}

// A timed receiver that completes every item 5 ns after it arrives.
struct timed_block : sc_core::sc_module, clocked, timed_target {
  msg_in in;
  std::vector<uint32_t> links;
  explicit timed_block(sc_core::sc_module_name n) : sc_module(n), in("in", *this, 7) { in.set_timed(this); }
  void tick(uint64_t) override {}
  uint64_t next_tick() const override { return never; }
  bool timed_transport(uint32_t link_id, mem_req *, sc_time &delay) override {
    links.push_back(link_id);
    delay += sc_time(5, sc_core::SC_NS);
    return true;
  }
};

struct timed_sender : sc_core::sc_module, clocked {
  payload_pool pp;
  msg_out out;
  explicit timed_sender(sc_core::sc_module_name n) : sc_module(n), out("out", *this, 0, pp) {}
  void tick(uint64_t) override {}
  uint64_t next_tick() const override { return never; }
};

// Timed transport on an unchecked, untraced link is a plain call to the receiver (no payload);
// traced or checked, it is a b_transport with the GPU payload. Same answer and counts either way.
TEST(TlmCommonLink, TimedTransportIsADirectCallUnlessTheLinkIsTracedOrChecked) {
  ONE_SIMULATION_PER_PROCESS(); // creates modules
  timed_sender tx("tx");
  timed_block rx("rx");
  bind(tx.out, rx.in);
  mem_req_pool *rp = mem_req_pool_create();
  mem_req *r = mem_req_alloc(rp);
  r->addr = 0x1000;
  r->size = 32;
  r->kind = MEM_ACC_GLOBAL_R;
  sc_time d(2, sc_core::SC_NS);
  ASSERT_TRUE(tx.out.timed());
  EXPECT_TRUE(tx.out.transport(r, d));
  EXPECT_EQ(d, sc_time(7, sc_core::SC_NS));
  EXPECT_EQ(tx.pp.allocated(), 0u); // the direct path: no payload
  std::ostringstream trace;
  rx.in.set_trace(&trace);
  d = sc_time(2, sc_core::SC_NS);
  EXPECT_TRUE(tx.out.transport(r, d));
  EXPECT_EQ(d, sc_time(7, sc_core::SC_NS));
  EXPECT_EQ(tx.pp.allocated(), 1u); // traced: through the socket
  EXPECT_NE(trace.str().find("rx.in TIMED"), std::string::npos) << trace.str();
  rx.in.set_trace(nullptr);
  tx.out.enable_protocol_checks();
  d = sc_time(2, sc_core::SC_NS);
  EXPECT_TRUE(tx.out.transport(r, d));
  EXPECT_EQ(d, sc_time(7, sc_core::SC_NS));
  ASSERT_NE(tx.out.protocol_monitor(), nullptr);
  EXPECT_EQ(tx.out.protocol_monitor()->transactions(), 1u); // checked: the monitor saw it
  EXPECT_EQ(tx.out.counters().transfers, 3u);
  EXPECT_EQ(rx.in.counters().transfers, 3u);
  EXPECT_EQ(rx.links, (std::vector<uint32_t>{7, 7, 7}));
  mem_req_free(r);
  mem_req_pool_destroy(rp);
}

TEST(TlmCommonLink, OpenTransactionMapSurvivesGrowthAndRemoval) {
  detail::open_map m;
  std::vector<mem_req> reqs(1000);
  std::vector<tlm::tlm_generic_payload *> gps(1000);
  for (size_t i = 0; i < reqs.size(); i++) {
    gps[i] = reinterpret_cast<tlm::tlm_generic_payload *>(0x1000 + 16 * i);
    m.put(&reqs[i], gps[i]);
  }
  EXPECT_EQ(m.size(), 1000u);
  for (size_t i = 0; i < reqs.size(); i += 2) EXPECT_EQ(m.take(&reqs[i]), gps[i]);
  for (size_t i = 1; i < reqs.size(); i += 2) EXPECT_EQ(m.take(&reqs[i]), gps[i]);
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.take(&reqs[0]), nullptr);
}

TEST(TlmMemConfig, FromGpuConfigFallsBackWithWarningsAndNamesBadOptions) {
  gpu_config g;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  config_registry *r = config_registry_create(nullptr);
  ASSERT_EQ(gpu_config_register(r, &g, &diag), SIMTVP_OK);
  std::string path = std::string(SIMTVP_SOURCE_DIR) + "/configs/SM7_QV100.config";
  ASSERT_EQ(config_registry_load_file(r, path.c_str(), &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_config_finalize(&g, r, &diag), SIMTVP_OK) << diag.message;
  mem_system_config cfg;
  std::vector<std::string> warnings;
  simtvp_msg_port msg = {&warnings, [](void *ctx, simtvp_severity, const char *m) {
                           static_cast<std::vector<std::string> *>(ctx)->push_back(m);
                         }};
  // The QV100 file asks for -network_mode 1 (intersim) and -gpgpu_memory_partition_indexing 4
  // (random), neither modelled: the crossbar and ipoly hashing run instead, each said once.
  ASSERT_EQ(mem_system_config_from_gpu(g, nullptr, &msg, &cfg, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("-network_mode 1"), std::string::npos);
  EXPECT_NE(warnings[1].find("-gpgpu_memory_partition_indexing 4 (random) is not modelled"), std::string::npos)
      << warnings[1];
  EXPECT_EQ(cfg.indexing, DRAM_PART_IPOLY);
  EXPECT_EQ(cfg.n_channels, 32u);
  EXPECT_EQ(cfg.n_sub, 2u);
  EXPECT_EQ(cfg.n_clusters, 80u);
  EXPECT_DOUBLE_EQ(cfg.dram_mhz, 850.0);
  EXPECT_EQ(cfg.partition.rop_latency, 120u); // core and L2 clocks are equal
  EXPECT_EQ(cfg.partition.queue_icnt_to_l2, 64u);
  EXPECT_EQ(cfg.dram.timing.tCCD, 1u);
  EXPECT_TRUE(cfg.dram.dual_bus);
  EXPECT_EQ(cfg.dram_model.size(), 32u);
  EXPECT_EQ(cfg.dram_model[5], "ca");
  g.mem.partition_indexing = 9;  // no GPGPU-Sim version has it
  EXPECT_EQ(mem_system_config_from_gpu(g, nullptr, nullptr, &cfg, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-gpgpu_memory_partition_indexing");
  g.mem.partition_indexing = 2;
  strcpy(g.dram.timing, "nbk=16:CCD=x");
  EXPECT_EQ(mem_system_config_from_gpu(g, nullptr, nullptr, &cfg, &diag), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(diag.option, "-gpgpu_dram_timing_opt");
  config_registry_destroy(r);
}

// ---- end to end ---------------------------------------------------------------------------------

TEST(TlmMemLatency, ReadMissCrossesIcntPartitionDramAndBackInHandComputedTime) {
  ONE_SIMULATION_PER_PROCESS();
  // core 1 GHz, icnt 1 GHz, L2 500 MHz, DRAM 250 MHz (periods 1, 1, 2, 4 ns).
  bench b("lat", 1000.0, SmallConfig(1000.0, 500.0, 250.0));
  b.gens[0]->script({{10, 0x1000, MEM_ACC_GLOBAL_R, 32, true}});
  sc_core::sc_start();
  ASSERT_EQ(b.gens[0]->replies(), 1u);
  const tlmtest::record &rec = b.gens[0]->records()[0];
  EXPECT_EQ(rec.issued, 10u);
  // Sent at 10 ns. icnt edge 11 (11 ns): injected and ejected. L2 edge 6 (12 ns) takes it:
  // ROP until 16, access 17 (miss), L2→DRAM 18, latency queue 19 (ready 24), sent at 24 (48 ns).
  // DRAM edge 13 (52 ns): ACT 13, RD 25, last beat 39 (156 ns). L2 edge 79 (158 ns) fills,
  // L2→ICNT 80, reply sent at 81 (162 ns). icnt edge 163 → core edge 164.
  EXPECT_EQ(rec.replied, 164u);
  EXPECT_EQ(rec.reply_time, sc_time(164, SC_NS));
  EXPECT_TRUE(b.mem->idle());
  EXPECT_EQ(b.gens[0]->requests_alive(), 0u);
}

// Zero-copy (docs/system-modes.md): a read of system memory goes around the L2, through the hub's
// link and the bus, and back.
TEST(TlmMemLatency, ZeroCopyReadCostsTheHubLinkAndTheBusInHandComputedTime) {
  ONE_SIMULATION_PER_PROCESS();
  mem_system_config cfg = SmallConfig(1000.0, 500.0, 250.0);  // periods 1, 1, 2, 4 ns
  cfg.hub.latency = 50;                // L2 cycles (100 ns)
  cfg.hub.bytes_per_kcycle = 16000;    // 16 bytes per L2 cycle
  cfg.hub.max_outstanding = 8;
  std::vector<uint64_t> bus_seen;
  cfg.sysmem.translate = [](const mem_req &r, uint64_t *bus, sc_time *extra) {
    *bus = r.addr + 0x100000000ull;
    *extra = sc_core::SC_ZERO_TIME;
    return true;
  };
  cfg.sysmem.transport = [&bus_seen](const mem_req &, uint64_t bus, sc_time *delay) {
    bus_seen.push_back(bus);
    *delay = sc_time(60, SC_NS);  // what the system took (the target's annotation)
    return true;
  };
  bench b("zc", 1000.0, cfg);
  mem_access a{10, 0x1000, MEM_ACC_GLOBAL_R, 32, true};
  a.aperture = MEM_APERTURE_SYSMEM;
  b.gens[0]->script({a});
  sc_core::sc_start();
  ASSERT_EQ(b.gens[0]->replies(), 1u);
  // Sent at 10 ns; icnt edge 11; L2 edge 6 (12 ns) takes it: ROP until 16, around the L2 into
  // L2→DRAM at 17, latency queue 18 (ready 23), sent to the hub at L2 edge 23 (46 ns). The hub
  // takes it at edge 24: 32 bytes at 16 per cycle, issue at 26; the bus answers 60 ns (30 cycles)
  // later and the link's 50 cycles follow: back at the partition's link at 106, taken at 107, into
  // L2→ICNT and replied at 108 (216 ns). icnt edge 217 → core edge 218.
  const tlmtest::record &rec = b.gens[0]->records()[0];
  EXPECT_EQ(rec.replied, 218u);
  ASSERT_EQ(bus_seen.size(), 1u);
  EXPECT_EQ(bus_seen[0], 0x100001000ull);
  dram_stats ds;
  dram_get_stats(b.mem->dram(0).model(), &ds);
  EXPECT_EQ(ds.n_req, 0u);  // the DRAM never saw it
  hub_stats hs;
  hub_get_stats(b.mem->hub().model(), &hs);
  EXPECT_EQ(hs.reads, 1u);
  EXPECT_EQ(hs.latency_cycles, 106u - 24u);
  EXPECT_TRUE(b.mem->idle());
  EXPECT_EQ(b.gens[0]->requests_alive(), 0u);
}

TEST(TlmMemLatency, IntegratedGpuSendsEveryDramRequestThroughTheHub) {
  ONE_SIMULATION_PER_PROCESS();
  mem_system_config cfg = SmallConfig(1000.0, 500.0, 250.0);
  cfg.integrated = true;  // no DRAM of its own
  cfg.hub.latency = 50;
  cfg.hub.bytes_per_kcycle = 16000;
  cfg.hub.max_outstanding = 8;
  uint64_t transactions = 0;
  cfg.sysmem.transport = [&transactions](const mem_req &, uint64_t, sc_time *delay) {
    transactions++;
    *delay = sc_time(60, SC_NS);
    return true;
  };
  bench b("integrated", 1000.0, cfg);
  b.gens[0]->script({{10, 0x1000, MEM_ACC_GLOBAL_R, 32, true}, {500, 0x1000, MEM_ACC_GLOBAL_R, 32, true}});
  sc_core::sc_start();
  ASSERT_EQ(b.gens[0]->replies(), 2u);
  EXPECT_FALSE(b.mem->has_dram());
  // The first read misses the L2: its fill crosses the hub as the DRAM read would (L2 edge 6
  // takes it, miss at 17, L2→DRAM 18, latency queue 19 → the hub at 24, taken 25, issue 27, back
  // 27 + 30 + 50 = 107, taken 108: fill, L2→ICNT 109, reply 110 (220 ns) → core 222). The second
  // hits: no bus transaction.
  EXPECT_EQ(b.gens[0]->records()[0].replied, 222u);
  EXPECT_EQ(transactions, 1u);
  EXPECT_TRUE(b.mem->idle());
}

TEST(TlmMemLatency, LatencyFollowsTheTimingRulesAtArbitraryClockRatios) {
  ONE_SIMULATION_PER_PROCESS();
  // Three systems in one simulation, each with its own four clocks (MHz: core, icnt, L2, DRAM).
  const double clocks[3][4] = {{1132.0, 1132.0, 1132.0, 850.0},
                               {1417.5, 700.0, 913.3, 1750.0},
                               {333.0, 1999.0, 150.0, 612.25}};
  std::vector<std::unique_ptr<bench>> benches;
  for (int i = 0; i < 3; i++) {
    benches.push_back(std::make_unique<bench>(("r" + std::to_string(i)).c_str(), clocks[i][0],
                                              SmallConfig(clocks[i][1], clocks[i][2], clocks[i][3])));
    // A miss, then (once it is back) a hit on the same sector.
    benches[i]->gens[0]->script({{7, 0x2040, MEM_ACC_GLOBAL_R, 32, true},
                                 {5000, 0x2040, MEM_ACC_GLOBAL_R, 32, true}});
  }
  sc_core::sc_start();
  for (int i = 0; i < 3; i++) {
    clock_domain core("core", clocks[i][0]), icnt("icnt", clocks[i][1]), l2("l2", clocks[i][2]),
        dram("dram", clocks[i][3]);
    const auto &recs = benches[i]->gens[0]->records();
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].replied, ExpectedReplyCycle(core, icnt, l2, dram, 7, true)) << "ratio " << i;
    EXPECT_EQ(recs[1].replied, ExpectedReplyCycle(core, icnt, l2, dram, 5000, false))
        << "ratio " << i;
    EXPECT_LT(recs[0].replied, 5000u);
  }
}

// ---- back-pressure --------------------------------------------------------------------------------

// A sender that offers `count` one-way messages, one per edge from cycle 1, and a receiver whose
// "queue" takes nothing before cycle `open_at` and then one message per cycle.
struct toy_sender : sc_core::sc_module, clocked {
  payload_pool pp;
  msg_out out;
  mem_req_pool *pool = mem_req_pool_create();
  mem_req *held = nullptr;
  int remaining;
  std::vector<uint64_t> sent_at;
  uint64_t cycle = 0;
  toy_sender(sc_core::sc_module_name n, domain_driver &d, int count)
      : sc_module(n), out("out", *this, 0, pp), remaining(count) {
    d.add(*this);
    wake_at(1);
  }
  ~toy_sender() override { mem_req_pool_destroy(pool); }
  void tick(uint64_t c) override {
    cycle = c;
    if (!held && remaining) held = mem_req_alloc(pool);
    if (held && out.send(held)) {
      sent_at.push_back(c);
      held = nullptr;
      remaining--;
    }
  }
  uint64_t next_tick() const override {
    if (held) return out.awaiting() ? never : cycle + 1;
    return remaining ? cycle + 1 : never;
  }
};

struct toy_receiver : sc_core::sc_module, clocked {
  msg_in in;
  uint64_t open_at;
  std::vector<uint64_t> taken_at;
  uint64_t cycle = 0;
  toy_receiver(sc_core::sc_module_name n, domain_driver &d, uint64_t open)
      : sc_module(n), in("in", *this, 0), open_at(open) {
    d.add(*this);
  }
  void tick(uint64_t c) override {
    cycle = c;
    if (c < open_at) return;
    if (mem_req *r = in.peek()) {
      taken_at.push_back(c);
      in.pop();
      mem_req_free(r);
    }
  }
  uint64_t next_tick() const override {
    if (in.empty()) return never;
    return std::max(cycle + 1, open_at);
  }
};

TEST(TlmMemBackPressure, ReceiverWithholdsEndReqWhileItsQueueIsFull) {
  ONE_SIMULATION_PER_PROCESS();
  domain_driver da("a_clock", clock_domain("a", 1000.0)), db("b_clock", clock_domain("b", 1000.0));
  toy_receiver rx("rx", db, 10);
  toy_sender tx("tx", da, 4);
  bind(tx.out, rx.in);
  std::ostringstream trace;
  rx.in.set_trace(&trace);
  sc_core::sc_start();
  // c1: A taken into the one-item inbox (TLM_COMPLETED). c2: B finds it full: END_REQ withheld.
  // c3: C refused (the link is busy). c10: the receiver takes A and admits B (END_REQ at 10 ns);
  // c11: B taken, C sent; c12: C taken, D sent; c13: D taken.
  EXPECT_EQ(tx.sent_at, (std::vector<uint64_t>{1, 2, 11, 12}));
  EXPECT_EQ(rx.taken_at, (std::vector<uint64_t>{10, 11, 12, 13}));
  EXPECT_GE(rx.in.counters().withheld, 1u);
  EXPECT_EQ(tx.out.counters().busy, 1u);
  EXPECT_NE(trace.str().find("2 ns rx.in BEGIN_REQ (END_REQ withheld)"), std::string::npos)
      << trace.str();
  EXPECT_NE(trace.str().find("10 ns rx.in END_REQ"), std::string::npos) << trace.str();
}

TEST(TlmMemBackPressure, FullPartitionQueuesBackUpIntoTheInterconnectAndTheClusters) {
  ONE_SIMULATION_PER_PROCESS();
  stats *st = stats_create();
  mem_system_config cfg = SmallConfig(1000.0, 1000.0, 500.0, 4, 1, 1);
  cfg.icnt.topology = ICNT_XBAR;
  cfg.icnt.in_buffer_limit = 4; // flits
  cfg.icnt.out_buffer_limit = 4;
  cfg.partition.queue_icnt_to_l2 = 2;
  cfg.partition.queue_l2_to_dram = 2;
  cfg.partition.queue_dram_to_l2 = 2;
  cfg.partition.queue_l2_to_icnt = 2;
  cfg.partition.l2 = "none"; // every request goes to the DRAM
  cfg.dram.sched_queue_size = 4;
  cfg.st = st;
  {
    bench b("bp", 1000.0, cfg);
    for (uint32_t c = 0; c < 4; c++) {
      std::vector<mem_access> list;
      for (uint64_t k = 0; k < 200; k++) // a new row every time: a slow, conflicting stream
        list.push_back({k, (k * 4 + c) << 16 | (k % 16) << 12, MEM_ACC_GLOBAL_R, 32, true});
      b.gens[c]->script(list);
    }
    sc_core::sc_start();
    for (auto &g : b.gens) {
      EXPECT_EQ(g->replies(), 200u);
      EXPECT_EQ(g->requests_alive(), 0u);
      EXPECT_GT(g->to_icnt.counters().busy, 0u) << "the cluster felt the back-pressure";
    }
    EXPECT_GT(b.mem->partition(0).from_icnt(0).counters().withheld, 0u);
    EXPECT_GT(b.mem->dram(0).from_mempart().counters().withheld, 0u);
    int found = 0;
    EXPECT_GT(stats_get(st, "gpu_stall_dramfull", &found), 0u);
    EXPECT_GT(stats_get(st, "icnt.refused", &found), 0u);
    EXPECT_TRUE(b.mem->idle());
  }
  stats_destroy(st);
}

// ---- CA and AT DRAM behind the same partition shell -------------------------------------------------

// n reads and writes (a quarter), one offered per cycle, random 32-byte sectors of 4 MB.
std::vector<mem_access> RandomTraffic(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::vector<mem_access> list;
  for (int k = 0; k < n; k++) {
    uint64_t addr = (uint64_t)(rng() % (1u << 22)) & ~31ull;
    uint8_t kind = (rng() % 4 == 0) ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    list.push_back({(uint64_t)k, addr, kind, 32, true});
  }
  return list;
}

TEST(TlmMemDram, AtAndCaControllersBehindTheSameShellCompleteEverything) {
  ONE_SIMULATION_PER_PROCESS();
  // System A: channels 0 and 2 cycle-accurate, 1 and 3 approximately timed; system B: all CA;
  // system C: all AT. Same traffic (4 clusters × 1500 random reads and writes).
  const char *models[3][4] = {{"ca", "at", "ca", "at"}, {"ca", "ca", "ca", "ca"},
                              {"at", "at", "at", "at"}};
  std::vector<std::unique_ptr<bench>> benches;
  std::vector<stats *> sinks;
  for (int s = 0; s < 3; s++) {
    mem_system_config cfg = SmallConfig(1132.0, 1132.0, 850.0, 4, 4, 2);
    cfg.icnt.topology = ICNT_XBAR;
    sinks.push_back(stats_create());
    cfg.st = sinks.back();
    for (const char *m : models[s]) cfg.dram_model.push_back(m);
    benches.push_back(std::make_unique<bench>(("sys" + std::to_string(s)).c_str(), 1132.0, cfg, 16));
    for (uint32_t c = 0; c < 4; c++) benches[s]->gens[c]->script(RandomTraffic(11 + c, 1500));
  }
  sc_core::sc_start();
  uint64_t last[3] = {0, 0, 0};
  for (int s = 0; s < 3; s++) {
    for (auto &g : benches[s]->gens) {
      EXPECT_EQ(g->replies(), 1500u) << "system " << s;
      EXPECT_EQ(g->requests_alive(), 0u);
      last[s] = std::max(last[s], g->last_reply_cycle());
    }
    EXPECT_TRUE(benches[s]->mem->idle());
    for (uint32_t ch = 0; ch < 4; ch++) {
      EXPECT_STREQ(dram_model_name(benches[s]->mem->dram(ch).model()), models[s][ch]);
      dram_stats ds;
      dram_get_stats(benches[s]->mem->dram(ch).model(), &ds);
      EXPECT_GT(ds.n_req, 0u) << "system " << s << " channel " << ch;
    }
  }
  // The fidelity changes the timing a little, not the outcome.
  EXPECT_NEAR((double)last[2] / (double)last[1], 1.0, 0.15);
  EXPECT_NEAR((double)last[0] / (double)last[1], 1.0, 0.15);
  benches.clear();
  for (stats *st : sinks) stats_destroy(st);
}

// ---- idle domains -------------------------------------------------------------------------------

TEST(TlmMemIdle, IdleDomainsDoNotWake) {
  ONE_SIMULATION_PER_PROCESS();
  bench b("idle", 1000.0, SmallConfig(1000.0, 800.0, 600.0));
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  EXPECT_EQ(b.core->activations(), 0u);
  EXPECT_EQ(b.mem->icnt_driver().activations(), 0u);
  EXPECT_EQ(b.mem->l2_driver().activations(), 0u);
  EXPECT_EQ(b.mem->dram_driver().activations(), 0u);
  // One read: each domain wakes only at the edges where its blocks have work.
  uint64_t k0 = b.core->current_cycle() + 5;
  b.gens[0]->script({{k0, 0x1000, MEM_ACC_GLOBAL_R, 32, true}});
  sc_core::sc_start();
  EXPECT_EQ(b.gens[0]->replies(), 1u);
  uint64_t dram_wakes = b.mem->dram_driver().activations();
  EXPECT_GT(dram_wakes, 0u);
  EXPECT_LE(dram_wakes, 4u);                          // arrival, ACT, RD, last beat
  EXPECT_LE(b.mem->l2_driver().activations(), 12u);   // the partition's stage moves only
  EXPECT_LE(b.mem->icnt_driver().activations(), 4u);
  // Idle again: nothing is scheduled anywhere (sc_start() returned), and more time costs nothing.
  uint64_t before = b.mem->l2_driver().activations() + b.mem->dram_driver().activations() +
                    b.mem->icnt_driver().activations() + b.core->activations();
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  uint64_t after = b.mem->l2_driver().activations() + b.mem->dram_driver().activations() +
                   b.mem->icnt_driver().activations() + b.core->activations();
  EXPECT_EQ(after, before);
}

// ---- determinism ----------------------------------------------------------------------------------

TEST(TlmMemDeterminism, IdenticalSystemsInOneSimulationProduceIdenticalStatistics) {
  ONE_SIMULATION_PER_PROCESS();
  // Two identical systems whose processes interleave differently (registration order differs,
  // their clocks coincide at every edge) must agree bit for bit.
  stats *sa = stats_create(), *sb = stats_create();
  mem_system_config cfg = SmallConfig(1000.0, 700.0, 900.0, 4, 4, 2);
  cfg.icnt.topology = ICNT_XBAR;
  cfg.st = sa;
  auto a = std::make_unique<bench>("a", 1000.0, cfg, 8);
  cfg.st = sb;
  auto b = std::make_unique<bench>("b", 1000.0, cfg, 8);
  for (uint32_t c = 0; c < 4; c++) a->gens[c]->script(RandomTraffic(100 + c, 800));
  for (uint32_t c = 4; c-- > 0;) b->gens[c]->script(RandomTraffic(100 + c, 800));
  sc_core::sc_start();
  for (uint32_t c = 0; c < 4; c++) {
    ASSERT_EQ(a->gens[c]->replies(), 800u);
    ASSERT_EQ(b->gens[c]->replies(), 800u);
  }
  for (uint32_t c = 0; c < 4; c++) {
    const auto &ra = a->gens[c]->records();
    const auto &rb = b->gens[c]->records();
    ASSERT_EQ(ra.size(), rb.size());
    for (size_t i = 0; i < ra.size(); i++) {
      ASSERT_EQ(ra[i].addr, rb[i].addr);
      ASSERT_EQ(ra[i].replied, rb[i].replied) << "cluster " << c << " request " << i;
    }
  }
  for (const char *n : {"L2_total_cache_accesses", "L2_total_cache_misses", "gpu_stall_dramfull",
                        "gpu_stall_icnt2sh", "icnt.latency_sum", "DRAM[0].n_act", "DRAM[3].n_rd",
                        "mem_partition[2].cycles", "mem_sub_partition[5].rop_queue.sum"}) {
    int fa = 0, fb = 0;
    EXPECT_EQ(stats_get(sa, n, &fa), stats_get(sb, n, &fb)) << n;
    EXPECT_TRUE(fa && fb) << n;
  }
  a.reset();
  b.reset();
  stats_destroy(sa);
  stats_destroy(sb);
}

// ---- crossbar contention ----------------------------------------------------------------------------

TEST(TlmMemContention, CrossbarSerialisesClustersOnOneSubPartitionAndSharesItFairly) {
  ONE_SIMULATION_PER_PROCESS();
  stats *st = stats_create();
  mem_system_config cfg = SmallConfig(1000.0, 1000.0, 1000.0, 4, 1, 1);
  cfg.icnt.topology = ICNT_XBAR;
  cfg.icnt.latency = 1;
  cfg.partition.l2_ideal = true; // no DRAM: the crossbar and the partition's door are the limit
  cfg.partition.rop_latency = 0;
  cfg.st = st;
  {
    bench b("xbar", 1000.0, cfg);
    // Every cluster sends one read per cycle to the only sub-partition, 300 each.
    for (uint32_t c = 0; c < 4; c++) {
      std::vector<mem_access> list;
      for (uint64_t k = 0; k < 300; k++) list.push_back({1, (k * 4 + c) * 32, MEM_ACC_GLOBAL_R, 32, true});
      b.gens[c]->script(list);
    }
    sc_core::sc_start();
    uint64_t first_done = UINT64_MAX, last_done = 0;
    for (auto &g : b.gens) {
      ASSERT_EQ(g->replies(), 300u);
      first_done = std::min(first_done, g->last_reply_cycle());
      last_done = std::max(last_done, g->last_reply_cycle());
    }
    // One output port takes one 1-flit packet per cycle: 1200 requests need ≥ 1200 cycles, and
    // iSLIP shares the port: every cluster finishes within a few cycles of the others.
    EXPECT_GE(last_done, 1200u);
    EXPECT_LE(last_done - first_done, 8u);
    int found = 0;
    EXPECT_EQ(stats_get(st, "mem_partition[0].requests", &found), 1200u);
  }
  stats_destroy(st);
}

}  // namespace
