/* socmem — the SoC's memory as a timing model (socmem.h). */
#include "socmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define MAX_CHANNELS 64u

struct socmem {
  socmem_config cfg;
  uint64_t free_ps[MAX_CHANNELS];
  socmem_stats local;
  uint64_t *reads[SOCMEM_AGENTS], *writes[SOCMEM_AGENTS], *bytes[SOCMEM_AGENTS], *wait[SOCMEM_AGENTS];
  uint64_t *busy;
};

const char *socmem_agent_name(socmem_agent a) {
  static const char *const names[SOCMEM_AGENTS] = {"host", "gpu", "dma", "cache", "other"};
  return (unsigned)a < SOCMEM_AGENTS ? names[a] : "other";
}

void socmem_config_from(socmem_config *c, uint32_t channels, uint32_t interleave, double latency_ns,
                        double bandwidth_gbs) {
  memset(c, 0, sizeof *c);
  c->channels = channels;
  c->interleave = interleave;
  c->latency_ps = latency_ns > 0 ? (uint64_t)llround(latency_ns * 1000.0) : 0;
  /* one channel carries bandwidth / channels: 1000 bytes take 1000 / (GB/s / channels) ns */
  double per_channel = bandwidth_gbs > 0 ? bandwidth_gbs / (channels ? channels : 1) : 0;
  c->ps_per_kbyte = per_channel > 0 ? (uint64_t)llround(1e6 / per_channel) : 0;
}

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s", option, what);
  simtvp_diag_at_option(diag, option);
  return SIMTVP_ERR_CONFIG;
}

simtvp_status socmem_create(const socmem_config *cfg, socmem **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->channels || cfg->channels > MAX_CHANNELS)
    return config_error(diag, "-sysmem_channels", "from 1 to 64 channels");
  if (cfg->interleave < 64 || (cfg->interleave & (cfg->interleave - 1)))
    return config_error(diag, "-sysmem_interleave_bytes", "a power of two of at least 64 bytes");
  if (!cfg->ps_per_kbyte) return config_error(diag, "-sysmem_bandwidth_gbs", "the bandwidth must be positive");
  socmem *m = calloc(1, sizeof *m);
  if (!m) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "socmem: out of host memory");
  m->cfg = *cfg;
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    m->reads[a] = &m->local.reads[a];
    m->writes[a] = &m->local.writes[a];
    m->bytes[a] = &m->local.bytes[a];
    m->wait[a] = &m->local.wait_ps[a];
  }
  m->busy = &m->local.busy_ps;
  if (cfg->stats) {
    char name[64];
    for (int a = 0; a < SOCMEM_AGENTS; a++) {
      const char *n = socmem_agent_name((socmem_agent)a);
      snprintf(name, sizeof name, "sysmem.%s.reads", n);
      m->reads[a] = stats_counter(cfg->stats, name, "accesses", "reads of the SoC's memory by this agent");
      snprintf(name, sizeof name, "sysmem.%s.writes", n);
      m->writes[a] = stats_counter(cfg->stats, name, "accesses", "writes to the SoC's memory by this agent");
      snprintf(name, sizeof name, "sysmem.%s.bytes", n);
      m->bytes[a] = stats_counter(cfg->stats, name, "bytes", "bytes this agent moved to or from the SoC's memory");
      snprintf(name, sizeof name, "sysmem.%s.wait_ps", n);
      m->wait[a] = stats_counter(cfg->stats, name, "ps",
                                 "time this agent's accesses waited for channels busy with earlier accesses");
    }
    m->busy = stats_counter(cfg->stats, "sysmem.busy_ps", "ps", "time the SoC memory's channels were busy, summed over channels");
  }
  *out = m;
  return SIMTVP_OK;
}

void socmem_destroy(socmem *m) { free(m); }

uint64_t socmem_access(socmem *m, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now_ps) {
  if ((unsigned)agent >= SOCMEM_AGENTS) agent = SOCMEM_OTHER;
  ++*(write ? m->writes[agent] : m->reads[agent]);
  *m->bytes[agent] += bytes;
  if (!bytes) return now_ps + m->cfg.latency_ps;
  const uint64_t B = m->cfg.interleave, C = m->cfg.channels;
  uint64_t per[MAX_CHANNELS] = {0};
  uint64_t a = addr, left = bytes;
  uint64_t off = a & (B - 1);
  if (off) {
    uint64_t n = B - off < left ? B - off : left;
    per[(a / B) % C] += n;
    a += n;
    left -= n;
  }
  uint64_t full = left / B;
  if (full) {
    uint64_t k0 = a / B, q = full / C, r = full % C;
    for (uint64_t c = 0; c < C; c++) per[c] += q * B;
    for (uint64_t i = 0; i < r; i++) per[(k0 + i) % C] += B;
    a += full * B;
    left -= full * B;
  }
  if (left) per[(a / B) % C] += left;
  uint64_t done = now_ps, waited = 0;
  for (uint64_t c = 0; c < C; c++) {
    if (!per[c]) continue;
    uint64_t start = m->free_ps[c] > now_ps ? m->free_ps[c] : now_ps;
    uint64_t xfer = (per[c] * m->cfg.ps_per_kbyte + 999) / 1000;
    m->free_ps[c] = start + xfer;
    *m->busy += xfer;
    if (start - now_ps > waited) waited = start - now_ps;
    if (m->free_ps[c] + m->cfg.latency_ps > done) done = m->free_ps[c] + m->cfg.latency_ps;
  }
  *m->wait[agent] += waited;
  return done;
}

void socmem_get_stats(const socmem *m, socmem_stats *o) {
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    o->reads[a] = *m->reads[a];
    o->writes[a] = *m->writes[a];
    o->bytes[a] = *m->bytes[a];
    o->wait_ps[a] = *m->wait[a];
  }
  o->busy_ps = *m->busy;
}
