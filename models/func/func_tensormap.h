/* func_tensormap — the tensor-map ABI between the CUDA driver API and the GPU (Hopper's Tensor
 * Memory Accelerator, PTX ISA 5.5 "Tensors", 9.7.9.25.5 cp.async.bulk.tensor).
 *
 * A CUtensorMap is a 128-byte, 64-byte aligned object the program treats as opaque: the driver's
 * cuTensorMapEncodeTiled writes it (in host memory), the program passes it to a kernel (usually as
 * a `const __grid_constant__ CUtensorMap` parameter, or in global/constant memory), and
 * cp.async.bulk.tensor reads it through its address. simtvp's layout is func_tensor_map below;
 * func_tensor_map_encode_tiled checks the arguments exactly as CUDA documents them for
 * cuTensorMapEncodeTiled and writes one. Element (c0, …, c{r-1}) of the tensor lives at
 *   global_address + c0 * elem_bytes + c1 * stride[0] + … + c{r-1} * stride[r-2]
 * and a box of box[i] elements per dimension (every elem_stride[i]-th of them for i >= 1) lands in
 * shared memory densely, dimension 0 fastest, with the swizzle pattern applied to the shared
 * addresses (16-byte units XOR-ed with the row of 128 bytes, as CU_TENSOR_MAP_SWIZZLE_* says). */
#ifndef SIMTVP_FUNC_TENSORMAP_H
#define SIMTVP_FUNC_TENSORMAP_H

#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FUNC_TMAP_MAGIC 0x50414d54u /* "TMAP" little-endian */
#define FUNC_TMAP_BYTES 128u
#define FUNC_TMAP_MAX_RANK 5u

/* CUtensorMapDataType, CUtensorMapSwizzle, CUtensorMapFloatOOBfill values (cuda.h) */
enum {
  FUNC_TMAP_U8 = 0, FUNC_TMAP_U16, FUNC_TMAP_U32, FUNC_TMAP_S32, FUNC_TMAP_U64, FUNC_TMAP_S64, FUNC_TMAP_F16,
  FUNC_TMAP_F32, FUNC_TMAP_F64, FUNC_TMAP_BF16, FUNC_TMAP_F32_FTZ, FUNC_TMAP_TF32, FUNC_TMAP_TF32_FTZ,
  FUNC_TMAP_TYPES
};
enum { FUNC_TMAP_SWIZZLE_NONE = 0, FUNC_TMAP_SWIZZLE_32B, FUNC_TMAP_SWIZZLE_64B, FUNC_TMAP_SWIZZLE_128B };

typedef struct func_tensor_map {
  uint32_t magic;                        /* FUNC_TMAP_MAGIC */
  uint8_t rank;                          /* 1 .. 5 */
  uint8_t data_type;                     /* FUNC_TMAP_* (CUtensorMapDataType) */
  uint8_t elem_bytes;                    /* 1, 2, 4 or 8 */
  uint8_t swizzle;                       /* FUNC_TMAP_SWIZZLE_* */
  uint8_t oob_nan;                       /* out-of-bounds elements read as NaN (else zero) */
  uint8_t elem_stride[FUNC_TMAP_MAX_RANK]; /* traversal stride per dimension (1 .. 8) */
  uint8_t reserved[2];
  uint32_t box[FUNC_TMAP_MAX_RANK];      /* elements traversed per dimension (1 .. 256) */
  uint32_t dim[FUNC_TMAP_MAX_RANK];      /* tensor size per dimension, elements (dim - 1 stored
                                            would not fit 2^32; dim 2^32 is refused) */
  uint64_t stride[FUNC_TMAP_MAX_RANK - 1]; /* bytes between steps of dimensions 1 .. rank-1 */
  uint64_t global_address;               /* 16-byte aligned */
  uint8_t pad[FUNC_TMAP_BYTES - 96];
} func_tensor_map;

/* Writes a tiled tensor map (cuTensorMapEncodeTiled's arguments and checks; interleave must be
 * NONE and l2_promotion is a hint). SIMTVP_ERR_ARG with a message naming the argument when CUDA
 * would answer CUDA_ERROR_INVALID_VALUE; SIMTVP_ERR_UNSUPPORTED for forms simtvp does not model
 * (interleaved layouts, the packed sub-byte types, the 128B_ATOM swizzles). */
simtvp_status func_tensor_map_encode_tiled(func_tensor_map *out, uint32_t data_type, uint32_t rank,
                                           uint64_t global_address, const uint64_t *global_dim,
                                           const uint64_t *global_strides, const uint32_t *box_dim,
                                           const uint32_t *element_strides, uint32_t interleave, uint32_t swizzle,
                                           uint32_t l2_promotion, uint32_t oob_fill, simtvp_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_FUNC_TENSORMAP_H */
