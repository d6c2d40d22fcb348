/* cache_stats — the cache's counters in the statistics sink, under GPGPU-Sim's names where the
 * meaning matches (docs/cache.md "Statistics"): per instance (<name>.access, .miss, ...), per
 * group summed over instances (L1D_total_cache_accesses, L2_cache_stats_breakdown[K][S], ...) and
 * the total_dl1_* aliases. Counting an access costs a few adds; breakdown counters are registered
 * the first time their (kind, status) occurs, so a name is formatted once, never per access.
 * The group's and the alias's counters are resolved once per sink, by the first cache of the
 * group, and kept there (stats_shared) for the others: a GPU of 80 SMs builds 320 L1s, which
 * otherwise looked the same dozen names up each. */
#include <stdio.h>
#include <string.h>

#include "cache_internal.h"

static uint64_t *reg(cache *c, const char *name, const char *unit, const char *desc) {
  if (!c->stats) return &c->dummy;
  uint64_t *p = stats_counter(c->stats, name, unit, desc);
  return p ? p : &c->dummy;
}

/* pre + a + post into out[192], cut short like snprintf would (building a cache registers ~30
 * names; concatenation instead of a format string keeps that cheap). */
static const char *cat3(char out[192], const char *pre, const char *a, const char *post) {
  size_t n = 0;
  const char *parts[3] = {pre, a, post};
  for (int i = 0; i < 3; i++) {
    size_t len = strlen(parts[i]);
    if (len > 191 - n) len = 191 - n;
    memcpy(out + n, parts[i], len);
    n += len;
  }
  out[n] = '\0';
  return out;
}

static void set_prefix(cache_stat_set *s, const char *p) {
  size_t len = strlen(p);
  if (len > sizeof s->prefix - 1) len = sizeof s->prefix - 1;
  memcpy(s->prefix, p, len);
  s->prefix[len] = '\0';
}

static uint64_t *regf(cache *c, const char *pre, const char *a, const char *post, const char *unit,
                      const char *desc) {
  char name[192];
  return reg(c, cat3(name, pre, a, post), unit, desc);
}

/* The alias's counters as every cache with the alias shares them (stats_shared). */
typedef struct cache_alias_shared {
  bool ready;
  uint64_t *access, *miss;
} cache_alias_shared;

/* The shared record of a group or alias: "cache.group:L1D", "cache.alias:dl1" (NULL: no memory,
 * each cache then resolves by name as it would alone). */
static void *shared(cache *c, const char *what, const char *name, size_t bytes) {
  char key[192];
  return stats_shared(c->stats, cat3(key, what, name, ""), bytes);
}

static void set_dummy(cache *c, cache_stat_set *s) {
  memset(s, 0, sizeof *s);
  uint64_t **summary[] = {&s->access,    &s->miss,        &s->pending_hit, &s->reservation_fail,
                          &s->sector_miss, &s->write_back, &s->fill,       &s->forwarded,
                          &s->data_port_busy, &s->fill_port_busy};
  for (size_t i = 0; i < sizeof summary / sizeof summary[0]; i++) *summary[i] = &c->dummy;
}

