/* func_tex — the texture/surface descriptor ABI between the CUDA runtime and the GPU.
 *
 * A texture object (cudaTextureObject_t) or surface object (cudaSurfaceObject_t) handle is the
 * device address of a func_tex_desc in global memory, written by whoever creates the object (the
 * runtime's cudaCreateTextureObject / cudaCreateSurfaceObject, or a test). The functional engine
 * reads it when a tex, tld4, txq, suld, sust or suq instruction executes (PTX ISA 9.7.10-11), so a
 * descriptor must stay in place while kernels may use it. Texel memory is pitch-linear: texel
 * (x, y, z, layer) of a resource lives at
 *   data + layer * layer_pitch + z * slice_pitch + y * pitch + x * texel_bytes
 * (CUDA arrays are allocated that way by the runtime; pitch-2D and linear resources are that way
 * already). Sampling follows the CUDA Programming Guide's "Texture Fetching" appendix: point and
 * linear filtering (linear weights with 8 fractional bits), wrap/clamp/mirror/border addressing,
 * normalised coordinates, normalised-float read mode. */
#ifndef SIMTVP_FUNC_TEX_H
#define SIMTVP_FUNC_TEX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FUNC_TEX_MAGIC 0x44584554u /* "TEXD" little-endian */

enum { FUNC_TEX_RES_LINEAR = 1, FUNC_TEX_RES_PITCH2D = 2, FUNC_TEX_RES_ARRAY = 3 };
enum { FUNC_TEX_ADDR_WRAP = 0, FUNC_TEX_ADDR_CLAMP = 1, FUNC_TEX_ADDR_MIRROR = 2, FUNC_TEX_ADDR_BORDER = 3 };
enum { FUNC_TEX_FILTER_POINT = 0, FUNC_TEX_FILTER_LINEAR = 1 };

typedef struct func_tex_desc {
  uint32_t magic;            /* FUNC_TEX_MAGIC */
  uint8_t resource;          /* FUNC_TEX_RES_* */
  uint8_t dims;              /* 1, 2 or 3 */
  uint8_t layered;           /* 1 for 1D/2D layered arrays */
  uint8_t cube;              /* 1 for cubemaps (6 faces as layers) */
  uint8_t channels;          /* 1, 2 or 4 */
  uint8_t channel_type;      /* ptx_type of one channel: U8 S8 U16 S16 U32 S32 F16 F32 */
  uint8_t read_normalized;   /* integer channels read as floats in [0,1] / [-1,1] */
  uint8_t normalized_coords; /* coordinates in [0,1) */
  uint8_t filter;            /* FUNC_TEX_FILTER_* */
  uint8_t address[3];        /* FUNC_TEX_ADDR_* per dimension */
  uint32_t width, height, depth, layers; /* texels (height/depth 1 for fewer dimensions) */
  uint64_t data;             /* device address of texel (0,0,0) of layer 0 */
  uint64_t pitch;            /* bytes between rows */
  uint64_t slice_pitch;      /* bytes between 3D slices */
  uint64_t layer_pitch;      /* bytes between layers (layered and cube) */
  float border[4];           /* FUNC_TEX_ADDR_BORDER colour */
} func_tex_desc;

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_FUNC_TEX_H */
