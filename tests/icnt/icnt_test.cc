// Icnt* — the interconnect: flit counts, crossbar contention and iSLIP fairness, perfect and
// fixed-latency modes, mesh hop latency, back-pressure from full buffers, statistics.
//
// Latency conventions (icnt.h): a packet injected at cycle t into an idle crossbar is switched at
// t and complete at its destination at t + latency + flits - 1; on a mesh over H hops it is
// complete at t + (H + 1) × hop_latency + flits - 1.
#include <gtest/gtest.h>

#include <map>
#include <vector>

extern "C" {
#include "icnt.h"
#include "mem_req.h"
#include "stats.h"
}

namespace {

class Net {
 public:
  explicit Net(icnt_config cfg, bool auto_pop = true) : auto_pop_(auto_pop) {
    pool_ = mem_req_pool_create();
    cfg.ports = {this, &Net::OnArrived, &Net::OnInjectReady};
    simtvp_diag_clear(&diag_);
    status_ = icnt_create(&cfg, &n_, &diag_);
  }
  ~Net() {
    icnt_destroy(n_);
    mem_req_pool_destroy(pool_);
  }
  icnt *n() { return n_; }
  simtvp_status status() const { return status_; }
  const simtvp_diag &diag() const { return diag_; }

  mem_req *Make(uint32_t dst, uint32_t size, bool is_write, bool is_reply) {
    mem_req *r = mem_req_alloc(pool_);
    r->dst_node = (uint16_t)dst;
    r->size = size;
    r->is_write = is_write;
    r->is_reply = is_reply;
    return r;
  }
  // Injects a read request (8 bytes on the wire: one flit) unless told otherwise.
  bool Inject(uint32_t src, uint32_t dst, uint64_t now, uint32_t size = 32, bool is_write = false,
              bool is_reply = false) {
    mem_req *r = Make(dst, size, is_write, is_reply);
    r->owner_tag = src;
    if (!icnt_inject(n_, src, r, now)) {
      mem_req_free(r);
      return false;
    }
    return true;
  }
  void RunTo(uint64_t limit) {
    for (;;) {
      uint64_t t = icnt_next_event(n_);
      if (t == ICNT_NEVER || t > limit) break;
      icnt_advance(n_, t);
    }
    icnt_advance(n_, limit);
  }
  // Runs from event to event until nothing is left to do.
  void Run() {
    for (uint64_t t; (t = icnt_next_event(n_)) != ICNT_NEVER;) icnt_advance(n_, t);
  }

  struct Arrival {
    uint32_t node;
    uint64_t at;
    uint64_t src;
    uint64_t id;
  };
  const std::vector<Arrival> &arrivals() const { return arrivals_; }
  std::map<uint64_t, uint64_t> PerSource() const {
    std::map<uint64_t, uint64_t> m;
    for (const auto &a : arrivals_) m[a.src]++;
    return m;
  }
  const std::vector<uint32_t> &ready_nodes() const { return ready_; }
  size_t PopAll(uint32_t node, uint64_t now) {
    size_t k = 0;
    while (mem_req *r = icnt_pop(n_, node, now)) {
      arrivals_.push_back({node, now, r->owner_tag, r->id});
      mem_req_free(r);
      k++;
    }
    return k;
  }

 private:
  static void OnArrived(void *ctx, uint32_t node, uint64_t now) {
    auto *self = static_cast<Net *>(ctx);
    if (self->auto_pop_) self->PopAll(node, now);
  }
  static void OnInjectReady(void *ctx, uint32_t node, uint64_t) {
    static_cast<Net *>(ctx)->ready_.push_back(node);
  }
  icnt *n_ = nullptr;
  mem_req_pool *pool_ = nullptr;
  simtvp_diag diag_{};
  simtvp_status status_;
  bool auto_pop_;
  std::vector<Arrival> arrivals_;
  std::vector<uint32_t> ready_;
};

icnt_config Xbar(uint32_t shaders, uint32_t mems) {
  icnt_config c;
  icnt_config_default(&c);
  c.n_shader_nodes = shaders;
  c.n_mem_nodes = mems;
  return c;
}

// Keeps each source's injection buffer full of one-flit packets for `dst` for `cycles` cycles.
void Saturate(Net &net, const std::vector<uint32_t> &sources, uint32_t dst, uint64_t cycles) {
  for (uint64_t t = 0; t < cycles; t++) {
    for (uint32_t s : sources)
      while (net.Inject(s, dst, t)) {
      }
    icnt_advance(net.n(), t);
  }
}

}  // namespace

