/* fake_ldst — fixed-latency stand-in for the LDST unit (fake_ldst.h). */
#include "fake_ldst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fake_op {
  uint64_t tag;
  uint64_t done_at;    /* completion cycle; UINT64_MAX: waiting for a reply */
  uint64_t ack_at;     /* store acknowledgement cycle; UINT64_MAX: waiting; 0: none */
  uint32_t warp;
  bool completed, is_store;
  mem_req *to_send;    /* request not yet accepted by ports.send */
} fake_op;

struct simt_ldst {
  simt_ldst_config cfg;
  simt_ldst_ports ports;
  bool traffic;
  uint32_t latency;
  fake_op *ops;
  uint32_t n_ops, cap;
  uint32_t *stores;     /* pending stores per warp */
  uint64_t issued_at;   /* cycle + 1 of the last issue */
  uint64_t issued;
  uint64_t last_now;    /* cycle of the last advance */
  mem_req_pool *pool;
  bool own_pool;
};

static simt_ldst *create(const simt_ldst_config *config, simt_ldst_ports ports, bool traffic,
                         simtvp_diag *diag) {
  simt_ldst *u = calloc(1, sizeof *u);
  if (!u) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fake LDST: out of memory");
    return NULL;
  }
  u->cfg = *config;
  u->ports = ports;
  u->traffic = traffic;
  u->latency = config->l1d_latency ? config->l1d_latency : 1;
  u->stores = calloc(config->max_warps ? config->max_warps : 1, sizeof *u->stores);
  u->pool = config->pool;
  if (!u->pool) {
    u->pool = mem_req_pool_create();
    u->own_pool = true;
  }
  return u;
}

static simt_ldst *f_create(const simt_ldst_config *c, simt_ldst_ports p, simtvp_diag *d) { return create(c, p, false, d); }
static simt_ldst *t_create(const simt_ldst_config *c, simt_ldst_ports p, simtvp_diag *d) { return create(c, p, true, d); }

static void f_destroy(simt_ldst *u) {
  if (!u) return;
  for (uint32_t i = 0; i < u->n_ops; i++)
    if (u->ops[i].to_send) mem_req_free(u->ops[i].to_send);
  free(u->ops);
  free(u->stores);
  if (u->own_pool) mem_req_pool_destroy(u->pool);
  free(u);
}

static bool f_can_issue(const simt_ldst *u, uint64_t now) { return u->issued_at != now + 1; }

static fake_op *new_op(simt_ldst *u) {
  if (u->n_ops == u->cap) {
    u->cap = u->cap ? u->cap * 2 : 16;
    u->ops = realloc(u->ops, u->cap * sizeof *u->ops);
  }
  fake_op *op = &u->ops[u->n_ops++];
  memset(op, 0, sizeof *op);
  return op;
}

static void f_issue(simt_ldst *u, uint32_t warp, const func_step *st, uint64_t tag, uint64_t now) {
  u->issued_at = now + 1;
  u->issued++;
  fake_op *op = new_op(u);
  op->tag = tag;
  op->warp = warp;
  op->is_store = st->is_store && !st->is_load && !st->is_atomic;
  bool memory = st->space == PTX_SPACE_GLOBAL || st->space == PTX_SPACE_LOCAL || st->space == PTX_SPACE_GENERIC;
  if (u->traffic && memory && st->mem_mask) {
    mem_req *r = mem_req_alloc(u->pool);
    uint32_t lane = (uint32_t)__builtin_ctz(st->mem_mask);
    r->addr = st->addr[lane] & ~31ull;
    r->size = 32;
    r->kind = op->is_store ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    r->is_write = op->is_store;
    r->needs_reply = true;
    r->sm = (uint16_t)u->cfg.sm;
    r->cluster = (uint16_t)u->cfg.cluster;
    r->warp = (uint16_t)warp;
    r->owner_ctx = u;
    r->owner_tag = tag;
    op->to_send = r;
    op->done_at = op->is_store ? now + 1 : UINT64_MAX;
    op->ack_at = op->is_store ? UINT64_MAX : 0;
  } else {
    op->done_at = op->is_store ? now + 1 : now + u->latency;
    op->ack_at = op->is_store ? now + u->latency : 0;
  }
  if (op->is_store) u->stores[warp]++;
}

static bool f_reply(simt_ldst *u, mem_req *reply, uint64_t now) {
  for (uint32_t i = 0; i < u->n_ops; i++) {
    fake_op *op = &u->ops[i];
    if (op->tag != reply->owner_tag || op->to_send) continue;
    if (op->is_store) op->ack_at = now + 1;
    else op->done_at = now + 1;
    break;
  }
  mem_req_free(reply);
  return true;
}

static void f_advance(simt_ldst *u, uint64_t now) {
  u->last_now = now;
  for (uint32_t i = 0; i < u->n_ops; i++) {
    fake_op *op = &u->ops[i];
    if (op->to_send && u->ports.send(u->ports.ctx, op->to_send, now)) op->to_send = NULL;
  }
  for (uint32_t i = 0; i < u->n_ops;) {
    fake_op *op = &u->ops[i];
    if (!op->completed && op->done_at <= now) {
      op->completed = true;
      u->ports.complete(u->ports.ctx, op->warp, op->tag, now);
      op = &u->ops[i];
    }
    if (op->is_store && op->ack_at && op->ack_at <= now) {
      u->stores[op->warp]--;
      op->ack_at = 0;
    }
    if (op->completed && !op->ack_at && !op->to_send) {
      u->ops[i] = u->ops[--u->n_ops];
      continue;
    }
    i++;
  }
}

static uint64_t f_next_event(const simt_ldst *u) {
  uint64_t t = SIMT_LDST_NEVER;
  for (uint32_t i = 0; i < u->n_ops; i++) {
    const fake_op *op = &u->ops[i];
    if (op->to_send && u->last_now + 1 < t) t = u->last_now + 1; /* send (again) next cycle */
    if (!op->completed && op->done_at < t) t = op->done_at;
    if (op->ack_at && op->ack_at < t) t = op->ack_at;
  }
  return t;
}

static uint32_t f_pending_stores(const simt_ldst *u, uint32_t warp) { return u->stores[warp]; }
static bool f_idle(const simt_ldst *u) { return u->n_ops == 0; }
static uint32_t f_flush(simt_ldst *u, uint64_t now) {
  (void)u, (void)now;
  return 0;
}
static void f_invalidate(simt_ldst *u) { (void)u; }
static void f_dump(const simt_ldst *u, void (*line)(void *ctx, const char *text), void *ctx) {
  char buf[128];
  snprintf(buf, sizeof buf, " fake LDST: %u instructions in flight", u->n_ops);
  line(ctx, buf);
}

uint64_t fake_ldst_issued(const simt_ldst *u) { return u->issued; }

static const simt_ldst_iface fake = {f_create,   f_destroy,        f_can_issue, f_issue, f_reply,
                                     f_advance,  f_next_event,     f_pending_stores,
                                     f_idle,     f_flush,          f_invalidate, f_dump, NULL, NULL};
static const simt_ldst_iface fake_traffic = {t_create,  f_destroy,    f_can_issue,      f_issue,
                                             f_reply,   f_advance,    f_next_event,     f_pending_stores,
                                             f_idle,    f_flush,      f_invalidate,     f_dump, NULL, NULL};

const simt_ldst_iface *fake_ldst_iface(void) { return &fake; }
const simt_ldst_iface *fake_ldst_traffic_iface(void) { return &fake_traffic; }
