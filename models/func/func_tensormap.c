/* func_tensormap — cuTensorMapEncodeTiled's checks and simtvp's tensor-map layout
 * (func_tensormap.h). The rules are the CUDA Driver API reference's for cuTensorMapEncodeTiled. */
#include "func_tensormap.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

_Static_assert(sizeof(func_tensor_map) == FUNC_TMAP_BYTES, "a tensor map is 128 bytes (CUtensorMap)");

static const uint8_t kElemBytes[FUNC_TMAP_TYPES] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

simtvp_status func_tensor_map_encode_tiled(func_tensor_map *out, uint32_t data_type, uint32_t rank,
                                           uint64_t global_address, const uint64_t *global_dim,
                                           const uint64_t *global_strides, const uint32_t *box_dim,
                                           const uint32_t *element_strides, uint32_t interleave, uint32_t swizzle,
                                           uint32_t l2_promotion, uint32_t oob_fill, simtvp_diag *diag) {
  if (!out) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "tensorMap is NULL");
  if (((uintptr_t)out) % 64) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "tensorMap %p is not 64-byte aligned", (void *)out);
  if (data_type >= 13 && data_type <= 15)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED, "tensorDataType %u (packed sub-byte values) is not supported by "
                           "simtvp", data_type);
  if (data_type >= FUNC_TMAP_TYPES) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "tensorDataType %u is not a CUtensorMapDataType", data_type);
  if (rank < 1 || rank > FUNC_TMAP_MAX_RANK) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "tensorRank %u is not 1 to 5", rank);
  if (interleave > 2) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "interleave %u is not a CUtensorMapInterleave", interleave);
  if (interleave != 0)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED, "interleaved tensor layouts (interleave %u) are not supported by "
                           "simtvp", interleave);
  if (swizzle > 6) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "swizzle %u is not a CUtensorMapSwizzle", swizzle);
  if (swizzle > FUNC_TMAP_SWIZZLE_128B)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED, "swizzle %u (a 128B atom mode) is not supported by simtvp", swizzle);
  if (l2_promotion > 3) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "l2Promotion %u is not a CUtensorMapL2promotion", l2_promotion);
  if (oob_fill > 1) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "oobFill %u is not a CUtensorMapFloatOOBfill", oob_fill);
  bool is_float = data_type >= FUNC_TMAP_F16;
  if (oob_fill && !is_float)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType");
  if (global_address % 16)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "globalAddress 0x%" PRIx64 " is not 16-byte aligned", global_address);
  if (!global_dim || !box_dim || !element_strides || (rank > 1 && !global_strides))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "globalDim, globalStrides, boxDim and elementStrides must be given");
  uint32_t eb = kElemBytes[data_type];
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < rank; i++) {
    if (global_dim[i] == 0 || global_dim[i] > 0xffffffffull)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "globalDim[%u] = %" PRIu64 " is not 1 to 2^32 - 1", i, global_dim[i]);
    if (box_dim[i] == 0 || box_dim[i] > 256)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "boxDim[%u] = %u is not 1 to 256", i, box_dim[i]);
    if (element_strides[i] == 0 || element_strides[i] > 8)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "elementStrides[%u] = %u is not 1 to 8", i, element_strides[i]);
    out->dim[i] = (uint32_t)global_dim[i];
    out->box[i] = box_dim[i];
    out->elem_stride[i] = (uint8_t)(i == 0 ? 1 : element_strides[i]); /* dimension 0 ignores it */
  }
  if ((box_dim[0] * eb) % 16)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "boxDim[0] * element size = %u bytes is not a multiple of 16",
                           box_dim[0] * eb);
  static const uint32_t span[] = {0, 32, 64, 128};
  if (swizzle && box_dim[0] * eb > span[swizzle])
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "the box's inner dimension, %u bytes, is larger than the %u-byte swizzle",
                           box_dim[0] * eb, span[swizzle]);
  for (uint32_t i = 0; i + 1 < rank; i++) {
    if (global_strides[i] % 16 || global_strides[i] >= (1ull << 40))
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "globalStrides[%u] = %" PRIu64 " is not a multiple of 16 below 2^40",
                             i, global_strides[i]);
    out->stride[i] = global_strides[i];
  }
  out->magic = FUNC_TMAP_MAGIC;
  out->rank = (uint8_t)rank;
  out->data_type = (uint8_t)data_type;
  out->elem_bytes = (uint8_t)eb;
  out->swizzle = (uint8_t)swizzle;
  out->oob_nan = (uint8_t)oob_fill;
  out->global_address = global_address;
  return SIMTVP_OK;
}