TEST(IcntFlits, ReadAndWriteSizes) {
  icnt_config c = Xbar(2, 2);  // 40-byte flits
  Net net(c);
  ASSERT_EQ(net.status(), SIMTVP_OK);
  mem_req *rd = net.Make(2, 128, false, false);     // read request: 8-byte header only
  mem_req *wr = net.Make(2, 128, true, false);      // write request: 8 + 128 = 136 bytes
  mem_req *rd_rep = net.Make(0, 128, false, true);  // read reply carries the data: 136
  mem_req *wr_ack = net.Make(0, 128, true, true);   // write acknowledgement: 8
  mem_req *sector = net.Make(2, 32, true, false);   // 8 + 32 = 40 bytes: exactly one flit
  EXPECT_EQ(icnt_flits(net.n(), rd), 1u);
  EXPECT_EQ(icnt_flits(net.n(), wr), 4u);  // ceil(136 / 40)
  EXPECT_EQ(icnt_flits(net.n(), rd_rep), 4u);
  EXPECT_EQ(icnt_flits(net.n(), wr_ack), 1u);
  EXPECT_EQ(icnt_flits(net.n(), sector), 1u);
  for (mem_req *r : {rd, wr, rd_rep, wr_ack, sector}) mem_req_free(r);
  c.flit_size = 32;
  Net net32(c);
  mem_req *wr2 = net32.Make(2, 128, true, false);
  EXPECT_EQ(icnt_flits(net32.n(), wr2), 5u);  // ceil(136 / 32)
  mem_req_free(wr2);
}

TEST(IcntXbar, UnloadedLatencyIsLatencyPlusSerialisation) {
  icnt_config c = Xbar(2, 2);
  c.latency = 3;
  Net net(c);
  ASSERT_TRUE(net.Inject(0, 2, 10));              // 1 flit: 10 + 3 + 1 - 1 = 13
  ASSERT_TRUE(net.Inject(1, 3, 10, 128, true));   // 4 flits: 10 + 3 + 4 - 1 = 16
  net.Run();
  ASSERT_EQ(net.arrivals().size(), 2u);
  EXPECT_EQ(net.arrivals()[0].at, 13u);
  EXPECT_EQ(net.arrivals()[1].at, 16u);
  icnt_stats s;
  icnt_get_stats(net.n(), &s);
  EXPECT_EQ(s.latency_max, 6u);
  EXPECT_DOUBLE_EQ(s.avg_latency, 4.5);
}

TEST(IcntXbar, TwoSourcesToOneDestinationHalveThroughput) {
  // One source alone: the output takes a flit every cycle.
  Net alone(Xbar(2, 2));
  Saturate(alone, {0}, 2, 1000);
  uint64_t solo = alone.PerSource()[0];
  EXPECT_GE(solo, 998u);
  // Two sources to the same output share it: half each.
  Net pair(Xbar(2, 2));
  Saturate(pair, {0, 1}, 2, 1000);
  auto per = pair.PerSource();
  EXPECT_NEAR((double)per[0], solo / 2.0, 2.0);
  EXPECT_NEAR((double)per[1], solo / 2.0, 2.0);
  EXPECT_NEAR((double)(per[0] + per[1]), (double)solo, 2.0);
}

TEST(IcntXbar, IslipIsFairAmongInputs) {
  Net net(Xbar(3, 1));
  Saturate(net, {0, 1, 2}, 3, 3000);
  auto per = net.PerSource();
  // Three inputs to one output: the grant pointer moves past each accepted input, so they take
  // turns: 1000 each (to within the pipeline's first and last cycles).
  for (uint32_t s = 0; s < 3; s++) EXPECT_NEAR((double)per[s], 1000.0, 2.0) << s;
}

