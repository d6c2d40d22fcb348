/* syscache — the system-level cache (syscache.h). */
#include "syscache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct syscache_line {
  uint64_t line;  /* address / line_bytes */
  uint64_t used;  /* LRU stamp */
  bool valid, dirty;
} syscache_line;

struct syscache {
  syscache_config cfg;
  uint32_t shift;  /* log2(line_bytes) */
  syscache_line *lines; /* sets × ways */
  uint64_t clock;
  syscache_stats local;
  uint64_t *hits[SOCMEM_AGENTS], *misses[SOCMEM_AGENTS], *writebacks[SOCMEM_AGENTS], *fills;
};

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s", option, what);
  simtvp_diag_at_option(diag, option);
  return SIMTVP_ERR_CONFIG;
}

simtvp_status syscache_create(const syscache_config *cfg, syscache **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->sets || cfg->sets > (1u << 24)) return config_error(diag, "-syscache_sets", "from 1 to 16777216 sets");
  if (!cfg->ways || cfg->ways > 64) return config_error(diag, "-syscache_ways", "from 1 to 64 ways");
  if (cfg->line_bytes < 32 || cfg->line_bytes > 4096 || (cfg->line_bytes & (cfg->line_bytes - 1)))
    return config_error(diag, "-syscache_line_bytes", "a power of two from 32 to 4096 bytes");
  if (!cfg->port.memory) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "syscache: the memory port has no function");
  syscache *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "syscache: out of host memory");
  c->lines = calloc((size_t)cfg->sets * cfg->ways, sizeof *c->lines);
  if (!c->lines) {
    free(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "syscache: out of host memory for %u x %u lines", cfg->sets,
                           cfg->ways);
  }
  c->cfg = *cfg;
  while ((1u << c->shift) < cfg->line_bytes) c->shift++;
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    c->hits[a] = &c->local.hits[a];
    c->misses[a] = &c->local.misses[a];
    c->writebacks[a] = &c->local.writebacks[a];
  }
  c->fills = &c->local.fills;
  if (cfg->stats) {
    char name[64];
    for (int a = 0; a < SOCMEM_AGENTS; a++) {
      if (a == SOCMEM_CACHE) continue; /* the cache is not its own client */
      const char *n = socmem_agent_name((socmem_agent)a);
      snprintf(name, sizeof name, "syscache.%s.hits", n);
      c->hits[a] = stats_counter(cfg->stats, name, "lines", "lines this agent found in the system-level cache");
      snprintf(name, sizeof name, "syscache.%s.misses", n);
      c->misses[a] = stats_counter(cfg->stats, name, "lines", "lines this agent missed in the system-level cache");
      snprintf(name, sizeof name, "syscache.%s.writebacks", n);
      c->writebacks[a] =
          stats_counter(cfg->stats, name, "lines", "dirty lines written back to memory to make room for this agent's misses");
    }
    c->fills = stats_counter(cfg->stats, "syscache.fills", "lines", "lines the system-level cache read from memory");
  }
  *out = c;
  return SIMTVP_OK;
}

void syscache_destroy(syscache *c) {
  if (!c) return;
  free(c->lines);
  free(c);
}

static syscache_line *find(const syscache *c, uint64_t line) {
  syscache_line *set = c->lines + (size_t)(line % c->cfg.sets) * c->cfg.ways;
  for (uint32_t w = 0; w < c->cfg.ways; w++)
    if (set[w].valid && set[w].line == line) return &set[w];
  return NULL;
}

/* One line of an access; `whole`: the access writes every byte of it. */
static uint64_t access_line(syscache *c, uint64_t line, bool write, bool whole, socmem_agent agent, uint64_t now) {
  const uint64_t tagged = now + c->cfg.hit_ps;
  syscache_line *l = find(c, line);
  if (l) {
    ++*c->hits[agent];
    l->used = ++c->clock;
    l->dirty |= write;
    return tagged;
  }
  ++*c->misses[agent];
  syscache_line *set = c->lines + (size_t)(line % c->cfg.sets) * c->cfg.ways, *victim = &set[0];
  for (uint32_t w = 0; w < c->cfg.ways; w++) {
    if (!set[w].valid) {
      victim = &set[w];
      break;
    }
    if (set[w].used < victim->used) victim = &set[w];
  }
  if (victim->valid && victim->dirty) {
    ++*c->writebacks[agent];
    c->cfg.port.memory(c->cfg.port.ctx, victim->line << c->shift, c->cfg.line_bytes, true, tagged);
  }
  uint64_t done = tagged;
  if (!(write && whole)) {
    ++*c->fills;
    done = c->cfg.port.memory(c->cfg.port.ctx, line << c->shift, c->cfg.line_bytes, false, tagged);
  }
  victim->valid = true;
  victim->dirty = write;
  victim->line = line;
  victim->used = ++c->clock;
  return done;
}

uint64_t syscache_access(syscache *c, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now_ps) {
  if ((unsigned)agent >= SOCMEM_AGENTS) agent = SOCMEM_OTHER;
  if (!bytes) bytes = 1;
  const uint64_t first = addr >> c->shift, last = (addr + bytes - 1) >> c->shift;
  uint64_t done = now_ps;
  for (uint64_t line = first; line <= last; line++) {
    uint64_t lo = line << c->shift, hi = lo + c->cfg.line_bytes;
    bool whole = addr <= lo && addr + bytes >= hi;
    uint64_t t = access_line(c, line, write, whole, agent, now_ps);
    if (t > done) done = t;
  }
  return done;
}

bool syscache_probe(const syscache *c, uint64_t addr, bool *dirty) {
  const syscache_line *l = find(c, addr >> c->shift);
  if (dirty) *dirty = l && l->dirty;
  return l != NULL;
}

void syscache_get_stats(const syscache *c, syscache_stats *o) {
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    o->hits[a] = *c->hits[a];
    o->misses[a] = *c->misses[a];
    o->writebacks[a] = *c->writebacks[a];
  }
  o->fills = *c->fills;
}
