/* gpu_image — the program image in device memory: a parsed PTX module (models/ptx) laid out as
 * one position-independent block that the driver writes and the GPU side reads back.
 *
 * Layout (docs/gpu-abi.md "Program image"): gpu_image_header, then the code region (one 16-byte
 * gpu_image_code_slot per instruction — the instruction fetch addresses, code_base + pc * 16 as
 * models/func expects), then a layout table and the module's arrays (the ptx_insn records among
 * them) with every pointer replaced by an offset into a string table.
 * Records are the host's struct layout (LP64, little-endian); their sizes are in the layout table
 * and checked on load, so a mismatch is an error, never a misread.
 *
 * The driver calls gpu_image_size/gpu_image_build; the SIMT side (models/func adapter) calls
 * gpu_image_load once per kernel's image address and gets a ptx_module back. */
#ifndef SIMTVP_GPU_IMAGE_H
#define SIMTVP_GPU_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "gpu_hw.h"
#include "ptx.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes gpu_image_build writes for m. */
uint64_t gpu_image_size(const ptx_module *m);
/* Writes the image of m into buf (size bytes, ≥ gpu_image_size). global/const base: the device
 * addresses of the module's segments (0 when empty). SIMTVP_ERR_ARG when buf is too small. */
simtvp_status gpu_image_build(const ptx_module *m, uint64_t global_base, uint64_t const_base,
                              void *buf, uint64_t size, simtvp_diag *diag);
/* Sets the header's load_id of an image built in buf (the driver numbers its loads). */
void gpu_image_set_load_id(void *buf, uint64_t load_id);

/* A loaded image: a read-only ptx_module view over one host copy of the image. */
typedef struct gpu_image {
  uint64_t addr;             /* device address it was loaded from */
  gpu_image_header header;
  const ptx_module *module;
} gpu_image;

/* Reads the image at addr through devmem and rebuilds the module. SIMTVP_ERR_FAULT (address in
 * the diag) when device memory cannot be read, SIMTVP_ERR_PARSE when the image is malformed. */
simtvp_status gpu_image_load(const gpu_mem_port *devmem, uint64_t addr, gpu_image **out,
                             simtvp_diag *diag);
/* The same from bytes already in host memory (copied). */
simtvp_status gpu_image_load_bytes(const void *bytes, uint64_t size, uint64_t addr,
                                   gpu_image **out, simtvp_diag *diag);
void gpu_image_free(gpu_image *img);

/* code_base for models/func's func_placement: the address of instruction 0. */
static inline uint64_t gpu_image_code_base(uint64_t image_addr, const gpu_image_header *h) {
  return image_addr + h->insn_offset;
}
/* Device address of a function (its first instruction): the value of a function pointer. */
static inline uint64_t gpu_image_function_addr(uint64_t image_addr, const gpu_image_header *h,
                                               const ptx_module *m, uint32_t function) {
  return gpu_image_insn_addr(image_addr, h, m->functions[function].first_insn);
}

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_IMAGE_H */
