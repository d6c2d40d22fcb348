/* gpu_launcher — what every SIMT side of the GPU (functional adapter, AT and CA timing cores)
 * needs between the CTA dispatcher and models/func: at kernel_begin it reads the kernel's program
 * image from device memory (cached by image address and load_id, so a module is decoded once;
 * with the GPU's MMU attached, through the kernel's address space, and the launch's global
 * accesses are then translated by that MMU too: docs/vm.md),
 * builds the func program with the image's placement (.global/.const bases, code_base) and
 * creates the func_launch for the dispatcher slot; at kernel_end it destroys that launch. Cores
 * look a running kernel up by its slot.
 *
 * A timing model may attach its own per-program data (e.g. decode tables built from the
 * ptx_module) to each cached image: built once when the image is first decoded, freed with it.
 * Images used by running kernels are never evicted from the cache. */
#ifndef SIMTVP_GPU_LAUNCHER_H
#define SIMTVP_GPU_LAUNCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "func.h"
#include "gpu_hw.h"
#include "ptx.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_launcher gpu_launcher;

/* Per-image data of a timing model (optional). build returns NULL and fills diag on failure
 * (the kernel is then refused with that status). */
typedef struct gpu_launcher_attach {
  void *ctx;
  void *(*build)(void *ctx, const ptx_module *m, simtvp_diag *diag);
  void (*free)(void *ctx, void *data);
} gpu_launcher_attach;

/* engine and devmem are not owned; attach may be NULL. */
gpu_launcher *gpu_launcher_create(func_engine *engine, gpu_mem_port devmem,
                                  const gpu_launcher_attach *attach, simtvp_diag *diag);
/* Images loaded from now on have the loads of each basic block hoisted ahead of independent
 * instructions, as ptxas schedules them (ptx_hoist_loads; -ptx_hoist_loads). Values are the same
 * either way; timing models see the hoisted order. */
void gpu_launcher_set_hoist_loads(gpu_launcher *l, bool on);
void gpu_launcher_destroy(gpu_launcher *l);
/* Attaches the GPU's MMU (gpu_simt_port.mmu_attach): later kernels read their image and translate
 * their global addresses through the kernel's PDB (gpu_launch_desc.pdb). Without it, device
 * addresses are physical. */
void gpu_launcher_set_mmu(gpu_launcher *l, const gpu_mmu_port *mmu);
/* The attached MMU (NULL when none). */
const gpu_mmu_port *gpu_launcher_mmu(const gpu_launcher *l);

/* kernel_begin: loads (or finds) the image of k, creates its launch in slot k->slot. false when
 * the image cannot be read or decoded or the launch cannot be created: *why gets the status,
 * the address (fault address or the image address) and pc, and diag the full report. */
bool gpu_launcher_begin(gpu_launcher *l, const gpu_kernel *k, gpu_kernel_result *why,
                        simtvp_diag *diag);
/* kernel_end: destroys the launch of k (its CTAs must have finished). */
void gpu_launcher_end(gpu_launcher *l, const gpu_kernel *k);

/* The running kernel in a dispatcher slot: NULL when none (or it was refused). */
func_launch *gpu_launcher_launch(const gpu_launcher *l, uint32_t slot);
const func_program *gpu_launcher_program(const gpu_launcher *l, uint32_t slot);
const ptx_module *gpu_launcher_module(const gpu_launcher *l, uint32_t slot);
/* The timing model's attachment of the slot's image (NULL without attach). */
void *gpu_launcher_attachment(const gpu_launcher *l, uint32_t slot);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_LAUNCHER_H */
