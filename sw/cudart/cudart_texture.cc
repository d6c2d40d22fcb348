// cudart_texture.cc — CUDA arrays, channel descriptors, copies to and from arrays, texture and
// surface objects (func_tex.h's descriptor ABI; docs/cudart.md "Textures and surfaces").
#include <cstring>
#include <map>
#include <mutex>

#include "cudart_internal.h"
#include "ptx.h"

using namespace rt;

namespace {

cu_array *array_of(cudaArray_const_t a) { return reinterpret_cast<cu_array *>(const_cast<cudaArray *>(a)); }

// The channel format of a descriptor: channels, bytes per channel, ptx_type of a channel.
cudaError_t channel_format(const char *api, const cudaChannelFormatDesc &d, uint8_t *channels, uint8_t *bytes,
                           uint8_t *type) {
  int bits[4] = {d.x, d.y, d.z, d.w}, n = 0;
  for (int i = 0; i < 4; i++) {
    if (bits[i] == 0) break;
    if (bits[i] != d.x)
      return fail(api, cudaErrorInvalidChannelDescriptor, "channels of different sizes (%d,%d,%d,%d bits)", d.x, d.y, d.z,
                  d.w);
    n++;
  }
  for (int i = n; i < 4; i++)
    if (bits[i] != 0)
      return fail(api, cudaErrorInvalidChannelDescriptor, "channel sizes %d,%d,%d,%d bits leave a gap", d.x, d.y, d.z, d.w);
  if (n != 1 && n != 2 && n != 4)
    return fail(api, cudaErrorInvalidChannelDescriptor, "%d channels: 1, 2 or 4 are supported", n);
  if (d.x != 8 && d.x != 16 && d.x != 32)
    return fail(api, cudaErrorInvalidChannelDescriptor, "%d-bit channels: 8, 16 or 32 are supported", d.x);
  switch (d.f) {
    case cudaChannelFormatKindSigned:
      *type = d.x == 8 ? PTX_TYPE_S8 : d.x == 16 ? PTX_TYPE_S16 : PTX_TYPE_S32;
      break;
    case cudaChannelFormatKindUnsigned:
      *type = d.x == 8 ? PTX_TYPE_U8 : d.x == 16 ? PTX_TYPE_U16 : PTX_TYPE_U32;
      break;
    case cudaChannelFormatKindFloat:
      if (d.x == 8) return fail(api, cudaErrorInvalidChannelDescriptor, "8-bit float channels do not exist");
      *type = d.x == 16 ? PTX_TYPE_F16 : PTX_TYPE_F32;
      break;
    default:
      return fail(api, cudaErrorInvalidChannelDescriptor, "channel format kind %d is not supported by simtvp", (int)d.f);
  }
  *channels = (uint8_t)n;
  *bytes = (uint8_t)(d.x / 8);
  return cudaSuccess;
}

cudaChannelFormatDesc desc_of(const cu_array_desc &a) {
  cudaChannelFormatDesc d;
  std::memset(&d, 0, sizeof d);
  int bits = a.channel_bytes * 8;
  d.x = bits;
  d.y = a.channels >= 2 ? bits : 0;
  d.z = a.channels >= 4 ? bits : 0;
  d.w = a.channels >= 4 ? bits : 0;
  switch (a.channel_type) {
    case PTX_TYPE_S8: case PTX_TYPE_S16: case PTX_TYPE_S32: d.f = cudaChannelFormatKindSigned; break;
    case PTX_TYPE_F16: case PTX_TYPE_F32: d.f = cudaChannelFormatKindFloat; break;
    default: d.f = cudaChannelFormatKindUnsigned; break;
  }
  return d;
}

cudaError_t make_array(const char *api, cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t w, size_t h,
                       size_t depth, size_t layers, bool cube, unsigned flags) {
  if (!array || !desc) return fail(api, cudaErrorInvalidValue, "%s pointer is NULL", !array ? "the array" : "the descriptor");
  if (w == 0 || w > UINT32_MAX || h > UINT32_MAX || depth > UINT32_MAX || layers > UINT32_MAX)
    return fail(api, cudaErrorInvalidValue, "array extent %zu x %zu x %zu (%zu layers)", w, h, depth, layers);
  cu_array_desc a;
  std::memset(&a, 0, sizeof a);
  cudaError_t e = channel_format(api, *desc, &a.channels, &a.channel_bytes, &a.channel_type);
  if (e != cudaSuccess) return e;
  a.width = (uint32_t)w;
  a.height = (uint32_t)h;
  a.depth = (uint32_t)depth;
  a.layers = (uint32_t)layers;
  a.cube = cube;
  a.flags = flags;
  cu_array *out = nullptr;
  int c = cucore_array_create(nullptr, &a, &out);
  if (c == CUDA_SUCCESS) *array = reinterpret_cast<cudaArray_t>(out);
  return ret_cu(api, c);
}

// The device address and pitch of texel row (x_bytes, y) of an array, checked against a copy of
// width bytes x height rows.
cudaError_t array_region(const char *api, cudaArray_const_t array, size_t x_bytes, size_t y, size_t width,
                         size_t height, uint64_t *addr, uint64_t *pitch) {
  cu_array_info info;
  int c = cucore_array_info(array_of(array), &info);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  uint64_t row_bytes = (uint64_t)info.desc.width * info.texel_bytes;
  uint64_t rows = (uint64_t)(info.desc.height ? info.desc.height : 1) * (info.desc.depth ? info.desc.depth : 1) *
                  (info.desc.layers ? info.desc.layers : 1);
  if (x_bytes > row_bytes || width > row_bytes - x_bytes || y > rows || height > rows - y)
    return fail(api, cudaErrorInvalidValue,
                "region at (%zu bytes, row %zu) of %zu bytes x %zu rows exceeds the array (%llu bytes x %llu rows)",
                x_bytes, y, width, height, (unsigned long long)row_bytes, (unsigned long long)rows);
  *addr = info.data + y * info.pitch + x_bytes;
  *pitch = info.pitch;
  return cudaSuccess;
}

cudaError_t host_or_device(const char *api, const void *p, int kind, bool is_src, cu_copy_side *out) {
  // The non-array side of an array copy: the kind names what it is (Default: look it up).
  cu_mem_info info;
  if (!p) return fail(api, cudaErrorInvalidValue, "the %s pointer is NULL", is_src ? "source" : "destination");
  cucore_mem_classify(reinterpret_cast<uint64_t>(p), &info);
  bool want_device = is_src ? (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost)
                            : (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice);
  if (kind < 0 || kind > 4) return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d", kind);
  bool is_device = info.type == CU_MEM_DEVICE || info.type == CU_MEM_MANAGED;
  if (kind != cudaMemcpyDefault && kind != cudaMemcpyHostToHost && want_device != is_device)
    return fail(api, cudaErrorInvalidValue, "the %s %p is %s memory, but the copy kind says %s memory",
                is_src ? "source" : "destination", p, is_device ? "device" : "host", want_device ? "device" : "host");
  out->addr = reinterpret_cast<uint64_t>(p);
  out->type = info.type;
  return cudaSuccess;
}

cudaError_t to_array(const char *api, cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                     size_t width, size_t height, int kind, cu_stream *stream, bool sync) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > spitch && height > 1) return fail(api, cudaErrorInvalidPitchValue, "width %zu exceeds the source pitch %zu", width, spitch);
  uint64_t addr = 0, pitch = 0;
  cudaError_t e = array_region(api, dst, wOffset, hOffset, width, height, &addr, &pitch);
  if (e != cudaSuccess) return e;
  cu_copy_side s;
  e = host_or_device(api, src, kind, true, &s);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy_2d(cu_copy_side{addr, CU_MEM_DEVICE}, pitch, s, spitch, width, height, stream, sync));
}

