// cuda_texture.cc — CUDA arrays, copies between memory and arrays (cuMemcpy2D/3D), texture and
// surface objects in the driver API, on the core's pitch-linear arrays and func_tex descriptors
// (func_tex.h; docs/cudart.md "Textures and surfaces"). NVIDIA's static runtime maps
// cudaMallocArray, cudaMemcpy2DToArray and cudaCreateTextureObject onto these.
#include <cstring>
#include <map>
#include <mutex>

#include "cuda_api_internal.h"
#include "ptx.h"

using namespace cuapi;

namespace {

cu_array *array_of(CUarray a) { return reinterpret_cast<cu_array *>(a); }

// CUarray_format -> channel type and bytes (the formats simtvp's texture unit reads).
bool format_of(int format, uint8_t *type, uint8_t *bytes) {
  switch (format) {
    case 0x01: *type = PTX_TYPE_U8; *bytes = 1; return true;   // CU_AD_FORMAT_UNSIGNED_INT8
    case 0x02: *type = PTX_TYPE_U16; *bytes = 2; return true;  // UNSIGNED_INT16
    case 0x03: *type = PTX_TYPE_U32; *bytes = 4; return true;  // UNSIGNED_INT32
    case 0x08: *type = PTX_TYPE_S8; *bytes = 1; return true;   // SIGNED_INT8
    case 0x09: *type = PTX_TYPE_S16; *bytes = 2; return true;  // SIGNED_INT16
    case 0x0a: *type = PTX_TYPE_S32; *bytes = 4; return true;  // SIGNED_INT32
    case 0x10: *type = PTX_TYPE_F16; *bytes = 2; return true;  // HALF
    case 0x20: *type = PTX_TYPE_F32; *bytes = 4; return true;  // FLOAT
    default: return false;
  }
}

int format_code(uint8_t type) {
  switch (type) {
    case PTX_TYPE_U8: return 0x01;
    case PTX_TYPE_U16: return 0x02;
    case PTX_TYPE_U32: return 0x03;
    case PTX_TYPE_S8: return 0x08;
    case PTX_TYPE_S16: return 0x09;
    case PTX_TYPE_S32: return 0x0a;
    case PTX_TYPE_F16: return 0x10;
    default: return 0x20;
  }
}

CUresult bad_format(const char *api, int format, unsigned channels) {
  cucore_fail(CUDA_ERROR_INVALID_VALUE,
              "array format 0x%x with %u channels: simtvp supports 8/16/32-bit integer, half and float formats with "
              "1, 2 or 4 channels", format, channels);
  return report(api, CUDA_ERROR_INVALID_VALUE);
}

// CUDA_ARRAY3D_DESCRIPTOR: Width, Height, Depth (layers when layered), Format, NumChannels, Flags.
struct Array3dDesc {
  size_t Width, Height, Depth;
  int Format;
  unsigned NumChannels, Flags;
};
struct Array2dDesc {
  size_t Width, Height;
  int Format;
  unsigned NumChannels;
};

CUresult array_create(const char *api, CUarray *out, const Array3dDesc &d) {
  NEED_CONTEXT(api);
  if (!out) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_array_desc a;
  std::memset(&a, 0, sizeof a);
  if (!format_of(d.Format, &a.channel_type, &a.channel_bytes) ||
      (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4))
    return bad_format(api, d.Format, d.NumChannels);
  if (d.Flags & ~0xfu) return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown array flags");
  if (d.Width == 0 || d.Width > UINT32_MAX || d.Height > UINT32_MAX || d.Depth > UINT32_MAX) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "array extent %zu x %zu x %zu", d.Width, d.Height, d.Depth);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  bool layered = d.Flags & 1u, cube = d.Flags & 4u;
  a.channels = (uint8_t)d.NumChannels;
  a.width = (uint32_t)d.Width;
  a.height = (uint32_t)d.Height;
  a.flags = d.Flags;
  if (cube) {
    a.cube = 1;
    a.layers = layered ? (uint32_t)d.Depth : 6;
  } else if (layered) {
    if (d.Depth == 0) return fail(api, CUDA_ERROR_INVALID_VALUE, "a layered array needs Depth = layers > 0");
    a.layers = (uint32_t)d.Depth;
  } else {
    if (d.Depth && !d.Height) return fail(api, CUDA_ERROR_INVALID_VALUE, "a 3-D array needs a height");
    a.depth = (uint32_t)d.Depth;
  }
  cu_array *arr = nullptr;
  CUresult r = report(api, cucore_array_create(current(), &a, &arr));
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<CUarray>(arr);
  return r;
}