TEST(IcntXbar, IslipDesynchronisesOutputsUnderUniformLoad) {
  // 4 inputs each with packets for all 4 outputs: after the pointers desynchronise, iSLIP matches
  // every input to a different output each cycle: 4 flits per cycle.
  icnt_config c = Xbar(4, 0);
  c.in_buffer_limit = 64;
  Net net(c);
  uint64_t t = 0;
  for (; t < 2000; t++) {
    for (uint32_t s = 0; s < 4; s++)
      for (uint32_t k = 0; k < 4; k++) net.Inject(s, (s + k + (uint32_t)t) % 4, t);
    icnt_advance(net.n(), t);
  }
  icnt_stats st;
  icnt_get_stats(net.n(), &st);
  EXPECT_GT((double)st.flits_ejected / 2000.0, 3.95);
}

TEST(IcntXbar, FullInputBufferRefusesAndSignalsRoom) {
  icnt_config c = Xbar(2, 2);
  c.in_buffer_limit = 4;
  Net net(c);
  // 4 one-flit packets fill node 0's input; the 5th is refused (back-pressure).
  for (int i = 0; i < 4; i++) EXPECT_TRUE(net.Inject(0, 2, 0));
  mem_req *probe = net.Make(2, 32, false, false);
  EXPECT_FALSE(icnt_can_inject(net.n(), 0, probe));
  mem_req_free(probe);
  EXPECT_FALSE(net.Inject(0, 2, 0));
  EXPECT_TRUE(net.Inject(1, 2, 0));  // another input is unaffected
  icnt_advance(net.n(), 0);          // one packet leaves node 0: room again
  ASSERT_EQ(net.ready_nodes().size(), 1u);
  EXPECT_EQ(net.ready_nodes()[0], 0u);
  EXPECT_TRUE(net.Inject(0, 2, 1));
  net.Run();
  EXPECT_EQ(net.arrivals().size(), 6u);
  icnt_stats s;
  icnt_get_stats(net.n(), &s);
  EXPECT_EQ(s.refused, 1u);
}

TEST(IcntXbar, FullEjectionBufferBacksUpIntoTheNetwork) {
  icnt_config c = Xbar(2, 2);
  c.out_buffer_limit = 2;
  Net net(c, /*auto_pop=*/false);
  for (int i = 0; i < 5; i++) ASSERT_TRUE(net.Inject(0, 2, 0));
  net.RunTo(50);
  // Two packets fill node 2's ejection buffer; the rest wait in node 0's queue and nothing more
  // can happen until the destination pops.
  EXPECT_EQ(icnt_next_event(net.n()), ICNT_NEVER);
  net.RunTo(100);
  EXPECT_EQ(net.PopAll(2, 100), 2u);
  EXPECT_EQ(icnt_next_event(net.n()), 101u);  // switched again right after the pop
  net.RunTo(200);
  EXPECT_EQ(net.PopAll(2, 200), 2u);
  net.RunTo(300);
  EXPECT_EQ(net.PopAll(2, 300), 1u);
}