cudaError_t from_array(const char *api, void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                       size_t hOffset, size_t width, size_t height, int kind, cu_stream *stream, bool sync) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > dpitch && height > 1) return fail(api, cudaErrorInvalidPitchValue, "width %zu exceeds the destination pitch %zu", width, dpitch);
  uint64_t addr = 0, pitch = 0;
  cudaError_t e = array_region(api, src, wOffset, hOffset, width, height, &addr, &pitch);
  if (e != cudaSuccess) return e;
  cu_copy_side d;
  e = host_or_device(api, dst, kind, false, &d);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy_2d(d, dpitch, cu_copy_side{addr, CU_MEM_DEVICE}, pitch, width, height, stream, sync));
}

// What a program passed when it created an object (cudaGetTextureObjectResourceDesc & co.).
struct ObjectDescs {
  cudaResourceDesc res;
  cudaTextureDesc tex;
  bool is_texture;
};
std::mutex g_objects_mu;
std::map<unsigned long long, ObjectDescs> &objects() {
  static auto *m = new std::map<unsigned long long, ObjectDescs>();
  return *m;
}

uint8_t address_mode(int m) {
  switch (m) {
    case cudaAddressModeWrap: return FUNC_TEX_ADDR_WRAP;
    case cudaAddressModeClamp: return FUNC_TEX_ADDR_CLAMP;
    case cudaAddressModeMirror: return FUNC_TEX_ADDR_MIRROR;
    default: return FUNC_TEX_ADDR_BORDER;
  }
}