// ---- copies ------------------------------------------------------------------------------------

// One side of a CUDA_MEMCPY2D/3D: memory type, host/device/array, position and pitch.
struct Side {
  size_t x_bytes, y, z;
  int type;  // CUmemorytype: 1 host, 2 device, 3 array, 4 unified
  const void *host;
  CUdeviceptr device;
  CUarray array;
  size_t pitch, height;  // memory: bytes per row, rows per slice
};

// The address and pitch of row (y, z) of a side, checked for a copy of width bytes x height rows x
// depth slices.
CUresult side_rows(const char *api, const Side &sd, bool is_src, size_t width, size_t height, size_t depth,
                   size_t slice, cu_copy_side *out, uint64_t *pitch) {
  const char *which = is_src ? "source" : "destination";
  if (sd.type == 3) {
    cu_array_info info;
    CUresult r = report(api, cucore_array_info(array_of(sd.array), &info));
    if (r != CUDA_SUCCESS) return r;
    uint64_t row = (uint64_t)info.desc.width * info.texel_bytes;
    uint64_t rows = info.desc.height ? info.desc.height : 1;
    uint64_t slices = (uint64_t)(info.desc.depth ? info.desc.depth : 1) * (info.desc.layers ? info.desc.layers : 1);
    if (sd.x_bytes > row || width > row - sd.x_bytes || sd.y > rows || height > rows - sd.y || sd.z > slices ||
        depth > slices - sd.z) {
      cucore_fail(CUDA_ERROR_INVALID_VALUE,
                  "the %s region (%zu bytes, row %zu, slice %zu) of %zu x %zu x %zu exceeds the array (%llu bytes x "
                  "%llu rows x %llu slices)", which, sd.x_bytes, sd.y, sd.z, width, height, depth,
                  (unsigned long long)row, (unsigned long long)rows, (unsigned long long)slices);
      return report(api, CUDA_ERROR_INVALID_VALUE);
    }
    *out = cu_copy_side{info.data + ((sd.z + slice) * rows + sd.y) * info.pitch + sd.x_bytes, CU_MEM_DEVICE};
    *pitch = info.pitch;
    return CUDA_SUCCESS;
  }
  if (sd.type < 1 || sd.type > 4) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "%s memory type %d", which, sd.type);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  size_t pitch_bytes = sd.pitch ? sd.pitch : width;
  if (width > pitch_bytes && height > 1) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "rows of %zu bytes exceed the %s pitch %zu", width, which, pitch_bytes);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  uint64_t base = sd.type == 1 ? reinterpret_cast<uint64_t>(sd.host) : sd.device;
  if (!base) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "the %s pointer is NULL", which);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  uint64_t rows_per_slice = sd.height ? sd.height : height;
  uint64_t addr = base + ((sd.z + slice) * rows_per_slice + sd.y) * pitch_bytes + sd.x_bytes;
  cu_mem_info info;
  cucore_mem_classify(addr, &info);
  if (sd.type == 2 && info.type != CU_MEM_DEVICE && info.type != CU_MEM_MANAGED) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "the %s 0x%llx is not device memory", which, (unsigned long long)addr);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  if (sd.type == 1 && (info.type == CU_MEM_DEVICE)) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "the %s %p is device memory, given as host memory", which, (void *)addr);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  *out = cu_copy_side{addr, info.type};
  *pitch = pitch_bytes;
  return CUDA_SUCCESS;
}

