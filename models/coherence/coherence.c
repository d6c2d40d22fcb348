/* coherence — the MESI directory (coherence.h). */
#include "coherence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct dir_entry {
  uint64_t line; /* address >> shift */
  uint64_t used; /* LRU stamp */
  uint8_t state[SOCMEM_AGENTS]; /* coherence_state per agent */
  bool valid;
} dir_entry;

struct coherence {
  coherence_config cfg;
  uint32_t shift;
  dir_entry *entries; /* sets × ways */
  uint64_t clock;
  coherence_stats local;
  uint64_t *reads[SOCMEM_AGENTS], *writes[SOCMEM_AGENTS], *inval[SOCMEM_AGENTS], *down[SOCMEM_AGENTS];
  uint64_t *messages, *writebacks, *recalls, *latency;
};

const char *coherence_state_name(coherence_state s) {
  static const char *const n[] = {"I", "S", "E", "M"};
  return (unsigned)s < 4 ? n[s] : "?";
}

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s", option, what);
  simtvp_diag_at_option(diag, option);
  return SIMTVP_ERR_CONFIG;
}

simtvp_status coherence_create(const coherence_config *cfg, coherence **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->sets || cfg->sets > (1u << 24)) return config_error(diag, "-coherence_dir_sets", "from 1 to 16777216 sets");
  if (!cfg->ways || cfg->ways > 64) return config_error(diag, "-coherence_dir_ways", "from 1 to 64 ways");
  if (cfg->line_bytes < 32 || cfg->line_bytes > 4096 || (cfg->line_bytes & (cfg->line_bytes - 1)))
    return config_error(diag, "-syscache_line_bytes", "a power of two from 32 to 4096 bytes");
  coherence *d = calloc(1, sizeof *d);
  if (!d) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "coherence: out of host memory");
  d->entries = calloc((size_t)cfg->sets * cfg->ways, sizeof *d->entries);
  if (!d->entries) {
    free(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "coherence: out of host memory for the directory");
  }
  d->cfg = *cfg;
  while ((1u << d->shift) < cfg->line_bytes) d->shift++;
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    d->reads[a] = &d->local.reads[a];
    d->writes[a] = &d->local.writes[a];
    d->inval[a] = &d->local.invalidations[a];
    d->down[a] = &d->local.downgrades[a];
  }
  d->messages = &d->local.messages;
  d->writebacks = &d->local.writebacks;
  d->recalls = &d->local.recalls;
  d->latency = &d->local.latency_ps;
  if (cfg->stats) {
    char name[64];
    for (int a = 0; a < SOCMEM_AGENTS; a++) {
      if (a == SOCMEM_CACHE) continue;
      const char *n = socmem_agent_name((socmem_agent)a);
      snprintf(name, sizeof name, "coherence.%s.reads", n);
      d->reads[a] = stats_counter(cfg->stats, name, "lines", "shared lines this agent read through the directory");
      snprintf(name, sizeof name, "coherence.%s.writes", n);
      d->writes[a] = stats_counter(cfg->stats, name, "lines", "shared lines this agent wrote through the directory");
      snprintf(name, sizeof name, "coherence.%s.invalidations", n);
      d->inval[a] = stats_counter(cfg->stats, name, "lines", "copies this agent held that the directory invalidated");
      snprintf(name, sizeof name, "coherence.%s.downgrades", n);
      d->down[a] = stats_counter(cfg->stats, name, "lines", "exclusive or modified copies of this agent made shared");
    }
    d->messages = stats_counter(cfg->stats, "coherence.messages", "messages", "snoop and invalidation messages the directory sent");
    d->writebacks = stats_counter(cfg->stats, "coherence.writebacks", "lines", "modified copies written back on the directory's request");
    d->recalls = stats_counter(cfg->stats, "coherence.recalls", "entries", "directory entries recalled (holders invalidated) to make room");
    d->latency = stats_counter(cfg->stats, "coherence.latency_ps", "ps", "time requests spent in the directory (lookups, messages, write-backs)");
  }
  *out = d;
  return SIMTVP_OK;
}

void coherence_destroy(coherence *d) {
  if (!d) return;
  free(d->entries);
  free(d);
}

static dir_entry *find(const coherence *d, uint64_t line) {
  dir_entry *set = d->entries + (size_t)(line % d->cfg.sets) * d->cfg.ways;
  for (uint32_t w = 0; w < d->cfg.ways; w++)
    if (set[w].valid && set[w].line == line) return &set[w];
  return NULL;
}

static bool empty(const dir_entry *e) {
  for (int a = 0; a < SOCMEM_AGENTS; a++)
    if (e->state[a] != COH_I) return false;
  return true;
}

/* Agent a loses its copy of e's line; returns when a write-back it needs completes (now if none). */
static uint64_t drop(coherence *d, dir_entry *e, int a, bool write_back, uint64_t now) {
  uint64_t done = now;
  const uint64_t addr = e->line << d->shift;
  if (e->state[a] == COH_M && write_back) {
    ++*d->writebacks;
    if (d->cfg.port.writeback) done = d->cfg.port.writeback(d->cfg.port.ctx, (socmem_agent)a, addr, now);
  }
  e->state[a] = COH_I;
  ++*d->inval[a];
  if (d->cfg.port.invalidate) d->cfg.port.invalidate(d->cfg.port.ctx, (socmem_agent)a, addr);
  return done;
}