// A func_tex_desc from a resource description; for arrays also checks surface use.
cudaError_t resource(const char *api, const cudaResourceDesc *res, bool surface, func_tex_desc *t) {
  std::memset(t, 0, sizeof *t);
  t->magic = FUNC_TEX_MAGIC;
  t->height = t->depth = t->layers = 1;
  switch (res->resType) {
    case cudaResourceTypeArray: {
      cu_array_info info;
      int c = cucore_array_info(array_of(res->res.array.array), &info);
      if (c != CUDA_SUCCESS) return ret_cu(api, c);
      if (surface && !(info.desc.flags & cudaArraySurfaceLoadStore))
        return fail(api, cudaErrorInvalidValue, "the array was not created with cudaArraySurfaceLoadStore");
      cucore_tex_array_resource(&info, t);
      return cudaSuccess;
    }
    case cudaResourceTypeLinear:
    case cudaResourceTypePitch2D: {
      if (surface) return fail(api, cudaErrorInvalidValue, "surface objects need a CUDA array resource");
      bool linear = res->resType == cudaResourceTypeLinear;
      const cudaChannelFormatDesc &cd = linear ? res->res.linear.desc : res->res.pitch2D.desc;
      uint8_t channels = 0, bytes = 0, type = 0;
      cudaError_t e = channel_format(api, cd, &channels, &bytes, &type);
      if (e != cudaSuccess) return e;
      void *ptr = linear ? res->res.linear.devPtr : res->res.pitch2D.devPtr;
      cu_mem_info info;
      cucore_mem_classify(reinterpret_cast<uint64_t>(ptr), &info);
      if (info.type != CU_MEM_DEVICE && info.type != CU_MEM_MANAGED)
        return fail(api, cudaErrorInvalidValue, "resource pointer %p is not device memory", ptr);
      uint64_t texel = (uint64_t)channels * bytes;
      t->channels = channels;
      t->channel_type = type;
      t->data = reinterpret_cast<uint64_t>(ptr);
      if (linear) {
        uint64_t n = res->res.linear.sizeInBytes / texel;
        if (n == 0 || n > UINT32_MAX) return fail(api, cudaErrorInvalidValue, "linear resource of %zu bytes", res->res.linear.sizeInBytes);
        if (reinterpret_cast<uint64_t>(ptr) + res->res.linear.sizeInBytes > info.base + info.size)
          return fail(api, cudaErrorInvalidValue, "linear resource of %zu bytes runs past its allocation", res->res.linear.sizeInBytes);
        t->resource = FUNC_TEX_RES_LINEAR;
        t->dims = 1;
        t->width = (uint32_t)n;
        t->pitch = n * texel;
      } else {
        const auto &p2 = res->res.pitch2D;
        if (p2.width == 0 || p2.height == 0 || p2.width > UINT32_MAX || p2.height > UINT32_MAX || p2.width * texel > p2.pitchInBytes)
          return fail(api, cudaErrorInvalidValue, "pitch-2D resource %zu x %zu texels, pitch %zu bytes", p2.width, p2.height,
                      p2.pitchInBytes);
        if (reinterpret_cast<uint64_t>(ptr) + p2.pitchInBytes * (p2.height - 1) + p2.width * texel > info.base + info.size)
          return fail(api, cudaErrorInvalidValue, "pitch-2D resource runs past its allocation");
        t->resource = FUNC_TEX_RES_PITCH2D;
        t->dims = 2;
        t->width = (uint32_t)p2.width;
        t->height = (uint32_t)p2.height;
        t->pitch = p2.pitchInBytes;
      }
      t->slice_pitch = t->pitch * t->height;
      t->layer_pitch = t->slice_pitch;
      return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray:
      return fail(api, cudaErrorNotSupported, "mipmapped arrays are not supported by simtvp");
  }
  return fail(api, cudaErrorInvalidValue, "resource type %d", (int)res->resType);
}

}  // namespace