CUresult copy_3d(const char *api, const Side &src, const Side &dst, size_t width, size_t height, size_t depth,
                 cu_stream *stream, bool sync) {
  NEED_CONTEXT(api);
  if (width == 0 || height == 0 || depth == 0) return CUDA_SUCCESS;
  for (size_t z = 0; z < depth; z++) {
    cu_copy_side s, d;
    uint64_t spitch = 0, dpitch = 0;
    if (CUresult r = side_rows(api, src, true, width, height, depth, z, &s, &spitch)) return r;
    if (CUresult r = side_rows(api, dst, false, width, height, depth, z, &d, &dpitch)) return r;
    CUresult r = report(api, cucore_memcpy_2d(d, dpitch, s, spitch, width, height, stream, sync && z + 1 == depth));
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

// CUDA_MEMCPY2D and CUDA_MEMCPY3D as cuda.h lays them out.
struct Memcpy2d {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};

CUresult copy2d(const char *api, const void *params, CUstream stream, bool sync) {
  if (!params) return fail(api, CUDA_ERROR_INVALID_VALUE, "the copy parameters are NULL");
  const Memcpy2d &p = *static_cast<const Memcpy2d *>(params);
  Side s{p.srcXInBytes, p.srcY, 0, p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray, p.srcPitch, 0};
  Side d{p.dstXInBytes, p.dstY, 0, p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray, p.dstPitch, 0};
  return copy_3d(api, s, d, p.WidthInBytes, p.Height, 1, stream_of(stream), sync);
}

CUresult copy3d(const char *api, const void *params, CUstream stream, bool sync) {
  if (!params) return fail(api, CUDA_ERROR_INVALID_VALUE, "the copy parameters are NULL");
  const CudaMemcpy3D &p = *static_cast<const CudaMemcpy3D *>(params);
  if (p.srcLOD || p.dstLOD) return fail(api, CUDA_ERROR_NOT_SUPPORTED, "mipmap levels are not supported by simtvp");
  Side s{p.srcXInBytes, p.srcY, p.srcZ, p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray, p.srcPitch, p.srcHeight};
  Side d{p.dstXInBytes, p.dstY, p.dstZ, p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray, p.dstPitch, p.dstHeight};
  return copy_3d(api, s, d, p.WidthInBytes, p.Height, p.Depth ? p.Depth : 1, stream_of(stream), sync);
}

// 1-D copies with an array: ByteCount bytes from a byte offset of texel row 0 on.
CUresult copy_array_1d(const char *api, Side array_side, bool array_is_src, Side mem, size_t bytes, CUstream stream,
                       bool sync) {
  cu_array_info info;
  CUresult r = report(api, cucore_array_info(array_of(array_side.array), &info));
  if (r != CUDA_SUCCESS) return r;
  uint64_t row = (uint64_t)info.desc.width * info.texel_bytes;
  if (array_side.x_bytes + bytes > row && info.pitch != row) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "%zu bytes at offset %zu cross a row of the array (%llu bytes)", bytes,
                array_side.x_bytes, (unsigned long long)row);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  return array_is_src ? copy_3d(api, array_side, mem, bytes, 1, 1, stream_of(stream), sync)
                      : copy_3d(api, mem, array_side, bytes, 1, 1, stream_of(stream), sync);
}

Side array_at(CUarray a, size_t offset) { return Side{offset, 0, 0, 3, nullptr, 0, a, 0, 0}; }
Side host_at(const void *p) { return Side{0, 0, 0, 1, p, 0, nullptr, 0, 0}; }
Side device_at(CUdeviceptr p) { return Side{0, 0, 0, 2, nullptr, p, nullptr, 0, 0}; }

// ---- texture and surface objects ---------------------------------------------------------------

// CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and CUDA_RESOURCE_VIEW_DESC as cuda.h lays them out.
struct ResourceDesc {
  int resType;  // 0 array, 1 mipmapped array, 2 linear, 3 pitch 2D
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t width, height, pitchInBytes;
    } pitch2D;
    int reserved[32];
  } res;
  unsigned flags;
};
struct TextureDesc {
  int addressMode[3];
  int filterMode;
  unsigned flags;  // CU_TRSF_*
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};
static_assert(sizeof(ResourceDesc) == 144, "CUDA_RESOURCE_DESC is 144 bytes");
static_assert(sizeof(TextureDesc) == 104, "CUDA_TEXTURE_DESC is 104 bytes");

