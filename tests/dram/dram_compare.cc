// dram_compare — total time of the AT controller against the CA controller on request streams,
// and the host time each takes. Not a test: it prints the table quoted in docs/dram.md.
//   build-<you>/bin/dram_compare [n_requests]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "dram_harness.h"

using namespace dramtest;

namespace {

struct Preset {
  const char *name;
  void (*apply)(dram_config *);
};

void Gddr5(dram_config *) {}  // the manual's named example timing (dram_config_default)

void Hbm(dram_config *c) {  // TITAN V: HBM at 850 MHz, dual bus, bank groups, write queue
  simtvp_diag d;
  dram_timing_parse("nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:"
                    "nbkgrp=4:CCDL=2:RTPL=3",
                    &c->timing, &d);
  c->bus_width_bytes = 16;
  c->burst_length = 2;
  c->data_command_freq_ratio = 2;
  c->chips_per_channel = 1;
  c->dual_bus = true;
  c->bank_group_indexing = 1;
  c->separate_write_queue = true;
  c->write_queue_size = 32;
  c->write_high_watermark = 28;
  c->write_low_watermark = 16;
}

}  // namespace

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 20000;
  const Preset presets[] = {{"gddr5", Gddr5}, {"hbm", Hbm}};
  const Stream streams[] = {Stream::kStreaming, Stream::kStrided, Stream::kRandom};
  const struct {
    const char *name;
    uint32_t write_every;
    uint32_t size;
  } mixes[] = {{"rd64", 0, 64}, {"rd128+25%wr", 4, 128}};
  printf("%-6s %-10s %-12s %10s %10s %7s %9s %9s %8s %8s\n", "dram", "stream", "mix", "CA cycles",
         "AT cycles", "AT-CA", "CA rowhit", "AT rowhit", "CA us", "AT us");
  double worst = 0;
  for (const auto &p : presets)
    for (Stream s : streams)
      for (const auto &mix : mixes) {
        uint64_t total[2];
        double rowhit[2], host_us[2];
        const char *models[2] = {"ca", "at"};
        for (int m = 0; m < 2; m++) {
          Harness h;
          dram_config cfg = h.Config(models[m]);
          cfg.sched_queue_size = 16;
          p.apply(&cfg);
          if (h.Create(cfg) != SIMTVP_OK) {
            fprintf(stderr, "%s\n", h.diag().message);
            return 1;
          }
          auto t0 = std::chrono::steady_clock::now();
          total[m] = RunStream(h, s, n, mix.write_every, mix.size);
          auto t1 = std::chrono::steady_clock::now();
          host_us[m] = std::chrono::duration<double, std::micro>(t1 - t0).count();
          rowhit[m] = h.Stats().row_hit_rate;
        }
        double err = ((double)total[1] - (double)total[0]) / (double)total[0];
        worst = std::fmax(worst, std::fabs(err));
        printf("%-6s %-10s %-12s %10llu %10llu %+6.1f%% %9.3f %9.3f %8.0f %8.0f\n", p.name,
               StreamName(s), mix.name, (unsigned long long)total[0],
               (unsigned long long)total[1], 100 * err, rowhit[0], rowhit[1], host_us[0],
               host_us[1]);
      }
  printf("worst |AT-CA| = %.1f%%\n", 100 * worst);

  // Idle skipping: a sparse random stream (one read every 500 cycles) simulated every cycle,
  // with CA skipping, and with AT. Same completions for the two CA runs.
  printf("\nsparse stream, %u reads one every 500 cycles (gddr5):\n", n / 10);
  const char *labels[3] = {"CA every cycle", "CA skipping", "AT"};
  for (int k = 0; k < 3; k++) {
    Harness h;
    dram_config cfg = h.Config(k == 2 ? "at" : "ca");
    cfg.every_cycle = k == 0;
    if (h.Create(cfg) != SIMTVP_OK) return 1;
    uint64_t lcg = 5, last = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (uint32_t i = 0; i < n / 10; i++) h.Push(StreamAddr(Stream::kRandom, i, &lcg), false, i * 500ull);
    h.Run();
    auto t1 = std::chrono::steady_clock::now();
    for (const auto &c : h.completions()) last = c.at > last ? c.at : last;
    printf("  %-15s last completion %8llu  host %8.0f us\n", labels[k], (unsigned long long)last,
           std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return 0;
}
