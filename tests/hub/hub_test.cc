// The hub (models/hub/hub.h): the GPU's path to system memory. Timing tests show their hand
// computation; the model's rule: issue = max(arrival + translation, link free) + ser,
// ser = ceil(size × 1000 / bytes_per_kcycle); reply = issue + system delay + latency.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

extern "C" {
#include "hub.h"
#include "stats.h"
}

namespace {

struct Issued {
  uint64_t id, bus, at;
};
struct Replied {
  uint32_t input;
  uint64_t id, at;
};

class Hub {
 public:
  explicit Hub(uint32_t latency = 100, uint64_t bytes_per_kcycle = 8000, uint32_t max_outstanding = 64,
               uint32_t inputs = 2) {
    pool_ = mem_req_pool_create();
    st_ = stats_create();
    hub_config c{};
    c.name = "hub";
    c.n_inputs = inputs;
    c.latency = latency;
    c.bytes_per_kcycle = bytes_per_kcycle;
    c.max_outstanding = max_outstanding;
    c.stats = st_;
    c.ports = {this, &Hub::translate, &Hub::issue, &Hub::reply};
    simtvp_diag d;
    simtvp_diag_clear(&d);
    EXPECT_EQ(hub_create(&c, &h_, &d), SIMTVP_OK) << d.message;
  }
  ~Hub() {
    hub_destroy(h_);
    for (mem_req *r : done_reqs_) mem_req_free(r);
    mem_req_pool_destroy(pool_);
    stats_destroy(st_);
  }
  mem_req *req(uint64_t addr, uint32_t size, bool write = false) {
    mem_req *r = mem_req_alloc(pool_);
    r->addr = addr;
    r->size = size;
    r->is_write = write;
    r->kind = write ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    r->aperture = MEM_APERTURE_SYSMEM;
    return r;
  }
  // Runs every event up to and including cycle `until`, as the shell does (tick at next_event).
  void run(uint64_t until) {
    for (;;) {
      uint64_t t = hub_next_event(h_);
      if (t == HUB_NEVER || t > until) break;
      hub_advance(h_, t);
    }
  }
  static bool translate(void *ctx, const mem_req *r, uint64_t, uint64_t *bus, uint64_t *cycles) {
    auto *s = static_cast<Hub *>(ctx);
    *bus = r->addr + 0x100000000ull;
    *cycles = s->translate_cycles;
    return !s->translate_fails;
  }
  static uint64_t issue(void *ctx, const mem_req *r, uint64_t bus, uint64_t now) {
    auto *s = static_cast<Hub *>(ctx);
    s->issued.push_back({r->id, bus, now});
    return s->system_delay;
  }
  static bool reply(void *ctx, uint32_t input, mem_req *r, uint64_t now) {
    auto *s = static_cast<Hub *>(ctx);
    if (s->refuse) return false;
    s->replied.push_back({input, r->id, now});
    s->done_reqs_.push_back(r);
    return true;
  }
  hub *h_ = nullptr;
  stats *st_ = nullptr;
  std::vector<Issued> issued;
  std::vector<Replied> replied;
  uint64_t system_delay = 20, translate_cycles = 0;
  bool translate_fails = false, refuse = false;

 private:
  mem_req_pool *pool_ = nullptr;
  std::vector<mem_req *> done_reqs_;
};

TEST(Hub, ReadCostsSerialisationSystemDelayAndLatency) {
  Hub h;  // latency 100, 8 bytes per cycle, system answers in 20 cycles
  mem_req *r = h.req(0x7000, 32);
  ASSERT_TRUE(hub_push(h.h_, 1, r, 10));
  // issue = 10 + ceil(32 / 8) = 14; reply = 14 + 20 + 100 = 134
  EXPECT_EQ(hub_next_event(h.h_), 14u);
  h.run(1000);
  ASSERT_EQ(h.issued.size(), 1u);
  EXPECT_EQ(h.issued[0].at, 14u);
  EXPECT_EQ(h.issued[0].bus, 0x100007000ull);  // the translation's bus address
  ASSERT_EQ(h.replied.size(), 1u);
  EXPECT_EQ(h.replied[0].at, 134u);
  EXPECT_EQ(h.replied[0].input, 1u);  // back on the input it came by
  hub_stats s;
  hub_get_stats(h.h_, &s);
  EXPECT_EQ(s.requests, 1u);
  EXPECT_EQ(s.reads, 1u);
  EXPECT_EQ(s.bytes, 32u);
  EXPECT_EQ(s.latency_cycles, 124u);  // 134 - 10
  EXPECT_EQ(s.link_busy_cycles, 4u);
  EXPECT_EQ(hub_outstanding(h.h_), 0u);
  EXPECT_EQ(hub_next_event(h.h_), HUB_NEVER);
}

TEST(Hub, RequestsShareTheLinkInArrivalOrder) {
  Hub h(50, 8000);
  h.system_delay = 0;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 128, true), 0));
  ASSERT_TRUE(hub_push(h.h_, 1, h.req(0x2000, 128, true), 0));
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x3000, 32), 40));
  h.run(1000);
  // 128 bytes at 8 per cycle occupy the link 16 cycles: issues at 16 and 32; the read arrives at
  // 40 with the link free: issue 44. Replies 50 cycles after each issue.
  ASSERT_EQ(h.issued.size(), 3u);
  EXPECT_EQ(h.issued[0].at, 16u);
  EXPECT_EQ(h.issued[1].at, 32u);
  EXPECT_EQ(h.issued[2].at, 44u);
  ASSERT_EQ(h.replied.size(), 3u);
  EXPECT_EQ(h.replied[0].at, 66u);
  EXPECT_EQ(h.replied[1].at, 82u);
  EXPECT_EQ(h.replied[2].at, 94u);
  hub_stats s;
  hub_get_stats(h.h_, &s);
  EXPECT_EQ(s.writes, 2u);
  EXPECT_EQ(s.link_busy_cycles, 36u);
}

