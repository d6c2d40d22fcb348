/* hub — the GPU's path to system memory (hub.h). */
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* One request between push and reply. */
typedef struct hub_entry {
  mem_req *req;
  uint64_t pushed, issue_at, reply_at, seq, bus;
  uint32_t input;
  bool translated;
  struct hub_entry *next; /* free list / FIFO link */
} hub_entry;

typedef struct entry_fifo {
  hub_entry *head, *tail;
  uint32_t len;
} entry_fifo;

enum {
  C_REQUESTS, C_READS, C_WRITES, C_ATOMICS, C_BYTES, C_LATENCY, C_LINK_BUSY, C_XLATE_CYCLES,
  C_XLATE_FAULTS, C_REFUSED, C_COUNT
};

struct hub {
  hub_config cfg;
  hub_entry *entries, *free_list;
  uint32_t held;
  uint64_t link_free, seq, now;
  entry_fifo issue;     /* translated, waiting for their issue cycle (monotone) */
  hub_entry **replies;  /* min-heap by (reply_at, seq) */
  uint32_t n_replies;
  entry_fifo *ready;    /* per input: replies due, in order */
  bool *blocked;        /* per input: the reply port refused */
  uint64_t local[C_COUNT];
  uint64_t *c[C_COUNT];
  bool stats_registered;
};

static void fifo_push(entry_fifo *f, hub_entry *e) {
  e->next = NULL;
  if (f->tail) f->tail->next = e;
  else f->head = e;
  f->tail = e;
  f->len++;
}

static hub_entry *fifo_pop(entry_fifo *f) {
  hub_entry *e = f->head;
  f->head = e->next;
  if (!f->head) f->tail = NULL;
  f->len--;
  e->next = NULL;
  return e;
}

static bool before(const hub_entry *a, const hub_entry *b) {
  return a->reply_at < b->reply_at || (a->reply_at == b->reply_at && a->seq < b->seq);
}

static void heap_push(hub *h, hub_entry *e) {
  uint32_t i = h->n_replies++;
  while (i > 0 && before(e, h->replies[(i - 1) / 2])) {
    h->replies[i] = h->replies[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->replies[i] = e;
}

static hub_entry *heap_pop(hub *h) {
  hub_entry *top = h->replies[0], *last = h->replies[--h->n_replies];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    const hub_entry *best = last;
    if (l < h->n_replies && before(h->replies[l], best)) m = l, best = h->replies[l];
    if (r < h->n_replies && before(h->replies[r], best)) m = r;
    if (m == i) break;
    h->replies[i] = h->replies[m];
    i = m;
  }
  if (h->n_replies) h->replies[i] = last;
  return top;
}

/* Counters go to the sink from the first request on: a GPU that never reaches system memory
 * prints no hub statistics. */
static void register_stats(hub *h) {
  h->stats_registered = true;
  if (!h->cfg.stats) return;
  static const struct {
    int id;
    const char *name, *unit, *desc;
  } defs[] = {
      {C_REQUESTS, "requests", "requests", "requests to system memory through the hub"},
      {C_READS, "reads", "requests", "reads (including L2 fills)"},
      {C_WRITES, "writes", "requests", "writes (including L2 write-backs)"},
      {C_ATOMICS, "atomics", "requests", "atomics (one non-posted read transaction each)"},
      {C_BYTES, "bytes", "bytes", "bytes carried over the link"},
      {C_LATENCY, "latency", "cycles", "sum over requests of the cycles from arrival to reply (L2 clock)"},
      {C_LINK_BUSY, "link_busy", "cycles", "cycles the link carried data (L2 clock)"},
      {C_XLATE_CYCLES, "translation_cycles", "cycles", "sum of the cycles requests waited for address translation"},
      {C_XLATE_FAULTS, "translation_faults", "requests", "requests whose address had no translation (answered without a bus transaction)"},
      {C_REFUSED, "refused", "requests", "pushes refused because max_outstanding requests were held"},
  };
  const char *pre = h->cfg.name ? h->cfg.name : "hub";
  char name[96];
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
    uint64_t v = *h->c[defs[i].id];
    snprintf(name, sizeof name, "%s.%s", pre, defs[i].name);
    h->c[defs[i].id] = stats_counter(h->cfg.stats, name, defs[i].unit, defs[i].desc);
    *h->c[defs[i].id] += v;
  }
  char num[96], den[96];
  snprintf(name, sizeof name, "%s.avg_latency", pre);
  snprintf(num, sizeof num, "%s.latency", pre);
  snprintf(den, sizeof den, "%s.requests", pre);
  stats_ratio(h->cfg.stats, name, "average cycles from arrival to reply (L2 clock)", num, den);
}

simtvp_status hub_create(const hub_config *cfg, hub **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->n_inputs || !cfg->ports.reply)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "hub: needs at least one input and a reply port");
  if (!cfg->bytes_per_kcycle) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "hub: the link to system memory needs a bandwidth above 0");
    simtvp_diag_at_option(diag, "-host_bus_bandwidth_gbs");
    return SIMTVP_ERR_CONFIG;
  }
  if (!cfg->max_outstanding) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "hub: must hold at least one request");
    simtvp_diag_at_option(diag, "-hub_max_outstanding");
    return SIMTVP_ERR_CONFIG;
  }
  hub *h = calloc(1, sizeof *h);
  if (!h) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "hub: out of host memory");
  h->cfg = *cfg;
  h->entries = calloc(cfg->max_outstanding, sizeof *h->entries);
  h->replies = calloc(cfg->max_outstanding, sizeof *h->replies);
  h->ready = calloc(cfg->n_inputs, sizeof *h->ready);
  h->blocked = calloc(cfg->n_inputs, sizeof *h->blocked);
  if (!h->entries || !h->replies || !h->ready || !h->blocked) {
    hub_destroy(h);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "hub: out of host memory");
  }
  for (uint32_t i = 0; i < cfg->max_outstanding; i++) {
    h->entries[i].next = h->free_list;
    h->free_list = &h->entries[i];
  }
  for (int i = 0; i < C_COUNT; i++) h->c[i] = &h->local[i];
  *out = h;
  return SIMTVP_OK;
}