struct ObjectDescs {
  ResourceDesc res;
  TextureDesc tex;
  bool is_texture;
};
std::mutex g_objects_mu;
std::map<unsigned long long, ObjectDescs> &objects() {
  static auto *m = new std::map<unsigned long long, ObjectDescs>();
  return *m;
}

CUresult resource(const char *api, const ResourceDesc &res, bool surface, func_tex_desc *t) {
  std::memset(t, 0, sizeof *t);
  t->magic = FUNC_TEX_MAGIC;
  t->height = t->depth = t->layers = 1;
  if (res.resType == 0) {
    cu_array_info info;
    CUresult r = report(api, cucore_array_info(array_of(res.res.array.hArray), &info));
    if (r != CUDA_SUCCESS) return r;
    if (surface && !(info.desc.flags & 2u))
      return fail(api, CUDA_ERROR_INVALID_VALUE, "the array was not created with CUDA_ARRAY3D_SURFACE_LDST");
    cucore_tex_array_resource(&info, t);
    return CUDA_SUCCESS;
  }
  if (res.resType == 2 || res.resType == 3) {
    if (surface) return fail(api, CUDA_ERROR_INVALID_VALUE, "surface objects need a CUDA array resource");
    bool linear = res.resType == 2;
    int format = linear ? res.res.linear.format : res.res.pitch2D.format;
    unsigned channels = linear ? res.res.linear.numChannels : res.res.pitch2D.numChannels;
    uint8_t type = 0, bytes = 0;
    if (!format_of(format, &type, &bytes) || (channels != 1 && channels != 2 && channels != 4))
      return bad_format(api, format, channels);
    CUdeviceptr ptr = linear ? res.res.linear.devPtr : res.res.pitch2D.devPtr;
    cu_mem_info info;
    cucore_mem_classify(ptr, &info);
    if (info.type != CU_MEM_DEVICE && info.type != CU_MEM_MANAGED) {
      cucore_fail(CUDA_ERROR_INVALID_VALUE, "resource pointer 0x%llx is not device memory", (unsigned long long)ptr);
      return report(api, CUDA_ERROR_INVALID_VALUE);
    }
    uint64_t texel = (uint64_t)channels * bytes;
    t->channels = (uint8_t)channels;
    t->channel_type = type;
    t->data = ptr;
    if (linear) {
      uint64_t n = res.res.linear.sizeInBytes / texel;
      if (n == 0 || n > UINT32_MAX || ptr + res.res.linear.sizeInBytes > info.base + info.size)
        return fail(api, CUDA_ERROR_INVALID_VALUE, "the linear resource's size does not fit its allocation");
      t->resource = FUNC_TEX_RES_LINEAR;
      t->dims = 1;
      t->width = (uint32_t)n;
      t->pitch = n * texel;
    } else {
      const auto &p2 = res.res.pitch2D;
      if (p2.width == 0 || p2.height == 0 || p2.width > UINT32_MAX || p2.height > UINT32_MAX ||
          p2.width * texel > p2.pitchInBytes ||
          ptr + p2.pitchInBytes * (p2.height - 1) + p2.width * texel > info.base + info.size)
        return fail(api, CUDA_ERROR_INVALID_VALUE, "the pitch-2D resource's extent does not fit its allocation");
      t->resource = FUNC_TEX_RES_PITCH2D;
      t->dims = 2;
      t->width = (uint32_t)p2.width;
      t->height = (uint32_t)p2.height;
      t->pitch = p2.pitchInBytes;
    }
    t->slice_pitch = t->pitch * t->height;
    t->layer_pitch = t->slice_pitch;
    return CUDA_SUCCESS;
  }
  if (res.resType == 1) return fail(api, CUDA_ERROR_NOT_SUPPORTED, "mipmapped arrays are not supported by simtvp");
  return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown resource type");
}

}  // namespace

// ---- arrays --------------------------------------------------------------------------------------