TEST(Hub, FractionalBandwidthRoundsEachRequestUp) {
  Hub h(0, 8791);  // 12 GB/s at a 1365 MHz clock: 8.791 bytes per cycle
  h.system_delay = 0;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0, 32), 0));
  h.run(100);
  // ceil(32 × 1000 / 8791) = ceil(3.64) = 4
  ASSERT_EQ(h.issued.size(), 1u);
  EXPECT_EQ(h.issued[0].at, 4u);
}

TEST(Hub, TranslationTimeComesBeforeTheLink) {
  Hub h;
  h.translate_cycles = 30;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 32), 0));
  h.run(1000);
  // issue = 0 + 30 + 4 = 34; reply = 34 + 20 + 100 = 154
  ASSERT_EQ(h.issued.size(), 1u);
  EXPECT_EQ(h.issued[0].at, 34u);
  EXPECT_EQ(h.replied.at(0).at, 154u);
  hub_stats s;
  hub_get_stats(h.h_, &s);
  EXPECT_EQ(s.translation_cycles, 30u);
}

TEST(Hub, UntranslatableRequestIsAnsweredWithoutABusTransaction) {
  Hub h;
  h.translate_fails = true;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 32), 5));
  h.run(1000);
  EXPECT_TRUE(h.issued.empty());
  ASSERT_EQ(h.replied.size(), 1u);
  EXPECT_EQ(h.replied[0].at, 105u);  // 5 + the link latency, nothing carried
  hub_stats s;
  hub_get_stats(h.h_, &s);
  EXPECT_EQ(s.translation_faults, 1u);
  EXPECT_EQ(s.bytes, 0u);
}

TEST(Hub, RefusesBeyondMaxOutstandingUntilAReplyLeaves) {
  Hub h(10, 1000000, 2);  // 1000 bytes per cycle: one cycle per request
  h.system_delay = 0;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 32), 0));
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x2000, 32), 0));
  EXPECT_FALSE(hub_can_accept(h.h_));
  mem_req *third = h.req(0x3000, 32);
  EXPECT_FALSE(hub_push(h.h_, 0, third, 0));
  h.run(11);  // the first: issue 1, reply 11
  ASSERT_EQ(h.replied.size(), 1u);
  EXPECT_TRUE(hub_can_accept(h.h_));
  EXPECT_TRUE(hub_push(h.h_, 0, third, 11));
  h.run(1000);
  EXPECT_EQ(h.replied.size(), 3u);
  hub_stats s;
  hub_get_stats(h.h_, &s);
  EXPECT_EQ(s.refused, 1u);
}

TEST(Hub, RefusedReplyWaitsForTheReadyNote) {
  Hub h;
  h.refuse = true;
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 32), 0));
  h.run(1000);  // due at 124, refused
  EXPECT_TRUE(h.replied.empty());
  EXPECT_EQ(hub_next_event(h.h_), HUB_NEVER);  // nothing to do until the port has room
  EXPECT_EQ(hub_outstanding(h.h_), 1u);
  h.refuse = false;
  hub_reply_ready(h.h_, 0, 200);
  EXPECT_EQ(hub_next_event(h.h_), 200u);
  hub_advance(h.h_, 200);
  ASSERT_EQ(h.replied.size(), 1u);
  EXPECT_EQ(h.replied[0].at, 200u);
}

TEST(Hub, StatisticsAppearWithTheFirstRequest) {
  Hub h;
  int found = 1;
  stats_get(h.st_, "hub.requests", &found);
  EXPECT_EQ(found, 0);  // a GPU that never reaches system memory reports nothing
  ASSERT_TRUE(hub_push(h.h_, 0, h.req(0x1000, 64), 0));
  h.run(1000);
  EXPECT_EQ(stats_get(h.st_, "hub.requests", &found), 1u);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(stats_get(h.st_, "hub.bytes", &found), 64u);
  EXPECT_DOUBLE_EQ(stats_get_ratio(h.st_, "hub.avg_latency", &found), 128.0);  // 8 + 20 + 100
}

TEST(Hub, ZeroBandwidthIsAConfigurationErrorNamingTheOption) {
  hub_config c{};
  c.n_inputs = 1;
  c.max_outstanding = 4;
  c.ports.reply = [](void *, uint32_t, mem_req *, uint64_t) { return true; };
  hub *h = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(hub_create(&c, &h, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-host_bus_bandwidth_gbs");
  c.bytes_per_kcycle = 1000;
  c.max_outstanding = 0;
  EXPECT_EQ(hub_create(&c, &h, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-hub_max_outstanding");
  EXPECT_EQ(h, nullptr);
}

}  // namespace