void hub_destroy(hub *h) {
  if (!h) return;
  if (h->entries)
    for (uint32_t i = 0; i < h->cfg.max_outstanding; i++)
      if (h->entries[i].req) mem_req_free(h->entries[i].req);
  free(h->entries);
  free(h->replies);
  free(h->ready);
  free(h->blocked);
  free(h);
}

bool hub_can_accept(const hub *h) { return h->free_list != NULL; }

uint32_t hub_outstanding(const hub *h) { return h->held; }

/* Link occupancy of a request: its data bytes at the link's bandwidth, whole cycles. */
static uint64_t serialisation(const hub *h, uint32_t bytes) {
  return ((uint64_t)bytes * 1000u + h->cfg.bytes_per_kcycle - 1) / h->cfg.bytes_per_kcycle;
}

bool hub_push(hub *h, uint32_t input, mem_req *req, uint64_t now) {
  if (!h->stats_registered) register_stats(h);
  if (now > h->now) h->now = now;
  if (!h->free_list || input >= h->cfg.n_inputs) {
    ++*h->c[C_REFUSED];
    return false;
  }
  hub_entry *e = h->free_list;
  h->free_list = e->next;
  h->held++;
  memset(e, 0, sizeof *e);
  e->req = req;
  e->input = input;
  e->pushed = now;
  e->seq = h->seq++;
  uint64_t xcycles = 0;
  e->translated = true;
  e->bus = req->addr;
  if (h->cfg.ports.translate)
    e->translated = h->cfg.ports.translate(h->cfg.ports.ctx, req, now, &e->bus, &xcycles);
  *h->c[C_XLATE_CYCLES] += xcycles;
  uint64_t x = now + xcycles;
  uint64_t start = x > h->link_free ? x : h->link_free;
  uint64_t ser = e->translated ? serialisation(h, req->size) : 0;
  h->link_free = start + ser;
  e->issue_at = start + ser;
  *h->c[C_LINK_BUSY] += ser;
  ++*h->c[C_REQUESTS];
  if (req->kind == MEM_ACC_ATOMIC) ++*h->c[C_ATOMICS];
  else ++*h->c[req->is_write ? C_WRITES : C_READS];
  if (!e->translated) ++*h->c[C_XLATE_FAULTS];
  else *h->c[C_BYTES] += req->size;
  fifo_push(&h->issue, e);
  return true;
}

void hub_reply_ready(hub *h, uint32_t input, uint64_t now) {
  if (input < h->cfg.n_inputs) h->blocked[input] = false;
  if (now > h->now) h->now = now;
}

void hub_advance(hub *h, uint64_t now) {
  if (now > h->now) h->now = now;
  while (h->issue.head && h->issue.head->issue_at <= now) {
    hub_entry *e = fifo_pop(&h->issue);
    uint64_t took = 0;
    if (e->translated && h->cfg.ports.issue) took = h->cfg.ports.issue(h->cfg.ports.ctx, e->req, e->bus, e->issue_at);
    e->reply_at = e->issue_at + took + h->cfg.latency;
    heap_push(h, e);
  }
  while (h->n_replies && h->replies[0]->reply_at <= now) {
    hub_entry *e = heap_pop(h);
    fifo_push(&h->ready[e->input], e);
  }
  for (uint32_t i = 0; i < h->cfg.n_inputs; i++) {
    entry_fifo *f = &h->ready[i];
    while (f->head && !h->blocked[i]) {
      hub_entry *e = f->head;
      if (!h->cfg.ports.reply(h->cfg.ports.ctx, i, e->req, now)) {
        h->blocked[i] = true;
        break;
      }
      fifo_pop(f);
      *h->c[C_LATENCY] += now - e->pushed;
      e->req = NULL;
      e->next = h->free_list;
      h->free_list = e;
      h->held--;
    }
  }
}

uint64_t hub_next_event(const hub *h) {
  uint64_t t = HUB_NEVER;
  if (h->issue.head) t = h->issue.head->issue_at;
  if (h->n_replies && h->replies[0]->reply_at < t) t = h->replies[0]->reply_at;
  for (uint32_t i = 0; i < h->cfg.n_inputs; i++)
    if (h->ready[i].head && !h->blocked[i]) return h->now;
  if (t != HUB_NEVER && t < h->now) t = h->now;
  return t;
}

void hub_get_stats(const hub *h, hub_stats *o) {
  o->requests = *h->c[C_REQUESTS];
  o->reads = *h->c[C_READS];
  o->writes = *h->c[C_WRITES];
  o->atomics = *h->c[C_ATOMICS];
  o->bytes = *h->c[C_BYTES];
  o->latency_cycles = *h->c[C_LATENCY];
  o->link_busy_cycles = *h->c[C_LINK_BUSY];
  o->translation_cycles = *h->c[C_XLATE_CYCLES];
  o->translation_faults = *h->c[C_XLATE_FAULTS];
  o->refused = *h->c[C_REFUSED];
}