CU_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const void *pAllocateArray) {
  if (!pAllocateArray) return fail("cuArray3DCreate", CUDA_ERROR_INVALID_VALUE, "the descriptor is NULL");
  return array_create("cuArray3DCreate", pHandle, *static_cast<const Array3dDesc *>(pAllocateArray));
}

CU_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const void *pAllocateArray) {
  if (!pAllocateArray) return fail("cuArrayCreate", CUDA_ERROR_INVALID_VALUE, "the descriptor is NULL");
  const Array2dDesc &d = *static_cast<const Array2dDesc *>(pAllocateArray);
  return array_create("cuArrayCreate", pHandle, Array3dDesc{d.Width, d.Height, 0, d.Format, d.NumChannels, 0});
}

CU_EXPORT CUresult cuArrayDestroy(CUarray hArray) {
  NEED_CONTEXT("cuArrayDestroy");
  return report("cuArrayDestroy", cucore_array_destroy(array_of(hArray)));
}

CU_EXPORT CUresult cuArray3DGetDescriptor_v2(void *pArrayDescriptor, CUarray hArray) {
  NEED_CONTEXT("cuArray3DGetDescriptor");
  if (!pArrayDescriptor) return fail("cuArray3DGetDescriptor", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_array_info info;
  CUresult r = report("cuArray3DGetDescriptor", cucore_array_info(array_of(hArray), &info));
  if (r != CUDA_SUCCESS) return r;
  Array3dDesc d{info.desc.width, info.desc.height, info.desc.layers ? info.desc.layers : info.desc.depth,
                format_code(info.desc.channel_type), info.desc.channels, info.desc.flags};
  if (info.desc.cube && !(info.desc.flags & 1u)) d.Depth = 6;
  std::memcpy(pArrayDescriptor, &d, sizeof d);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuArrayGetDescriptor_v2(void *pArrayDescriptor, CUarray hArray) {
  NEED_CONTEXT("cuArrayGetDescriptor");
  if (!pArrayDescriptor) return fail("cuArrayGetDescriptor", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_array_info info;
  CUresult r = report("cuArrayGetDescriptor", cucore_array_info(array_of(hArray), &info));
  if (r != CUDA_SUCCESS) return r;
  Array2dDesc d{info.desc.width, info.desc.height, format_code(info.desc.channel_type), info.desc.channels};
  std::memcpy(pArrayDescriptor, &d, sizeof d);
  return CUDA_SUCCESS;
}

// ---- copies ----------------------------------------------------------------------------------------

#define PTSZ(h) reinterpret_cast<CUstream>(stream_ptsz(h))
#define PTDS reinterpret_cast<CUstream>(CU_STREAM_PER_THREAD)

CU_EXPORT CUresult cuMemcpy2D_v2(const void *pCopy) { return copy2d("cuMemcpy2D", pCopy, nullptr, true); }
CU_EXPORT CUresult cuMemcpy2DUnaligned_v2(const void *pCopy) {
  return copy2d("cuMemcpy2DUnaligned", pCopy, nullptr, true);
}
CU_EXPORT CUresult cuMemcpy2DAsync_v2(const void *pCopy, CUstream hStream) {
  return copy2d("cuMemcpy2DAsync", pCopy, hStream, false);
}
CU_EXPORT CUresult cuMemcpy3D_v2(const void *pCopy) { return copy3d("cuMemcpy3D", pCopy, nullptr, true); }
CU_EXPORT CUresult cuMemcpy3DAsync_v2(const void *pCopy, CUstream hStream) {
  return copy3d("cuMemcpy3DAsync", pCopy, hStream, false);
}
CU_EXPORT CUresult cuMemcpy2D_v2_ptds(const void *pCopy) { return copy2d("cuMemcpy2D", pCopy, PTDS, true); }
CU_EXPORT CUresult cuMemcpy2DUnaligned_v2_ptds(const void *pCopy) {
  return copy2d("cuMemcpy2DUnaligned", pCopy, PTDS, true);
}
CU_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const void *pCopy, CUstream hStream) {
  return copy2d("cuMemcpy2DAsync", pCopy, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemcpy3D_v2_ptds(const void *pCopy) { return copy3d("cuMemcpy3D", pCopy, PTDS, true); }
CU_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const void *pCopy, CUstream hStream) {
  return copy3d("cuMemcpy3DAsync", pCopy, PTSZ(hStream), false);
}

CU_EXPORT CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount) {
  return copy_array_1d("cuMemcpyHtoA", array_at(dstArray, dstOffset), false, host_at(srcHost), ByteCount, nullptr, true);
}
CU_EXPORT CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return copy_array_1d("cuMemcpyAtoH", array_at(srcArray, srcOffset), true, host_at(dstHost), ByteCount, nullptr, true);
}
CU_EXPORT CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy_array_1d("cuMemcpyDtoA", array_at(dstArray, dstOffset), false, device_at(srcDevice), ByteCount, nullptr,
                       true);
}
CU_EXPORT CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return copy_array_1d("cuMemcpyAtoD", array_at(srcArray, srcOffset), true, device_at(dstDevice), ByteCount, nullptr,
                       true);
}
CU_EXPORT CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                                   size_t ByteCount) {
  return copy_3d("cuMemcpyAtoA", array_at(srcArray, srcOffset), array_at(dstArray, dstOffset), ByteCount, 1, 1, nullptr,
                 true);
}
CU_EXPORT CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount,
                                        CUstream hStream) {
  return copy_array_1d("cuMemcpyHtoAAsync", array_at(dstArray, dstOffset), false, host_at(srcHost), ByteCount, hStream,
                       false);
}
CU_EXPORT CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
                                        CUstream hStream) {
  return copy_array_1d("cuMemcpyAtoHAsync", array_at(srcArray, srcOffset), true, host_at(dstHost), ByteCount, hStream,
                       false);
}

