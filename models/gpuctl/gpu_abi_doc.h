/* gpu_abi_doc — renders the tables of gpu_abi.h as Markdown (docs/gpu-abi.md). A tool, not a
 * model core: it writes to a FILE. */
#ifndef SIMTVP_GPU_ABI_DOC_H
#define SIMTVP_GPU_ABI_DOC_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

void gpu_abi_write_markdown(FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_ABI_DOC_H */