void cache_stats_init(cache *c, const cache_config *cfg) {
  set_dummy(c, &c->inst);
  set_dummy(c, &c->group);
  c->alias_access = c->alias_miss = &c->dummy;
  if (!c->stats || cfg->spec.disabled) return;
  char n1[192], n2[192];

  if (cfg->name && *cfg->name) {
    cache_stat_set *s = &c->inst;
    const char *p = cfg->name;
    set_prefix(s, p);
    s->access = regf(c, "", p, ".access", "accesses", "accesses accepted (hits, pending hits, misses)");
    s->miss = regf(c, "", p, ".miss", "accesses", "accesses that missed (incl. sector misses)");
    s->pending_hit = regf(c, "", p, ".pending_hit", "accesses",
                          "accesses merged into the MSHR of an earlier miss (HIT_RESERVED)");
    s->reservation_fail = regf(c, "", p, ".reservation_fail", "accesses",
                               "accesses refused for lack of a line, MSHR or queue slot");
    s->sector_miss = regf(c, "", p, ".sector_miss", "accesses",
                          "misses on a line whose tag was present (sectors missing)");
    s->write_back = regf(c, "", p, ".write_back", "requests", "write-back requests sent");
    s->fill = regf(c, "", p, ".fill", "requests", "fills received from the next level");
    s->forwarded = regf(c, "", p, ".forwarded", "requests",
                        "requests passed on to the next level unchanged (write-through, bypass)");
    s->data_port_busy = regf(c, "", p, ".data_port_busy", "cycles", "cycles the data port was busy");
    s->fill_port_busy = regf(c, "", p, ".fill_port_busy", "cycles", "cycles the fill port was busy");
    cat3(n1, "", p, ".miss_rate");
    cat3(n2, "", p, ".access");
    char n3[192];
    cat3(n3, "", p, ".miss");
    stats_ratio(c->stats, n1, "misses per access", n3, n2);
    s->enabled = cfg->stats_instance_breakdown;
    s->group = false;
  }

  if (cfg->stats_group && *cfg->stats_group) {
    cache_stat_set *s = &c->group;
    const char *g = cfg->stats_group;
    c->group_shared = shared(c, "cache.group:", g, sizeof *c->group_shared);
    if (c->group_shared && c->group_shared->enabled) { /* resolved by the group's first cache */
      *s = *c->group_shared;
    } else {
      set_prefix(s, g);
      cat3(n1, "", g, "_total_cache_accesses");
      int found = 0;
      stats_get(c->stats, n1, &found); /* the first instance of the group registers the ratio */
      s->access = regf(c, "", g, "_total_cache_accesses", "accesses",
                       "accesses accepted by all caches of the group (hits, pending hits, misses)");
      s->miss = regf(c, "", g, "_total_cache_misses", "accesses", "misses, all caches of the group");
      s->pending_hit = regf(c, "", g, "_total_cache_pending_hits", "accesses",
                            "pending hits (HIT_RESERVED), all caches of the group");
      s->reservation_fail = regf(c, "", g, "_total_cache_reservation_fails", "accesses",
                                 "reservation failures, all caches of the group");
      s->sector_miss = regf(c, "", g, "_total_cache_sector_misses", "accesses",
                            "sector misses, all caches of the group");
      s->write_back = regf(c, "", g, "_total_cache_write_backs", "requests",
                           "write-back requests, all caches of the group");
      s->fill = regf(c, "", g, "_total_cache_fills", "requests", "fills, all caches of the group");
      s->forwarded = regf(c, "", g, "_total_cache_forwarded", "requests",
                          "requests passed through unchanged, all caches of the group");
      s->data_port_busy = regf(c, "", g, "_cache_data_port_busy", "cycles",
                               "data-port busy cycles, summed over the group");
      s->fill_port_busy = regf(c, "", g, "_cache_fill_port_busy", "cycles",
                               "fill-port busy cycles, summed over the group");
      if (!found) {
        cat3(n2, "", g, "_total_cache_misses");
        char n3[192];
        cat3(n3, "", g, "_total_cache_miss_rate");
        stats_ratio(c->stats, n3, "misses per access, all caches of the group", n2, n1);
      }
      s->enabled = true;
      s->group = true;
      if (c->group_shared) *c->group_shared = *s;
    }
  }

  if (cfg->stats_total_alias && *cfg->stats_total_alias) {
    const char *a = cfg->stats_total_alias;
    cache_alias_shared *sh = shared(c, "cache.alias:", a, sizeof *sh);
    if (sh && sh->ready) {
      c->alias_access = sh->access;
      c->alias_miss = sh->miss;
      return;
    }
    cat3(n1, "total_", a, "_accesses");
    int found = 0;
    stats_get(c->stats, n1, &found);
    c->alias_access = regf(c, "total_", a, "_accesses", "accesses",
                           "accesses, all caches of the group (Accel-Sim's name)");
    c->alias_miss = regf(c, "total_", a, "_misses", "accesses",
                         "misses, all caches of the group (Accel-Sim's name)");
    if (!found) {
      cat3(n2, "total_", a, "_misses");
      char n3[192];
      cat3(n3, "total_", a, "_miss_rate");
      stats_ratio(c->stats, n3, "misses per access (Accel-Sim's name)", n2, n1);
    }
    if (sh) *sh = (cache_alias_shared){true, c->alias_access, c->alias_miss};
  }
}

static const char *const bd_names[CACHE_BD_COUNT] = {"HIT", "HIT_RESERVED", "MISS",
                                                     "RESERVATION_FAIL", "SECTOR_MISS"};