// ---- texture and surface objects -------------------------------------------------------------------

CU_EXPORT CUresult cuTexObjectCreate(unsigned long long *pTexObject, const void *pResDesc, const void *pTexDesc,
                                     const void *pResViewDesc) {
  const char *api = "cuTexObjectCreate";
  NEED_CONTEXT(api);
  if (!pTexObject || !pResDesc || !pTexDesc) return fail(api, CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  if (pResViewDesc) return fail(api, CUDA_ERROR_NOT_SUPPORTED, "resource views are not supported by simtvp");
  const ResourceDesc &rd = *static_cast<const ResourceDesc *>(pResDesc);
  const TextureDesc &td = *static_cast<const TextureDesc *>(pTexDesc);
  func_tex_desc t;
  if (CUresult r = resource(api, rd, false, &t)) return r;
  bool float_channels = t.channel_type == PTX_TYPE_F16 || t.channel_type == PTX_TYPE_F32;
  bool small_int = t.channel_type == PTX_TYPE_U8 || t.channel_type == PTX_TYPE_S8 || t.channel_type == PTX_TYPE_U16 ||
                   t.channel_type == PTX_TYPE_S16;
  // Without CU_TRSF_READ_AS_INTEGER, 8- and 16-bit integer texels read as normalised floats.
  bool normalized = small_int && !(td.flags & 0x01u);
  if (td.filterMode < 0 || td.filterMode > 1) return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown filter mode");
  if (td.filterMode == 1 && !float_channels && !normalized)
    return fail(api, CUDA_ERROR_INVALID_VALUE, "linear filtering needs float channels or normalised integer reads");
  for (int i = 0; i < 3; i++) {
    if (td.addressMode[i] < 0 || td.addressMode[i] > 3) return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown address mode");
    t.address[i] = (uint8_t)td.addressMode[i];  // CUaddress_mode and FUNC_TEX_ADDR_* agree
  }
  bool normalized_coords = td.flags & 0x02u;  // CU_TRSF_NORMALIZED_COORDINATES
  if (!normalized_coords)
    for (int i = 0; i < 3; i++)
      if (t.address[i] == FUNC_TEX_ADDR_WRAP || t.address[i] == FUNC_TEX_ADDR_MIRROR)
        t.address[i] = FUNC_TEX_ADDR_CLAMP;  // CUDA: wrap and mirror need normalised coordinates
  t.filter = td.filterMode == 1 ? FUNC_TEX_FILTER_LINEAR : FUNC_TEX_FILTER_POINT;
  t.read_normalized = normalized;
  t.normalized_coords = normalized_coords;
  for (int i = 0; i < 4; i++) t.border[i] = td.borderColor[i];
  uint64_t handle = 0;
  CUresult r = report(api, cucore_tex_create(current(), &t, &handle));
  if (r != CUDA_SUCCESS) return r;
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    objects()[handle] = ObjectDescs{rd, td, true};
  }
  *pTexObject = handle;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuSurfObjectCreate(unsigned long long *pSurfObject, const void *pResDesc) {
  const char *api = "cuSurfObjectCreate";
  NEED_CONTEXT(api);
  if (!pSurfObject || !pResDesc) return fail(api, CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  const ResourceDesc &rd = *static_cast<const ResourceDesc *>(pResDesc);
  func_tex_desc t;
  if (CUresult r = resource(api, rd, true, &t)) return r;
  t.address[0] = t.address[1] = t.address[2] = FUNC_TEX_ADDR_CLAMP;
  uint64_t handle = 0;
  CUresult r = report(api, cucore_tex_create(current(), &t, &handle));
  if (r != CUDA_SUCCESS) return r;
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    ObjectDescs d;
    std::memset(&d, 0, sizeof d);
    d.res = rd;
    objects()[handle] = d;
  }
  *pSurfObject = handle;
  return CUDA_SUCCESS;
}

static CUresult destroy_object(const char *api, unsigned long long handle) {
  NEED_CONTEXT(api);
  {
    std::lock_guard<std::mutex> lock(g_objects_mu);
    objects().erase(handle);
  }
  return report(api, cucore_tex_destroy(handle));
}
CU_EXPORT CUresult cuTexObjectDestroy(unsigned long long texObject) {
  return destroy_object("cuTexObjectDestroy", texObject);
}
CU_EXPORT CUresult cuSurfObjectDestroy(unsigned long long surfObject) {
  return destroy_object("cuSurfObjectDestroy", surfObject);
}

static CUresult object_descs(const char *api, unsigned long long handle, bool want_texture, ObjectDescs *out) {
  std::lock_guard<std::mutex> lock(g_objects_mu);
  auto it = objects().find(handle);
  if (it != objects().end() && cucore_tex_get(handle, nullptr) != CUDA_SUCCESS) {  // gone with a reset
    objects().erase(it);
    it = objects().end();
  }
  if (it == objects().end() || (want_texture && !it->second.is_texture)) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "0x%llx is not a live %s object", handle,
                want_texture ? "texture" : "texture or surface");
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  *out = it->second;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuTexObjectGetResourceDesc(void *pResDesc, unsigned long long texObject) {
  if (!pResDesc) return fail("cuTexObjectGetResourceDesc", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  ObjectDescs d;
  CUresult r = object_descs("cuTexObjectGetResourceDesc", texObject, true, &d);
  if (r == CUDA_SUCCESS) std::memcpy(pResDesc, &d.res, sizeof d.res);
  return r;
}
CU_EXPORT CUresult cuTexObjectGetTextureDesc(void *pTexDesc, unsigned long long texObject) {
  if (!pTexDesc) return fail("cuTexObjectGetTextureDesc", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  ObjectDescs d;
  CUresult r = object_descs("cuTexObjectGetTextureDesc", texObject, true, &d);
  if (r == CUDA_SUCCESS) std::memcpy(pTexDesc, &d.tex, sizeof d.tex);
  return r;
}
CU_EXPORT CUresult cuSurfObjectGetResourceDesc(void *pResDesc, unsigned long long surfObject) {
  if (!pResDesc) return fail("cuSurfObjectGetResourceDesc", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  ObjectDescs d;
  CUresult r = object_descs("cuSurfObjectGetResourceDesc", surfObject, false, &d);
  if (r == CUDA_SUCCESS) std::memcpy(pResDesc, &d.res, sizeof d.res);
  return r;
}
