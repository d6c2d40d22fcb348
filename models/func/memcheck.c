/* memcheck — the functional engine's memory checker (func_config.memcheck; docs/memcheck.md).
 *
 * Like compute-sanitizer's memcheck: every lane of a global ld/ldu/st/atom/red (also through a
 * generic address that resolves to global memory) must lie inside one live block of the device
 * memory (devmem_block_add: the driver declares each allocation through the GPU's MEMMAP registers).
 * An access that does not stops the kernel as a fault (SIMTVP_ERR_FAULT, reported by fx_fault with
 * kernel, CTA, thread, PC, PTX and source line) whose message says what the address is: past the
 * end or before the start of the nearest live block, inside a block freed earlier (use after free),
 * or far from every block — with that block's size, address, allocation number and site.
 * Shared, local and kernel-parameter accesses need no wrapper: the engine checks them exactly
 * against the CTA's shared memory, the thread's local frame and the parameter buffer always.
 *
 * Cost: when memcheck is off nothing here runs (the handlers are not wrapped). When on, each
 * checked instruction computes its lanes' addresses and looks each lane up (a binary search over
 * the live blocks) before its own handler runs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "func_internal.h"

/* Bytes one lane accesses, for the instructions memcheck wraps (0: not wrapped). */
static uint32_t access_bytes(const fx_insn *in) {
  switch ((ptx_opcode)in->src->opcode) {
  case PTX_OP_LD:
  case PTX_OP_LDU:
  case PTX_OP_ST: return (uint32_t)in->size * (in->vec ? in->vec : 1u);
  case PTX_OP_ATOM:
  case PTX_OP_RED: return in->size;
  default: return 0;
  }
}

static const char *access_kind(const fx_insn *in) {
  switch ((ptx_opcode)in->src->opcode) {
  case PTX_OP_ST: return "write";
  case PTX_OP_ATOM:
  case PTX_OP_RED: return "atomic";
  default: return "read";
  }
}

/* "a 4096-byte block at 0x… (allocation #3, allocated at app+0x11a9)" */
static void describe(const func_engine *e, const devmem_block *b, char *buf, size_t size) {
  int n = (b->flags & DEVMEM_BLOCK_INTERNAL)
              ? snprintf(buf, size, "a %" PRIu64 "-byte block at 0x%" PRIx64 " (the driver's: program image, module "
                         "data or device heap", b->size, b->addr)
              : snprintf(buf, size, "a %" PRIu64 "-byte block at 0x%" PRIx64 " (allocation #%u", b->size, b->addr,
                         b->serial);
  if (n < 0 || (size_t)n >= size) return;
  if (b->tag) {
    char site[160] = "";
    if (e->ports.site_name && e->ports.site_name(e->ports.ctx, b->tag, site, sizeof site) > 0)
      n += snprintf(buf + n, size - (size_t)n, ", allocated at %s", site);
    else
      n += snprintf(buf + n, size - (size_t)n, ", allocated at host 0x%" PRIx64, b->tag);
  }
  if (n >= 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, ")");
}

/* What [a, a+bytes) is, when it is not inside one live block the kernel may touch: relative to
 * the nearest blocks of the program (the driver's own blocks are named only when the address lies
 * in one, e.g. a program image right after the block the kernel ran off). */
static void explain(const func_engine *e, uint64_t a, uint32_t bytes, char *why, size_t size) {
  const devmem *dm = e->mem;
  char blk[320], note[360] = "";
  const devmem_block *in = devmem_block_at(dm, a);
  if (in && !(in->flags & DEVMEM_BLOCK_CODE)) { /* starts inside a block, runs past its end */
    describe(e, in, blk, sizeof blk);
    snprintf(why, size, "out of bounds: its last %" PRIu64 " bytes lie past the end of %s",
             a + bytes - (in->addr + in->size), blk);
    return;
  }
  if (in) { /* a program image */
    describe(e, in, blk, sizeof blk);
    snprintf(note, sizeof note, "; the address lies in a program image, %s", blk);
  }
  devmem_block freed;
  if (!in && devmem_block_freed(dm, a, &freed)) {
    describe(e, &freed, blk, sizeof blk);
    snprintf(why, size, "use after free: %" PRIu64 " bytes into %s, freed before this access", a - freed.addr,
             blk);
    return;
  }
  const devmem_block *below, *above;
  devmem_block_near(dm, a, DEVMEM_BLOCK_INTERNAL, &below, &above);
  if (!below && !above) devmem_block_near(dm, a, DEVMEM_BLOCK_CODE, &below, &above);
  uint64_t past = below ? a - (below->addr + below->size) : UINT64_MAX;
  uint64_t before = above ? above->addr - a : UINT64_MAX;
  if (below && past <= before) {
    describe(e, below, blk, sizeof blk);
    if (past == 0)
      snprintf(why, size, "out of bounds: right after the end of %s%s", blk, note);
    else
      snprintf(why, size, "out of bounds: %" PRIu64 " bytes past the end of %s%s", past, blk, note);
  } else if (above) {
    describe(e, above, blk, sizeof blk);
    snprintf(why, size, "out of bounds: %" PRIu64 " bytes before the start of %s%s", before, blk, note);
  } else {
    snprintf(why, size, "out of bounds: no live allocation in device memory%s", note);
  }
}