// ---- channel descriptors and arrays -------------------------------------------------------------

CUDART_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                 enum cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

CUDART_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                          size_t height, unsigned int flags) {
  if (flags & ~(unsigned)(cudaArraySurfaceLoadStore | cudaArrayTextureGather))
    return fail("cudaMallocArray", cudaErrorInvalidValue, "flags 0x%x", flags);
  return make_array("cudaMallocArray", array, desc, width, height, 0, 0, false, flags);
}

CUDART_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int flags) {
  const char *api = "cudaMalloc3DArray";
  if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather))
    return fail(api, cudaErrorInvalidValue, "flags 0x%x", flags);
  bool layered = flags & cudaArrayLayered, cube = flags & cudaArrayCubemap;
  if (cube) {
    size_t layers = layered ? extent.depth : 6;
    if (extent.width != extent.height || layers == 0 || layers % 6)
      return fail(api, cudaErrorInvalidValue, "cubemap extent %zu x %zu x %zu", extent.width, extent.height, extent.depth);
    return make_array(api, array, desc, extent.width, extent.height, 0, layers, true, flags);
  }
  if (layered) {
    if (extent.depth == 0) return fail(api, cudaErrorInvalidValue, "a layered array needs depth = layers > 0");
    return make_array(api, array, desc, extent.width, extent.height, 0, extent.depth, false, flags);
  }
  if (extent.depth && !extent.height)
    return fail(api, cudaErrorInvalidValue, "extent %zu x 0 x %zu", extent.width, extent.depth);
  return make_array(api, array, desc, extent.width, extent.height, extent.depth, 0, false, flags);
}

CUDART_EXPORT cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array) return cudaSuccess;
  return ret_cu("cudaFreeArray", cucore_array_destroy(array_of(array)));
}

CUDART_EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                           unsigned int *flags, cudaArray_t array) {
  cu_array_info info;
  int c = cucore_array_info(array_of(array), &info);
  if (c != CUDA_SUCCESS) return ret_cu("cudaArrayGetInfo", c);
  if (desc) *desc = desc_of(info.desc);
  if (extent) {
    extent->width = info.desc.width;
    extent->height = info.desc.height;
    extent->depth = info.desc.layers ? info.desc.layers : info.desc.depth;
  }
  if (flags) *flags = info.desc.flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array) {
  if (!desc) return fail("cudaGetChannelDesc", cudaErrorInvalidValue, "the result pointer is NULL");
  cu_array_info info;
  int c = cucore_array_info(array_of(array), &info);
  if (c != CUDA_SUCCESS) return ret_cu("cudaGetChannelDesc", c);
  *desc = desc_of(info.desc);
  return cudaSuccess;
}

// ---- copies with arrays ---------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                              size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return to_array("cudaMemcpy2DToArray", dst, wOffset, hOffset, src, spitch, width, height, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
  return to_array("cudaMemcpy2DToArrayAsync", dst, wOffset, hOffset, src, spitch, width, height, kind, stream_of(stream),
                  false);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
  return from_array("cudaMemcpy2DFromArray", dst, dpitch, src, wOffset, hOffset, width, height, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                     size_t hOffset, size_t width, size_t height,
                                                     enum cudaMemcpyKind kind, cudaStream_t stream) {
  return from_array("cudaMemcpy2DFromArrayAsync", dst, dpitch, src, wOffset, hOffset, width, height, kind,
                    stream_of(stream), false);
}

// The deprecated 1-D forms: count bytes starting at (wOffset, hOffset), row by row.
static cudaError_t linear_span(const char *api, cudaArray_const_t a, size_t wOffset, size_t hOffset, size_t count,
                               uint64_t *addr) {
  cu_array_info info;
  int c = cucore_array_info(array_of(a), &info);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  uint64_t row = (uint64_t)info.desc.width * info.texel_bytes;
  if (info.pitch != row && (wOffset + count > row))
    return fail(api, cudaErrorInvalidValue, "%zu bytes at offset %zu cross a row of the array (%llu bytes)", count, wOffset,
                (unsigned long long)row);
  uint64_t pitch = 0;
  return array_region(api, a, wOffset, hOffset, count > row - wOffset ? row - wOffset : count, 1, addr, &pitch);
}