TEST(IcntXbar, SubnetsKeepRepliesApartFromRequests) {
  // Node 2 is swamped with requests from nodes 0 and 1; its replies to node 0 travel on the
  // reply subnet and see an idle network: latency 1 each.
  icnt_config c = Xbar(2, 2);
  Net net(c);
  for (uint64_t t = 0; t < 50; t++) {
    net.Inject(0, 2, t);
    net.Inject(1, 2, t);
    if (t == 20) {
      ASSERT_TRUE(net.Inject(2, 0, t, 32, false, /*is_reply=*/true));
    }
    icnt_advance(net.n(), t);
  }
  bool seen = false;
  for (const auto &a : net.arrivals()) {
    if (a.node == 0) {
      EXPECT_EQ(a.at, 21u);  // read reply: 8 + 32 = 40 bytes = 1 flit: 20 + 1 + 1 - 1
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

TEST(IcntModes, PerfectHasZeroLatencyAndInfiniteBandwidth) {
  icnt_config c = Xbar(4, 4);
  c.topology = ICNT_PERFECT;
  c.in_buffer_limit = 1;
  Net net(c, false);
  for (int i = 0; i < 100; i++) ASSERT_TRUE(net.Inject(i % 4, 4 + i % 4, 7, 128, true));
  for (uint32_t d = 4; d < 8; d++) EXPECT_EQ(net.PopAll(d, 7), 25u);  // in the same cycle
  EXPECT_EQ(icnt_next_event(net.n()), 7u);  // only the arrival bookkeeping is left
  net.Run();
  icnt_stats s;
  icnt_get_stats(net.n(), &s);
  EXPECT_EQ(s.latency_max, 0u);
  EXPECT_EQ(s.packets_ejected, 100u);
}

TEST(IcntModes, PoppingInsideTheArrivalCallbackIsSafe) {
  // The destination pops everything it has when told of one arrival, including packets whose own
  // arrival is announced later in the same cycle: each must be counted once and recycled once.
  for (icnt_topology topo : {ICNT_PERFECT, ICNT_FIXED, ICNT_XBAR}) {
    icnt_config c = Xbar(4, 4);
    c.topology = topo;
    Net net(c);
    for (uint64_t t = 0; t < 200; t++) {
      for (uint32_t s = 0; s < 4; s++) net.Inject(s, 4 + (s + t) % 2, t, 128, (t & 1) != 0);
      icnt_advance(net.n(), t);
    }
    net.Run();
    icnt_stats st;
    icnt_get_stats(net.n(), &st);
    EXPECT_EQ(st.packets_ejected, st.packets_injected) << topo;
    EXPECT_EQ(net.arrivals().size(), st.packets_injected) << topo;
  }
}

TEST(IcntModes, FixedLatencyAddsPerHopLatency) {
  icnt_config c = Xbar(8, 8);  // 16 nodes: 4 × 4 layout
  c.topology = ICNT_FIXED;
  c.latency = 5;
  c.hop_latency = 2;
  Net net(c);
  ASSERT_TRUE(net.Inject(0, 15, 100));  // 3 + 3 hops: 100 + 5 + 2 × 6 = 117
  ASSERT_TRUE(net.Inject(0, 1, 100));   // 1 hop: 107
  ASSERT_TRUE(net.Inject(5, 5, 100));   // 0 hops: 105
  net.Run();
  std::map<uint32_t, uint64_t> at;
  for (const auto &a : net.arrivals()) at[a.node] = a.at;
  EXPECT_EQ(at[15], 117u);
  EXPECT_EQ(at[1], 107u);
  EXPECT_EQ(at[5], 105u);
}

namespace {
icnt_config Mesh(uint32_t nodes, uint32_t hop) {
  icnt_config c = Xbar(nodes / 2, nodes - nodes / 2);
  c.topology = ICNT_MESH;
  c.hop_latency = hop;
  c.n_vcs = 2;
  c.vc_buffer_flits = 8;
  c.in_buffer_limit = 16;
  return c;
}
}  // namespace

TEST(IcntMesh, HopLatency) {
  Net net(Mesh(16, 2));  // 4 × 4 routers, node k at (k mod 4, k div 4)
  ASSERT_EQ(net.status(), SIMTVP_OK) << net.diag().message;
  ASSERT_TRUE(net.Inject(0, 15, 0));  // H = 6: (6 + 1) × 2 + 1 - 1 = 14
  ASSERT_TRUE(net.Inject(1, 3, 0));   // H = 2: 3 × 2 = 6
  ASSERT_TRUE(net.Inject(6, 6, 0));   // H = 0: 2
  ASSERT_TRUE(net.Inject(4, 12, 0, 128, true));  // H = 2, 4 flits: 6 + 3 = 9
  net.Run();
  std::map<uint32_t, uint64_t> at;
  for (const auto &a : net.arrivals()) at[a.node] = a.at;
  EXPECT_EQ(at[15], 14u);
  EXPECT_EQ(at[3], 6u);
  EXPECT_EQ(at[6], 2u);
  EXPECT_EQ(at[12], 9u);
}

TEST(IcntMesh, ContentionOnASharedLinkSerialisesPackets) {
  Net net(Mesh(16, 1));
  // 0 -> 3 and 1 -> 3 share the links 1->2->3; 4-flit packets: the second waits for the first.
  ASSERT_TRUE(net.Inject(1, 3, 0, 128, true));  // alone: H = 2: 3 + 3 = 6
  ASSERT_TRUE(net.Inject(0, 3, 0, 128, true));  // reaches router 1 at 1, link busy until 4
  net.Run();
  ASSERT_EQ(net.arrivals().size(), 2u);
  EXPECT_EQ(net.arrivals()[0].at, 6u);
  // First: router 1 east at 0 (busy to 4), router 2 east at 1 (to 5), router 3 local at 2 (to 6):
  // complete 2 + 1 + 4 - 1 = 6. Second: router 0 east at 0, at router 1 from 1 but its east
  // output is busy until 4: granted 4; router 2 at 5 (east free at 5); router 3 at 6 (local free
  // at 6): complete 6 + 1 + 4 - 1 = 10.
  EXPECT_EQ(net.arrivals()[1].at, 10u);
}

TEST(IcntMesh, FullVirtualChannelsBackPressureTheSource) {
  icnt_config c = Mesh(4, 1);  // 2 × 2
  c.vc_buffer_flits = 4;
  c.in_buffer_limit = 8;
  c.out_buffer_limit = 4;
  Net net(c, false);
  // Node 0 sends 4-flit packets to node 3 which never pops: its ejection buffer (4 flits) takes
  // one packet, then each VC on the path holds one packet, then node 0's injection buffer (8
  // flits) fills and refuses.
  int accepted = 0;
  for (uint64_t t = 0; t < 200; t++) {
    if (net.Inject(0, 3, t, 128, true)) accepted++;
    icnt_advance(net.n(), t);
  }
  // 1 in ejection + 2 VCs × 1 packet at router 3's west... path 0 -> 1 -> 3: router 1 (2 VCs),
  // router 3 (2 VCs), ejection 1, injection 2: 7 packets.
  EXPECT_EQ(accepted, 7);
  EXPECT_EQ(icnt_next_event(net.n()), ICNT_NEVER);
  icnt_stats s;
  icnt_get_stats(net.n(), &s);
  EXPECT_GT(s.refused, 0u);
  // Popping drains everything.
  for (uint64_t t = 200; t < 400; t++) {
    net.PopAll(3, t);
    net.RunTo(t);
  }
  EXPECT_EQ(net.arrivals().size(), 7u);
}

TEST(IcntMesh, SharedNetworkWithRequestAndReplyClassesDeliversEverything) {
  icnt_config c = Mesh(16, 1);
  c.subnets = 1;
  c.n_vcs = 4;
  Net net(c);
  uint64_t lcg = 7;
  uint32_t sent = 0;
  for (uint64_t t = 0; t < 2000; t++) {
    for (uint32_t s = 0; s < 16; s++) {
      lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t dst = (uint32_t)(lcg >> 33) % 16;
      bool reply = (lcg >> 20) & 1;
      if (net.Inject(s, dst, t, 128, reply, reply)) sent++;
    }
    icnt_advance(net.n(), t);
  }
  net.Run();
  EXPECT_EQ(net.arrivals().size(), sent);
  EXPECT_GT(sent, 1000u);
}

TEST(IcntConfig, BadOptionsAreNamed) {
  icnt_config c = Xbar(2, 2);
  c.subnets = 3;
  Net a(c);
  EXPECT_EQ(a.status(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(a.diag().option, "-icnt_subnets");
  c = Xbar(2, 2);
  c.flit_size = 0;
  Net b(c);
  EXPECT_STREQ(b.diag().option, "-icnt_flit_size");
  c = Mesh(4, 1);
  c.subnets = 1;
  c.n_vcs = 1;
  Net d(c);
  EXPECT_EQ(d.status(), SIMTVP_ERR_CONFIG);
  c = Xbar(2, 2);
  c.arbiter = (icnt_arbiter)7;
  Net e(c);
  EXPECT_STREQ(e.diag().option, "-icnt_arbiter_algo");
}

TEST(IcntStats, CountersHistogramAndLinks) {
  stats *s = stats_create();
  icnt_config c = Xbar(2, 2);
  c.stats = s;
  c.per_link_stats = true;
  c.hist_bucket_width = 1;
  c.hist_buckets = 16;
  {
    Net net(c);
    Saturate(net, {0, 1}, 2, 100);
    ASSERT_TRUE(net.Inject(2, 3, 100, 128, true));  // node 2's own input is idle
    net.Run();
    int found = 0;
    uint64_t ejected = stats_get(s, "icnt.packets_ejected", &found);
    EXPECT_TRUE(found);
    EXPECT_EQ(ejected, net.arrivals().size());
    EXPECT_EQ(stats_get(s, "icnt.flits_ejected", &found), ejected - 1 + 4);
    EXPECT_GT(stats_get(s, "icnt.latency_max", &found), 1u);
    double rate = stats_get_ratio(s, "icnt.accepted_rate", &found);
    EXPECT_TRUE(found);
    EXPECT_GT(rate, 0.9);
    stats_histogram_view v;
    stats_histogram *h = stats_histogram_find(s, "icnt.packet_latency");
    ASSERT_NE(h, nullptr);
    stats_histogram_read(h, &v);
    EXPECT_EQ(v.count, ejected);
    EXPECT_EQ(icnt_link_flits(net.n(), 0, 3), 4u);  // the one write to node 3
    EXPECT_EQ(icnt_link_flits(net.n(), 0, 2), ejected - 1);
    EXPECT_EQ(stats_get(s, "icnt.req.link[3].flits", &found), 4u);  // also in the sink
    EXPECT_TRUE(found);
  }
  stats_destroy(s);
}

// ---- the approximately-timed interconnect (-icnt_model at, models/icnt/icnt_at.c) --------------

namespace {
icnt_config Timed(icnt_config c) {
  c.timed = true;
  return c;
}
}  // namespace

TEST(IcntAt, UnloadedCrossbarLatencyIsTheCaCrossbars) {
  icnt_config c = Xbar(2, 2);
  c.latency = 3;
  Net net(Timed(c));
  ASSERT_EQ(net.status(), SIMTVP_OK) << net.diag().message;
  EXPECT_TRUE(icnt_is_timed(net.n()));
  ASSERT_TRUE(net.Inject(0, 2, 10));             // 10 + 3 + 1 - 1 = 13, as IcntXbar.Unloaded...
  ASSERT_TRUE(net.Inject(1, 3, 10, 128, true));  // 10 + 3 + 4 - 1 = 16
  net.Run();
  ASSERT_EQ(net.arrivals().size(), 2u);
  EXPECT_EQ(net.arrivals()[0].at, 13u);
  EXPECT_EQ(net.arrivals()[1].at, 16u);
}

TEST(IcntAt, UnloadedMeshLatencyIsTheCaMeshs) {
  Net net(Timed(Mesh(16, 2)));
  ASSERT_TRUE(net.Inject(0, 15, 0));             // (6 + 1) × 2 + 1 - 1 = 14
  ASSERT_TRUE(net.Inject(4, 12, 0, 128, true));  // 3 × 2 + 4 - 1 = 9
  net.Run();
  std::map<uint32_t, uint64_t> at;
  for (const auto &a : net.arrivals()) at[a.node] = a.at;
  EXPECT_EQ(at[15], 14u);
  EXPECT_EQ(at[12], 9u);
}

TEST(IcntAt, TwoSourcesToOneDestinationShareItsPort) {
  // Four-flit writes from nodes 0 and 1 to node 2, all at cycle 0: the output streams one flit
  // per cycle, so they complete 4 cycles apart: 0 + 1 + 4 - 1 = 4, then 8.
  Net net(Timed(Xbar(2, 2)));
  ASSERT_TRUE(net.Inject(0, 2, 0, 128, true));
  ASSERT_TRUE(net.Inject(1, 2, 0, 128, true));
  net.Run();
  ASSERT_EQ(net.arrivals().size(), 2u);
  EXPECT_EQ(net.arrivals()[0].at, 4u);
  EXPECT_EQ(net.arrivals()[1].at, 8u);
}

TEST(IcntAt, FullEjectionBufferRefusesInjectionTowardIt) {
  // Two one-flit packets to node 2 at cycle 0 arrive by cycle 10 and nobody pops them: the
  // ejection buffer (2 flits) is full, so a third is refused then — not at cycle 0, while they are
  // still on their way (they sit in the network's buffers, not in the ejection buffer).
  icnt_config c = Xbar(2, 2);
  c.out_buffer_limit = 2;
  Net net(Timed(c), /*auto_pop=*/false);
  ASSERT_TRUE(net.Inject(0, 2, 0));
  ASSERT_TRUE(net.Inject(1, 2, 0));
  EXPECT_FALSE(net.Inject(0, 2, 10)); // node 2 holds two flits nobody popped: back-pressure
  EXPECT_TRUE(net.Inject(0, 3, 10));  // another destination is not affected
  net.RunTo(10);
  EXPECT_EQ(net.PopAll(2, 10), 2u);
  EXPECT_TRUE(net.Inject(0, 2, 10));
}

TEST(IcntAt, FullInjectionBufferRefusesTheSource) {
  // -icnt_in_buffer_limit 8: node 0's port streams one flit per cycle. Two 4-flit packets (128-byte
  // writes) at cycle 0 book it for cycles 0-7: 8 flits wait there, so a third is refused at cycle
  // 0 and at cycle 3 (5 left), and taken at cycle 4 (4 left: 4 + 4 fit).
  icnt_config c = Xbar(2, 2);
  c.in_buffer_limit = 8;
  Net net(Timed(c));
  ASSERT_TRUE(net.Inject(0, 2, 0, 128, true));
  ASSERT_TRUE(net.Inject(0, 3, 0, 128, true));
  EXPECT_FALSE(net.Inject(0, 2, 0, 128, true));
  EXPECT_FALSE(net.Inject(0, 2, 3, 128, true));
  EXPECT_TRUE(net.Inject(1, 2, 3, 128, true)); // another source is not affected
  EXPECT_TRUE(net.Inject(0, 2, 4, 128, true));
}

TEST(IcntAt, ALaterTimedPacketTakesCyclesAnEarlierTimedOneLeftFree) {
  // Packets are timed out of order (a reply hundreds of cycles ahead): node 0 → node 2 at cycle
  // 100 books node 2's port for cycles 100-103; a packet from node 1 → node 2 timed afterwards
  // at cycle 20 still gets the port at 20 (latency 3: done at 26), not after 103; one at 98 does
  // not fit before 100 and goes after the first (grant 104).
  icnt_config c = Xbar(2, 2);
  c.latency = 3;
  Net net(Timed(c));
  mem_req *r = net.Make(2, 128, true, false); // 4 flits
  EXPECT_EQ(icnt_traverse(net.n(), 0, r, 100), 100u + 3 + 4 - 1);
  EXPECT_EQ(icnt_traverse(net.n(), 1, r, 20), 20u + 3 + 4 - 1);
  EXPECT_EQ(icnt_traverse(net.n(), 1, r, 98), 104u + 3 + 4 - 1);
  mem_req_free(r);
}

TEST(IcntAt, TraverseTimesAPacketWithoutARecordAndCountsIt) {
  icnt_config c = Xbar(2, 2);
  c.latency = 3;
  stats *st = stats_create();
  c.stats = st;
  Net net(Timed(c));
  mem_req *r = net.Make(2, 128, true, false); // 4 flits
  EXPECT_EQ(icnt_traverse(net.n(), 0, r, 20), 20u + 3 + 4 - 1);
  EXPECT_EQ(icnt_traverse(net.n(), 1, r, 20), 20u + 4 + 3 + 4 - 1); // behind the first at node 2
  mem_req_free(r);
  int found = 0;
  EXPECT_EQ(stats_get(st, "icnt.packets_ejected", &found), 2u);
  EXPECT_EQ(stats_get(st, "icnt.flits_injected", &found), 8u);
  EXPECT_EQ(icnt_next_event(net.n()), ICNT_NEVER); // nothing left inside
  stats_destroy(st);
}
