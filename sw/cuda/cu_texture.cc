// cu_texture.cc — CUDA arrays (pitch-linear device memory, func_tex.h's layout) and texture /
// surface objects (descriptors in device memory whose address is the handle kernels use).
#include <cstring>

#include "cu_internal.h"

using namespace cucore;

namespace {

const uint64_t kRowAlign = 256;  // rows start on the device allocator's alignment

}  // namespace

extern "C" {

int cucore_array_create(cu_ctx *ctx, const cu_array_desc *desc, cu_array **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!desc || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !desc ? "the descriptor" : "the array");
  if (desc->channels != 1 && desc->channels != 2 && desc->channels != 4)
    return fail(CUDA_ERROR_INVALID_VALUE, "array with %u channels: 1, 2 or 4 are supported", desc->channels);
  if (desc->channel_bytes != 1 && desc->channel_bytes != 2 && desc->channel_bytes != 4)
    return fail(CUDA_ERROR_INVALID_VALUE, "array channels of %u bytes: 1, 2 or 4 are supported", desc->channel_bytes);
  if (desc->width == 0) return fail(CUDA_ERROR_INVALID_VALUE, "array of width 0");
  if (desc->cube && (desc->width != desc->height || desc->layers == 0 || desc->layers % 6))
    return fail(CUDA_ERROR_INVALID_VALUE, "a cubemap needs square faces and a multiple of 6 layers (%ux%u, %u layers)",
                desc->width, desc->height, desc->layers);
  auto a = std::make_unique<Array>();
  cu_array_info &in = a->info;
  in.desc = *desc;
  in.texel_bytes = desc->channels * desc->channel_bytes;
  uint64_t h = desc->height ? desc->height : 1, d = desc->depth ? desc->depth : 1, l = desc->layers ? desc->layers : 1;
  in.pitch = (uint64_t(desc->width) * in.texel_bytes + kRowAlign - 1) & ~(kRowAlign - 1);
  in.slice_pitch = in.pitch * h;
  in.layer_pitch = in.slice_pitch * d;
  uint64_t total = in.layer_pitch * l;
  if (total / l != in.layer_pitch || total > s.props.devmem_bytes)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "array of %ux%ux%u texels, %u layers, does not fit device memory",
                desc->width, (unsigned)h, (unsigned)d, (unsigned)l);
  Ctx *c = ctx_or_primary(s, ctx);
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_mem_alloc(s.d, total, &in.data, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    st = drv_memset(s.d, nullptr, drv_device_ptr(in.data), 0, 1, total, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
  if (r != CUDA_SUCCESS) return r;
  a->alloc = in.data;
  a->ctx = c;
  *out = reinterpret_cast<cu_array *>(s.arrays.add(std::move(a)));
  return CUDA_SUCCESS;
}

int cucore_array_destroy(cu_array *handle) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  Array *a = s.arrays.get(handle);
  if (!a) return fail(CUDA_ERROR_INVALID_HANDLE, "array %p is not a live array (freed twice?)", (void *)handle);
  uint64_t alloc = a->alloc;
  s.arrays.remove(a->handle);
  // Kernels or texture objects may still read it: free once the device is idle.
  return run(s, [&]() -> int {
    s.deferred_frees.push_back(alloc);
    if (device_idle(s)) flush_deferred_frees(s);
    return CUDA_SUCCESS;
  });
}

int cucore_array_info(const cu_array *handle, cu_array_info *info) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Array *a = s.arrays.get(handle);
  if (!a) return fail(CUDA_ERROR_INVALID_HANDLE, "array %p is not a live array", (const void *)handle);
  if (!info) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *info = a->info;
  return CUDA_SUCCESS;
}

void cucore_tex_array_resource(const cu_array_info *info, func_tex_desc *t) {
  t->resource = FUNC_TEX_RES_ARRAY;
  t->cube = info->desc.cube;
  t->dims = t->cube ? 2 : info->desc.depth ? 3 : info->desc.height ? 2 : 1;
  t->layered = info->desc.layers && !info->desc.cube;
  t->channels = info->desc.channels;
  t->channel_type = info->desc.channel_type;
  t->width = info->desc.width;
  t->height = info->desc.height ? info->desc.height : 1;
  t->depth = info->desc.depth ? info->desc.depth : 1;
  t->layers = info->desc.layers ? info->desc.layers : 1;
  t->data = info->data;
  t->pitch = info->pitch;
  t->slice_pitch = info->slice_pitch;
  t->layer_pitch = info->layer_pitch;
}

int cucore_tex_create(cu_ctx *ctx, const func_tex_desc *desc, uint64_t *handle) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!desc || !handle) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !desc ? "the descriptor" : "the handle");
  Ctx *c = ctx_or_primary(s, ctx);
  uint64_t addr = 0;
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_mem_alloc(s.d, sizeof *desc, &addr, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    drv_stream *ds = drv_default_stream(s.d);
    st = drv_memcpy(s.d, ds, drv_device_ptr(addr), drv_host_ptr(desc), sizeof *desc, &diag);
    // In place before any stream (blocking or not) can launch a kernel that reads it.
    if (st == SIMTVP_OK) st = drv_stream_sync(s.d, ds, &diag);
    if (st != SIMTVP_OK) {
      int rr = drv_fail(s, st, diag);
      simtvp_diag_clear(&diag);
      (void)drv_mem_free(s.d, addr, &diag);
      return rr;
    }
    return CUDA_SUCCESS;
  });
  if (r != CUDA_SUCCESS) return r;
  s.textures[addr] = Texture{*desc, c};
  *handle = addr;
  return CUDA_SUCCESS;
}

int cucore_tex_destroy(uint64_t handle) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  auto it = s.textures.find(handle);
  if (it == s.textures.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "0x%llx is not a live texture or surface object (destroyed twice?)",
                (unsigned long long)handle);
  s.textures.erase(it);
  return run(s, [&]() -> int {
    s.deferred_frees.push_back(handle);
    if (device_idle(s)) flush_deferred_frees(s);
    return CUDA_SUCCESS;
  });
}

int cucore_tex_get(uint64_t handle, func_tex_desc *desc) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  auto it = s.textures.find(handle);
  if (it == s.textures.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "0x%llx is not a live texture or surface object", (unsigned long long)handle);
  if (desc) *desc = it->second.desc;
  return CUDA_SUCCESS;
}

}  // extern "C"