CUDART_EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                            size_t count, enum cudaMemcpyKind kind) {
  const char *api = "cudaMemcpyToArray";
  uint64_t addr = 0;
  cudaError_t e = linear_span(api, dst, wOffset, hOffset, count, &addr);
  if (e != cudaSuccess) return e;
  cu_copy_side s;
  e = host_or_device(api, src, kind, true, &s);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy(cu_copy_side{addr, CU_MEM_DEVICE}, s, count, nullptr, true));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                              size_t count, enum cudaMemcpyKind kind) {
  const char *api = "cudaMemcpyFromArray";
  uint64_t addr = 0;
  cudaError_t e = linear_span(api, src, wOffset, hOffset, count, &addr);
  if (e != cudaSuccess) return e;
  cu_copy_side d;
  e = host_or_device(api, dst, kind, false, &d);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy(d, cu_copy_side{addr, CU_MEM_DEVICE}, count, nullptr, true));
}

CUDART_EXPORT cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                                   size_t width, size_t height, enum cudaMemcpyKind kind) {
  const char *api = "cudaMemcpy2DArrayToArray";
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d between arrays", (int)kind);
  if (width == 0 || height == 0) return cudaSuccess;
  uint64_t da = 0, dp = 0, sa = 0, sp = 0;
  cudaError_t e = array_region(api, dst, wOffsetDst, hOffsetDst, width, height, &da, &dp);
  if (e == cudaSuccess) e = array_region(api, src, wOffsetSrc, hOffsetSrc, width, height, &sa, &sp);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy_2d(cu_copy_side{da, CU_MEM_DEVICE}, dp, cu_copy_side{sa, CU_MEM_DEVICE}, sp, width,
                                      height, nullptr, false));
}

// 3-D copies between pitched memory and arrays, slice by slice.
static cudaError_t memcpy_3d(const char *api, const struct cudaMemcpy3DParms *p, cu_stream *stream, bool sync) {
  if (!p) return fail(api, cudaErrorInvalidValue, "the parameter pointer is NULL");
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr) || (!p->srcArray && !p->srcPtr.ptr) ||
      (!p->dstArray && !p->dstPtr.ptr))
    return fail(api, cudaErrorInvalidValue, "give exactly one of array and pointer for each side");
  size_t depth = p->extent.depth ? p->extent.depth : 1, height = p->extent.height ? p->extent.height : 1;
  if (p->extent.width == 0) return cudaSuccess;
  // Widths are in elements for arrays and bytes for memory.
  size_t texel = 1;
  cu_array_info info;
  cudaArray_const_t any = p->srcArray ? p->srcArray : p->dstArray;
  if (any) {
    int c = cucore_array_info(array_of(any), &info);
    if (c != CUDA_SUCCESS) return ret_cu(api, c);
    texel = info.texel_bytes;
  }
  size_t width = p->extent.width * texel;
  for (size_t z = 0; z < depth; z++) {
    uint64_t da = 0, dpitch = 0, sa = 0, spitch = 0;
    cu_copy_side d, s;
    cudaError_t e;
    if (p->dstArray) {
      cu_array_info di;
      int c = cucore_array_info(array_of(p->dstArray), &di);
      if (c != CUDA_SUCCESS) return ret_cu(api, c);
      size_t rows_per_slice = di.desc.height ? di.desc.height : 1;
      e = array_region(api, p->dstArray, p->dstPos.x * texel, (p->dstPos.z + z) * rows_per_slice + p->dstPos.y, width,
                       height, &da, &dpitch);
      d = cu_copy_side{da, CU_MEM_DEVICE};
    } else {
      size_t slice = p->dstPtr.pitch * (p->dstPtr.ysize ? p->dstPtr.ysize : height);
      char *base = static_cast<char *>(p->dstPtr.ptr) + (p->dstPos.z + z) * slice + p->dstPos.y * p->dstPtr.pitch + p->dstPos.x;
      e = host_or_device(api, base, p->kind, false, &d);
      dpitch = p->dstPtr.pitch;
    }
    if (e != cudaSuccess) return e;
    if (p->srcArray) {
      cu_array_info si;
      int c = cucore_array_info(array_of(p->srcArray), &si);
      if (c != CUDA_SUCCESS) return ret_cu(api, c);
      size_t rows_per_slice = si.desc.height ? si.desc.height : 1;
      e = array_region(api, p->srcArray, p->srcPos.x * texel, (p->srcPos.z + z) * rows_per_slice + p->srcPos.y, width,
                       height, &sa, &spitch);
      s = cu_copy_side{sa, CU_MEM_DEVICE};
    } else {
      size_t slice = p->srcPtr.pitch * (p->srcPtr.ysize ? p->srcPtr.ysize : height);
      const char *base = static_cast<const char *>(p->srcPtr.ptr) + (p->srcPos.z + z) * slice + p->srcPos.y * p->srcPtr.pitch +
                         p->srcPos.x;
      e = host_or_device(api, base, p->kind, true, &s);
      spitch = p->srcPtr.pitch;
    }
    if (e != cudaSuccess) return e;
    if (width > dpitch || width > spitch)
      return fail(api, cudaErrorInvalidPitchValue, "row of %zu bytes exceeds a pitch (%llu, %llu)", width,
                  (unsigned long long)dpitch, (unsigned long long)spitch);
    int c = cucore_memcpy_2d(d, dpitch, s, spitch, width, height, stream, sync && z + 1 == depth);
    if (c != CUDA_SUCCESS) return ret_cu(api, c);
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) { return memcpy_3d("cudaMemcpy3D", p, nullptr, true); }
CUDART_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
  return memcpy_3d("cudaMemcpy3DAsync", p, stream_of(stream), false);
}