/* Inside one live block that is not a program image. */
static bool lane_ok(const devmem *dm, uint64_t a, uint32_t bytes) {
  const devmem_block *b = devmem_block_at(dm, a);
  return b && !(b->flags & DEVMEM_BLOCK_CODE) && a + bytes - b->addr <= b->size && a + bytes >= a;
}

static void memcheck_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  const func_program *p = w->l->p;
  uint32_t pc = (uint32_t)(in - p->code);
  if (m) {
    const func_engine *e = w->l->e;
    uint32_t bytes = access_bytes(in);
    uint64_t addr[32];
    fx_addr_gen(w, in, m, addr);
    FX_FOR_LANES(i, m) {
      uint64_t a = addr[i], off;
      if (in->space == PTX_SPACE_GENERIC) {
        if (fx_generic_space(a, &off) != PTX_SPACE_GLOBAL) continue; /* shared/local: checked exactly */
      } else if (in->space != PTX_SPACE_GLOBAL) {
        continue;
      }
      if (lane_ok(e->mem, a, bytes)) continue;
      char why[512];
      explain(e, a, bytes, why, sizeof why);
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, a, "memcheck: invalid global %s of %u bytes at 0x%" PRIx64 ": %s",
               access_kind(in), bytes, a, why);
      return;
    }
  }
  p->mc_inner[pc](w, in, m);
}

simtvp_status fx_memcheck_wrap(func_program *p, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  p->mc_inner = calloc(m->n_insns + 1, sizeof *p->mc_inner);
  if (!p->mc_inner) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  for (uint32_t pc = 0; pc < m->n_insns; pc++) {
    fx_insn *in = &p->code[pc];
    if (!in->fn || in->cls != FX_C_MEM || !in->src || !access_bytes(in)) continue;
    if (in->space != PTX_SPACE_GLOBAL && in->space != PTX_SPACE_GENERIC) continue;
    p->mc_inner[pc] = in->fn;
    in->fn = memcheck_h;
  }
  return SIMTVP_OK;
}

uint32_t func_memcheck_report_leaks(const devmem *mem, size_t (*site_name)(void *ctx, uint64_t tag, char *buf, size_t size),
                                    void *site_ctx, const simtvp_msg_port *msg) {
  uint32_t n, leaks = 0;
  uint64_t bytes = 0;
  char text[400];
  const devmem_block *b = devmem_blocks(mem, &n);
  for (uint32_t i = 0; i < n; i++) {
    if (b[i].flags & DEVMEM_BLOCK_INTERNAL) continue;
    char site[200] = "";
    if (b[i].tag) {
      char name[160] = "";
      if (site_name && site_name(site_ctx, b[i].tag, name, sizeof name) > 0)
        snprintf(site, sizeof site, ", allocated at %s", name);
      else
        snprintf(site, sizeof site, ", allocated at host 0x%" PRIx64, b[i].tag);
    }
    snprintf(text, sizeof text, "memcheck: leak: %" PRIu64 " bytes at 0x%" PRIx64 " (allocation #%u%s) were never freed",
             b[i].size, b[i].addr, b[i].serial, site);
    if (msg && msg->emit) msg->emit(msg->ctx, SIMTVP_WARNING, text);
    leaks++;
    bytes += b[i].size;
  }
  snprintf(text, sizeof text, "memcheck: %u allocation%s (%" PRIu64 " bytes) leaked", leaks, leaks == 1 ? "" : "s", bytes);
  if (msg && msg->emit) msg->emit(msg->ctx, leaks ? SIMTVP_WARNING : SIMTVP_INFO, text);
  return leaks;
}
