/* fuzz_gpuregs — the GPU's register block and command processor (models/gpuctl, firmware/cp) as a
 * driver sees them: BAR0 accesses of any offset and width, and packets on two enabled command
 * rings, on the test harness's memories and fake SIMT side (tests/gpuctl/gpu_harness.h). Every
 * bad access or packet must become an error interrupt, never a crash or a hang.
 *
 * Input: a sequence of commands, each a tag byte then its operands (little-endian):
 *   tag % 6 == 0  MMIO write: offset u16, width u8 (1, 2, 4 or other), value u32
 *   tag % 6 == 1  MMIO read:  offset u16, width u8
 *   tag % 6 == 2  packet dwords on ring (tag >> 3) & 1: count u8 (at most 64), count x u32
 *   tag % 6 == 3  an address dword pair on that ring: kind u8 (even: system scratch buffer, odd:
 *                 device memory), offset u16 — so copies and fences often name real memory
 *   tag % 6 == 4  run: cycles u16 x 64
 *   tag % 6 == 5  PUT and the doorbell of ring (tag >> 3) & 1
 * Afterwards the GPU runs until idle or 2 x 10^5 cycles. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gpu_abi.h"
#include "gpu_harness.h"

#define RING_BYTES 4096u

typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static uint32_t take(reader *r, unsigned bytes) {
  uint32_t v = 0;
  for (unsigned i = 0; i < bytes; i++) {
    uint32_t b = r->n ? *r->p : 0;
    if (r->n) {
      r->p++;
      r->n--;
    }
    v |= b << (8 * i);
  }
  return v;
}

typedef struct rings {
  uint64_t base[2];
  uint32_t put[2];
} rings;

static void push(gpu_harness *h, rings *rg, uint32_t c, uint32_t dw) {
  memcpy(gh_sys_ptr(h, rg->base[c] + rg->put[c]), &dw, 4);
  rg->put[c] = (rg->put[c] + 4) % RING_BYTES;
}

static void bell(gpu_harness *h, rings *rg, uint32_t c) {
  gh_mmio_write(h, GPU_CH_REG(c, GPU_REG_CH_PUT), rg->put[c]);
  gh_mmio_write(h, GPU_REG_DOORBELL, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gpuctl_config cfg;
  gh_default_config(&cfg);
  cfg.caps.devmem_bytes = 1u << 20; /* small: every input builds a fresh GPU */
  gpu_harness *h = gh_create(&cfg);
  h->cta_cycles = 50;
  rings rg = {{0, 0}, {0, 0}};
  gh_mmio_write(h, GPU_REG_INTR_ENABLE, 3);
  gh_mmio_write(h, GPU_REG_CTRL, 1);
  for (uint32_t c = 0; c < 2; c++) {
    rg.base[c] = gh_sys_alloc(h, RING_BYTES);
    gh_mmio_write(h, GPU_CH_REG(c, GPU_REG_CH_BASE_LO), (uint32_t)rg.base[c]);
    gh_mmio_write(h, GPU_CH_REG(c, GPU_REG_CH_BASE_HI), (uint32_t)(rg.base[c] >> 32));
    gh_mmio_write(h, GPU_CH_REG(c, GPU_REG_CH_SIZE), RING_BYTES);
    gh_mmio_write(h, GPU_CH_REG(c, GPU_REG_CH_CTRL), 1);
  }
  uint64_t scratch = gh_sys_alloc(h, 1u << 16);
  reader r = {data, size};
  for (unsigned steps = 0; r.n && steps < 4096; steps++) {
    uint32_t tag = take(&r, 1);
    uint32_t c = (tag >> 3) & 1u;
    switch (tag % 6) {
    case 0: {
      uint32_t off = take(&r, 2), width = take(&r, 1), v = take(&r, 4);
      gpuctl_mmio_write(h->g, off, width, v, h->now);
      break;
    }
    case 1: {
      uint32_t off = take(&r, 2), width = take(&r, 1);
      (void)gpuctl_mmio_read(h->g, off, width, h->now);
      break;
    }
    case 2: {
      uint32_t n = take(&r, 1) % 65u;
      for (uint32_t i = 0; i < n; i++) push(h, &rg, c, take(&r, 4));
      break;
    }
    case 3: {
      uint32_t kind = take(&r, 1), off = take(&r, 2);
      uint64_t a = (kind & 1) ? h->dev_base + off : scratch + off;
      push(h, &rg, c, (uint32_t)a);
      push(h, &rg, c, (uint32_t)(a >> 32));
      break;
    }
    case 4:
      gh_run(h, (uint64_t)take(&r, 2) * 64u);
      break;
    default:
      bell(h, &rg, c);
      break;
    }
  }
  gh_run(h, 200000);
  gh_destroy(h);
  return 0;
}