// ---- texture and surface objects ----------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                                  const struct cudaTextureDesc *pTexDesc,
                                                  const struct cudaResourceViewDesc *pResViewDesc) {
  const char *api = "cudaCreateTextureObject";
  if (!pTexObject || !pResDesc || !pTexDesc)
    return fail(api, cudaErrorInvalidValue, "%s pointer is NULL",
                !pTexObject ? "the result" : !pResDesc ? "the resource descriptor" : "the texture descriptor");
  if (pResViewDesc) return fail(api, cudaErrorNotSupported, "resource views are not supported by simtvp");
  func_tex_desc t;
  cudaError_t e = resource(api, pResDesc, false, &t);
  if (e != cudaSuccess) return e;
  const cudaTextureDesc &td = *pTexDesc;
  bool float_channels = t.channel_type == PTX_TYPE_F16 || t.channel_type == PTX_TYPE_F32;
  bool small_int = t.channel_type == PTX_TYPE_U8 || t.channel_type == PTX_TYPE_S8 || t.channel_type == PTX_TYPE_U16 ||
                   t.channel_type == PTX_TYPE_S16;
  if (td.readMode == cudaReadModeNormalizedFloat && !small_int)
    return fail(api, cudaErrorInvalidNormSetting, "cudaReadModeNormalizedFloat needs 8- or 16-bit integer channels");
  if (td.filterMode == cudaFilterModeLinear && !float_channels && td.readMode != cudaReadModeNormalizedFloat)
    return fail(api, cudaErrorInvalidFilterSetting, "linear filtering needs float channels or cudaReadModeNormalizedFloat");
  if ((int)td.filterMode < 0 || (int)td.filterMode > 1) return fail(api, cudaErrorInvalidValue, "filter mode %d", (int)td.filterMode);
  for (int i = 0; i < 3; i++) {
    if ((int)td.addressMode[i] < 0 || (int)td.addressMode[i] > 3)
      return fail(api, cudaErrorInvalidValue, "address mode %d", (int)td.addressMode[i]);
    t.address[i] = address_mode(td.addressMode[i]);
  }
  if (!td.normalizedCoords)
    for (int i = 0; i < 3; i++)
      if (td.addressMode[i] == cudaAddressModeWrap || td.addressMode[i] == cudaAddressModeMirror)
        t.address[i] = FUNC_TEX_ADDR_CLAMP;  // CUDA: wrap and mirror need normalised coordinates
  t.filter = td.filterMode == cudaFilterModeLinear ? FUNC_TEX_FILTER_LINEAR : FUNC_TEX_FILTER_POINT;
  t.read_normalized = td.readMode == cudaReadModeNormalizedFloat;
  t.normalized_coords = td.normalizedCoords != 0;
  for (int i = 0; i < 4; i++) t.border[i] = td.borderColor[i];
  uint64_t handle = 0;
  int c = cucore_tex_create(nullptr, &t, &handle);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    objects()[handle] = ObjectDescs{*pResDesc, *pTexDesc, true};
  }
  *pTexObject = handle;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc) {
  const char *api = "cudaCreateSurfaceObject";
  if (!pSurfObject || !pResDesc)
    return fail(api, cudaErrorInvalidValue, "%s pointer is NULL", !pSurfObject ? "the result" : "the resource descriptor");
  func_tex_desc t;
  cudaError_t e = resource(api, pResDesc, true, &t);
  if (e != cudaSuccess) return e;
  t.address[0] = t.address[1] = t.address[2] = FUNC_TEX_ADDR_CLAMP;
  uint64_t handle = 0;
  int c = cucore_tex_create(nullptr, &t, &handle);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    ObjectDescs d;
    std::memset(&d, 0, sizeof d);
    d.res = *pResDesc;
    objects()[handle] = d;
  }
  *pSurfObject = handle;
  return cudaSuccess;
}