uint64_t *cache_stats_breakdown_slot(cache *c, cache_stat_set *s, uint8_t kind, unsigned col) {
  uint64_t *p = s->breakdown[kind][col];
  if (p) return p;
  if (!s->enabled) return s->breakdown[kind][col] = &c->dummy; /* counted nowhere */
  cache_stat_set *g = s == &c->group ? c->group_shared : NULL;
  if (g && g->breakdown[kind][col]) return s->breakdown[kind][col] = g->breakdown[kind][col];
  char name[256];
  snprintf(name, sizeof name, s->group ? "%s_cache_stats_breakdown[%s][%s]" : "%s.stats_breakdown[%s][%s]",
           s->prefix, mem_access_kind_name((mem_access_kind)kind), bd_names[col]);
  p = s->breakdown[kind][col] = reg(c, name, "accesses", "accesses by kind and outcome");
  if (g) g->breakdown[kind][col] = p;
  return p;
}

static void add_breakdown(cache *c, cache_stat_set *s, uint8_t kind, unsigned col, uint64_t n) {
  if (!s->enabled) return;
  *cache_stats_breakdown_slot(c, s, kind, col) += n;
}

static void bump_breakdown(cache *c, cache_stat_set *s, uint8_t kind, unsigned col) {
  add_breakdown(c, s, kind, col, 1);
}

static void add_fail(cache *c, cache_stat_set *s, uint8_t kind, cache_fail_reason reason, uint64_t n) {
  if (!s->enabled) return;
  uint64_t *p = s->fail[kind][reason];
  cache_stat_set *g = s == &c->group ? c->group_shared : NULL;
  if (!p && g && g->fail[kind][reason]) p = s->fail[kind][reason] = g->fail[kind][reason];
  if (!p) {
    char name[256];
    snprintf(name, sizeof name,
             s->group ? "%s_cache_stats_fail_breakdown[%s][%s]" : "%s.stats_fail_breakdown[%s][%s]",
             s->prefix, mem_access_kind_name((mem_access_kind)kind), cache_fail_reason_name(reason));
    p = s->fail[kind][reason] = reg(c, name, "accesses", "reservation failures by kind and reason");
    if (g) g->fail[kind][reason] = p;
  }
  *p += n;
}

static void bump_fail(cache *c, cache_stat_set *s, uint8_t kind, cache_fail_reason reason) {
  add_fail(c, s, kind, reason, 1);
}

void cache_stats_count_fails(cache *c, uint8_t kind, cache_fail_reason reason, uint64_t n) {
  if (!n) return;
  if (kind >= MEM_ACC_KIND_COUNT) kind = MEM_ACC_GLOBAL_R;
  cache_stat_set *sets[2] = {&c->inst, &c->group};
  for (int i = 0; i < 2; i++) {
    cache_stat_set *s = sets[i];
    *s->reservation_fail += n;
    if ((unsigned)reason < CACHE_FAIL_COUNT) add_fail(c, s, kind, reason, n);
    add_breakdown(c, s, kind, CACHE_BD_RESERVATION_FAIL, n);
  }
}

void cache_stats_count(cache *c, uint8_t kind, cache_status status, bool sector_miss,
                       cache_fail_reason reason) {
  switch (status) {
    case CACHE_HIT:
      cache_stats_count_ok(c, kind, CACHE_BD_HIT);
      return;
    case CACHE_HIT_RESERVED:
      cache_stats_count_ok(c, kind, CACHE_BD_HIT_RESERVED);
      return;
    case CACHE_MISS:
      cache_stats_count_ok(c, kind, sector_miss ? CACHE_BD_SECTOR_MISS : CACHE_BD_MISS);
      return;
    default:
      break;
  }
  if (kind >= MEM_ACC_KIND_COUNT) kind = MEM_ACC_GLOBAL_R; /* not a kind: count it somewhere */
  cache_stat_set *sets[2] = {&c->inst, &c->group};
  for (int i = 0; i < 2; i++) {
    cache_stat_set *s = sets[i];
    ++*s->reservation_fail;
    if ((unsigned)reason < CACHE_FAIL_COUNT) bump_fail(c, s, kind, reason);
    bump_breakdown(c, s, kind, CACHE_BD_RESERVATION_FAIL);
  }
}
