/* gpu_simt_func — the SIMT side in functional mode: connects the CTA dispatcher's gpu_simt_port
 * to models/func. At kernel_begin it loads the kernel's program image from device memory (cached
 * by image address and load_id, so a module is decoded once), builds the func program with the
 * image's placement (.global/.const bases, code_base) and creates the launch; each launch_cta
 * runs that CTA to completion warp by warp (releasing barriers as they complete) and reports it
 * done at once. Faults, traps and barrier deadlocks end the CTA with their status; the details
 * (kernel, CTA, thread, PC, PTX line, address) go to the message port.
 *
 * With func_config.threads > 1 (-func_threads) a kernel runs whole instead: the dispatcher still
 * places its CTAs one by one, but the first one it hands over runs the entire grid as one
 * func_launch_run spread over the host threads (CTA i on %smid i % n_sms) and reports the
 * kernel's result (its first fault); the other CTAs are reported done at once. Functional mode
 * completes CTAs inside launch_cta, so the dispatcher hands a kernel's CTAs over back to back and
 * the order of memory effects between kernels is unchanged. Results that depend on the order of
 * CTAs (atomics' return values, float atomic sums, races, printf order) may differ from run to
 * run; a fault stops the rest of the kernel (one-by-one mode runs the remaining CTAs). With one
 * thread, CTAs run one by one.
 *
 * Timing models replace this adapter with their SIMT cores on the same port. */
#ifndef SIMTVP_GPU_SIMT_FUNC_H
#define SIMTVP_GPU_SIMT_FUNC_H

#include <stdint.h>

#include "devmem.h"
#include "func.h"
#include "gpu_disp.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_simt_func gpu_simt_func;

typedef struct gpu_simt_func_ports {
  /* A CTA finished (called from inside launch_cta in this adapter): forward to
   * gpu_disp_cta_done / gpuctl_cta_done with the current cycle. */
  struct {
    void *ctx;
    void (*done)(void *ctx, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r);
  } cta_done;
  simtvp_msg_port messages; /* fault reports, image load failures */
  /* The control cycle now (optional: replayable-fault stall cycles count 0 without it). */
  struct { void *ctx; uint64_t (*now)(void *ctx); } cycle;
  /* (addition) Call gpu_simt_func_resume at core cycle `cycle` (an earlier request may be
   * replaced by a later one's earlier cycle). Optional: without it CTAs never yield. */
  struct { void *ctx; void (*at)(void *ctx, uint64_t cycle); } resume;
} gpu_simt_func_ports;

/* engine/func_ports as for func_create (mem and st are not owned; st may be NULL). */
gpu_simt_func *gpu_simt_func_create(const func_config *engine, const func_ports *func_ports,
                                    devmem *mem, stats *st, gpu_simt_func_ports ports,
                                    simtvp_diag *diag);
void gpu_simt_func_destroy(gpu_simt_func *s);
/* The port to hand to the dispatcher (gpuctl_ports.simt). */
gpu_simt_port gpu_simt_func_port(gpu_simt_func *s);
/* Device-memory port over the same store (gpuctl_ports.devmem). */
gpu_mem_port gpu_simt_func_devmem_port(gpu_simt_func *s);
/* Bounded steps (docs/system-modes.md §2.4; one CTA at a time, not whole-kernel mode): while the
 * store holds an external mapping (host memory mapped into the GPU, devmem_has_external), a CTA
 * (or cluster) that has run `warp_insns` warp instructions in a step without ending yields: it
 * resumes in a later step, `warp_insns run` core cycles later (one warp instruction per cycle),
 * through the resume port, so a kernel that waits for the host lets simulated time (and the host)
 * advance. 0 (default): every CTA runs to its end inside launch_cta, as without host memory.
 * Statistics (from the first yield): func.step_yields. */
void gpu_simt_func_set_step(gpu_simt_func *s, uint64_t warp_insns);
/* Runs the yielded groups due at or before `cycle` (the cycle the resume port asked for), each
 * for one more step; reports those that end through cta_done and asks for the next resume. */
void gpu_simt_func_resume(gpu_simt_func *s, uint64_t cycle);
/* CTAs have yielded and wait for a resume (the side is not idle). */
bool gpu_simt_func_busy(const gpu_simt_func *s);
/* The last fault's full report (SIMTVP_OK when none). */
const simtvp_diag *gpu_simt_func_last_fault(const gpu_simt_func *s);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_SIMT_FUNC_H */