static cudaError_t destroy_object(const char *api, unsigned long long handle) {
  if (handle == 0) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    objects().erase(handle);
  }
  return ret_cu(api, cucore_tex_destroy(handle));
}

CUDART_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  return destroy_object("cudaDestroyTextureObject", texObject);
}
CUDART_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  return destroy_object("cudaDestroySurfaceObject", surfObject);
}

static cudaError_t object_descs(const char *api, unsigned long long handle, bool want_texture, ObjectDescs *out) {
  std::lock_guard<std::mutex> lock(g_objects_mu);
  auto it = objects().find(handle);
  if (it != objects().end() && cucore_tex_get(handle, nullptr) != CUDA_SUCCESS) {  // gone with a reset
    objects().erase(it);
    it = objects().end();
  }
  if (it == objects().end() || (want_texture && !it->second.is_texture))
    return fail(api, cudaErrorInvalidValue, "0x%llx is not a live %s object", handle, want_texture ? "texture" : "texture or surface");
  *out = it->second;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject) {
  if (!pResDesc) return fail("cudaGetTextureObjectResourceDesc", cudaErrorInvalidValue, "the result pointer is NULL");
  ObjectDescs d;
  cudaError_t e = object_descs("cudaGetTextureObjectResourceDesc", texObject, true, &d);
  if (e == cudaSuccess) *pResDesc = d.res;
  return e;
}
CUDART_EXPORT cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject) {
  if (!pTexDesc) return fail("cudaGetTextureObjectTextureDesc", cudaErrorInvalidValue, "the result pointer is NULL");
  ObjectDescs d;
  cudaError_t e = object_descs("cudaGetTextureObjectTextureDesc", texObject, true, &d);
  if (e == cudaSuccess) *pTexDesc = d.tex;
  return e;
}
CUDART_EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject) {
  if (!pResDesc) return fail("cudaGetSurfaceObjectResourceDesc", cudaErrorInvalidValue, "the result pointer is NULL");
  ObjectDescs d;
  cudaError_t e = object_descs("cudaGetSurfaceObjectResourceDesc", surfObject, false, &d);
  if (e == cudaSuccess) *pResDesc = d.res;
  return e;
}

// ---- per-thread default stream forms (_ptds: synchronous, _ptsz: NULL = the per-thread stream) ----

CUDART_EXPORT cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind) {
  return to_array("cudaMemcpy2DToArray_ptds", dst, wOffset, hOffset, src, spitch, width, height, kind,
                  CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                        const void *src, size_t spitch, size_t width, size_t height,
                                                        enum cudaMemcpyKind kind, cudaStream_t stream) {
  return to_array("cudaMemcpy2DToArrayAsync_ptsz", dst, wOffset, hOffset, src, spitch, width, height, kind,
                  stream_ptsz(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                     size_t hOffset, size_t width, size_t height,
                                                     enum cudaMemcpyKind kind) {
  return from_array("cudaMemcpy2DFromArray_ptds", dst, dpitch, src, wOffset, hOffset, width, height, kind,
                    CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                                          size_t wOffset, size_t hOffset, size_t width, size_t height,
                                                          enum cudaMemcpyKind kind, cudaStream_t stream) {
  return from_array("cudaMemcpy2DFromArrayAsync_ptsz", dst, dpitch, src, wOffset, hOffset, width, height, kind,
                    stream_ptsz(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) {
  return memcpy_3d("cudaMemcpy3D_ptds", p, CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
  return memcpy_3d("cudaMemcpy3DAsync_ptsz", p, stream_ptsz(stream), false);
}
