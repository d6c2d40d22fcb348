// icnt_bench — uniform random request/reply traffic on the TITAN V-sized network (40 clusters,
// 48 memory sub-partitions): accepted rate, latency and host time per topology. Not a test; its
// output is quoted in docs/icnt.md.   build-<you>/bin/icnt_bench [cycles] [injection-rate]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "icnt.h"
#include "mem_req.h"
}

namespace {

struct Ctx {
  icnt *n;
  uint64_t popped = 0;
};

void Arrived(void *ctx, uint32_t node, uint64_t now) {
  auto *c = static_cast<Ctx *>(ctx);
  while (mem_req *r = icnt_pop(c->n, node, now)) {
    c->popped++;
    mem_req_free(r);
  }
}

}  // namespace

int main(int argc, char **argv) {
  uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 10) : 20000;
  double rate = argc > 2 ? atof(argv[2]) : 0.1; /* packets per cluster per cycle */
  const struct {
    const char *name;
    icnt_topology topo;
  } topos[] = {{"perfect", ICNT_PERFECT}, {"fixed", ICNT_FIXED}, {"xbar", ICNT_XBAR},
               {"mesh", ICNT_MESH}};
  printf("%-8s %10s %10s %12s %10s %10s\n", "topology", "packets", "avg lat", "max lat",
         "accepted", "host ms");
  for (const auto &t : topos) {
    icnt_config cfg;
    icnt_config_default(&cfg);
    cfg.topology = t.topo;
    cfg.latency = t.topo == ICNT_FIXED ? 4 : 1;
    cfg.hop_latency = t.topo == ICNT_FIXED ? 1 : 2;
    cfg.vc_buffer_flits = 8;
    cfg.in_buffer_limit = t.topo == ICNT_MESH ? 16 : cfg.in_buffer_limit;
    Ctx ctx;
    cfg.ports = {&ctx, Arrived, nullptr};
    simtvp_diag d;
    if (icnt_create(&cfg, &ctx.n, &d) != SIMTVP_OK) {
      fprintf(stderr, "%s\n", d.message);
      return 1;
    }
    mem_req_pool *pool = mem_req_pool_create();
    uint64_t lcg = 1;
    auto t0 = std::chrono::steady_clock::now();
    const uint32_t S = cfg.n_shader_nodes, M = cfg.n_mem_nodes;
    for (uint64_t c = 0; c < cycles; c++) {
      for (uint32_t s = 0; s < S; s++) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        if ((double)(lcg >> 11) / (double)(1ull << 53) >= rate) continue;
        mem_req *r = mem_req_alloc(pool);
        r->dst_node = (uint16_t)(S + (lcg >> 20) % M);
        r->size = 128;
        r->is_write = ((lcg >> 40) & 3) == 0; /* a quarter writes (5 flits), else 1-flit reads */
        if (!icnt_inject(ctx.n, s, r, c)) mem_req_free(r);
      }
      uint64_t e = icnt_next_event(ctx.n);
      if (e <= c) icnt_advance(ctx.n, c);
    }
    for (uint64_t e; (e = icnt_next_event(ctx.n)) != ICNT_NEVER;) icnt_advance(ctx.n, e);
    auto t1 = std::chrono::steady_clock::now();
    icnt_stats st;
    icnt_get_stats(ctx.n, &st);
    printf("%-8s %10llu %10.2f %12llu %10.4f %10.1f\n", t.name,
           (unsigned long long)st.packets_ejected, st.avg_latency,
           (unsigned long long)st.latency_max, st.accepted_rate,
           std::chrono::duration<double, std::milli>(t1 - t0).count());
    icnt_destroy(ctx.n);
    mem_req_pool_destroy(pool);
  }
  return 0;
}