/* A free or recalled entry for line (its set full: the LRU entry's holders are invalidated). */
static dir_entry *allocate(coherence *d, uint64_t line, uint64_t now) {
  dir_entry *set = d->entries + (size_t)(line % d->cfg.sets) * d->cfg.ways, *v = &set[0];
  for (uint32_t w = 0; w < d->cfg.ways; w++) {
    if (!set[w].valid) {
      v = &set[w];
      goto fill;
    }
    if (set[w].used < v->used) v = &set[w];
  }
  ++*d->recalls;
  for (int a = 0; a < SOCMEM_AGENTS; a++)
    if (v->state[a] != COH_I) {
      ++*d->messages;
      drop(d, v, a, true, now);
    }
fill:
  memset(v, 0, sizeof *v);
  v->valid = true;
  v->line = line;
  return v;
}

/* keep: R keeps a copy after the request (a caching agent's read or write; not a write-back or
 * a write-through, nor an I/O-coherent agent's access). */
static uint64_t access_line(coherence *d, uint64_t line, bool write, int r, uint64_t now, bool keep) {
  const bool caching = keep;
  const uint64_t looked = now + d->cfg.lookup_ps;
  ++*(write ? d->writes[r] : d->reads[r]);
  dir_entry *e = find(d, line);
  if (!e) {
    if (!caching) return looked; /* nobody holds it, and R will not */
    e = allocate(d, line, now);
  }
  e->used = ++d->clock;
  uint32_t msgs = 0;
  uint64_t done = looked;
  if (!write) {
    if (e->state[r] != COH_I) return looked; /* R holds it already */
    bool others = false;
    for (int a = 0; a < SOCMEM_AGENTS; a++) {
      if (a == r || e->state[a] == COH_I) continue;
      others = true;
      if (e->state[a] == COH_M || e->state[a] == COH_E) {
        msgs++;
        ++*d->down[a];
        if (e->state[a] == COH_M) {
          ++*d->writebacks;
          if (d->cfg.port.writeback) {
            uint64_t t = d->cfg.port.writeback(d->cfg.port.ctx, (socmem_agent)a, line << d->shift, looked);
            if (t > done) done = t;
          }
        }
        e->state[a] = COH_S;
      }
    }
    if (caching) e->state[r] = others ? COH_S : COH_E;
  } else {
    for (int a = 0; a < SOCMEM_AGENTS; a++) {
      if (a == r || e->state[a] == COH_I) continue;
      msgs++;
      /* A writer that keeps the line takes the dirty data with the ownership; one that does not
       * (a write-through, an I/O-coherent agent) writes into memory, so the modified copy goes
       * there first. */
      uint64_t t = drop(d, e, a, !caching, looked);
      if (t > done) done = t;
    }
    if (caching) e->state[r] = COH_M;
  }
  if (msgs) {
    *d->messages += msgs;
    if (looked + d->cfg.message_ps > done) done = looked + d->cfg.message_ps;
  }
  if (empty(e)) e->valid = false;
  return done;
}

uint64_t coherence_access(coherence *d, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now) {
  if ((unsigned)agent >= SOCMEM_AGENTS) agent = SOCMEM_OTHER;
  if (!bytes) bytes = 1;
  const uint64_t first = addr >> d->shift, last = (addr + bytes - 1) >> d->shift;
  uint64_t done = now + d->cfg.lookup_ps;
  for (uint64_t line = first; line <= last; line++) {
    uint64_t t = access_line(d, line, write, (int)agent, now, (d->cfg.caching >> agent) & 1u);
    if (t > done) done = t;
  }
  *d->latency += done - now;
  return done;
}

static uint64_t give_up(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now, bool dirty);

uint64_t coherence_writeback(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now) {
  return give_up(d, addr, bytes, agent, now, true);
}

uint64_t coherence_write_through(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now) {
  return give_up(d, addr, bytes, agent, now, false);
}

/* A write after which the writer holds no copy: a write-back (dirty: counted) or a write-through. */
static uint64_t give_up(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now, bool dirty) {
  if ((unsigned)agent >= SOCMEM_AGENTS) agent = SOCMEM_OTHER;
  if (!bytes) bytes = 1;
  const uint64_t first = addr >> d->shift, last = (addr + bytes - 1) >> d->shift;
  uint64_t done = now + d->cfg.lookup_ps;
  for (uint64_t line = first; line <= last; line++) {
    uint64_t t = access_line(d, line, true, (int)agent, now, false);
    if (t > done) done = t;
    dir_entry *e = find(d, line);
    if (e) {
      e->state[agent] = COH_I;
      if (empty(e)) e->valid = false;
    }
    if (dirty) ++*d->writebacks;
  }
  *d->latency += done - now;
  return done;
}

void coherence_evict(coherence *d, uint64_t addr, socmem_agent agent, uint64_t now) {
  if ((unsigned)agent >= SOCMEM_AGENTS) return;
  dir_entry *e = find(d, addr >> d->shift);
  if (!e || e->state[agent] == COH_I) return;
  if (e->state[agent] == COH_M) {
    ++*d->writebacks;
    if (d->cfg.port.writeback) d->cfg.port.writeback(d->cfg.port.ctx, agent, e->line << d->shift, now);
  }
  e->state[agent] = COH_I;
  if (empty(e)) e->valid = false;
}

coherence_state coherence_state_of(const coherence *d, uint64_t addr, socmem_agent agent) {
  if ((unsigned)agent >= SOCMEM_AGENTS) return COH_I;
  const dir_entry *e = find(d, addr >> d->shift);
  return e ? (coherence_state)e->state[agent] : COH_I;
}

void coherence_get_stats(const coherence *d, coherence_stats *o) {
  for (int a = 0; a < SOCMEM_AGENTS; a++) {
    o->reads[a] = *d->reads[a];
    o->writes[a] = *d->writes[a];
    o->invalidations[a] = *d->inval[a];
    o->downgrades[a] = *d->down[a];
  }
  o->messages = *d->messages;
  o->writebacks = *d->writebacks;
  o->recalls = *d->recalls;
  o->latency_ps = *d->latency;
}
