// texture_test.cc — CUDA arrays, channel descriptors, copies to and from arrays, texture and
// surface objects (descriptors in device memory, func_tex.h), and each misuse.
#include <cstring>
#include <vector>

#include "cudart_test_util.h"

using namespace cudart_test;

namespace {
cudaChannelFormatDesc float1() { return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat); }
}  // namespace

TEST(CudartTexture, ChannelDescriptorsAndArrayInfoRoundTrip) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  EXPECT_EQ(d.x, 8);
  EXPECT_EQ(d.w, 8);
  EXPECT_EQ(d.f, cudaChannelFormatKindUnsigned);
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &d, 33, 7, cudaArraySurfaceLoadStore), cudaSuccess);
  cudaChannelFormatDesc back;
  cudaExtent e;
  unsigned flags = 0;
  ASSERT_EQ(cudaArrayGetInfo(&back, &e, &flags, a), cudaSuccess);
  EXPECT_EQ(back.x, 8);
  EXPECT_EQ(back.z, 8);
  EXPECT_EQ(back.f, cudaChannelFormatKindUnsigned);
  EXPECT_EQ(e.width, 33u);
  EXPECT_EQ(e.height, 7u);
  EXPECT_EQ(flags, (unsigned)cudaArraySurfaceLoadStore);
  ASSERT_EQ(cudaGetChannelDesc(&back, a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaErrorInvalidResourceHandle);  // freed twice
  EXPECT_EQ(cudaFreeArray(nullptr), cudaSuccess);
  cudaGetLastError();
}

TEST(CudartTexture, UnsupportedChannelFormatsAreInvalidChannelDescriptor) {
  cudaArray_t a;
  cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  EXPECT_EQ(cudaMallocArray(&a, &three, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned);
  EXPECT_EQ(cudaMallocArray(&a, &mixed, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc f8 = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
  EXPECT_EQ(cudaMallocArray(&a, &f8, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc f = float1();
  EXPECT_EQ(cudaMallocArray(&a, &f, 0, 4, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(nullptr, &f, 4, 4, 0), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartTexture, LinearTextureFetchReadsDeviceMemory) {
  const int n = 100;
  std::vector<float> h(n);
  for (int i = 0; i < n; i++) h[i] = 1.5f * i;
  float *src, *out;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&src), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&out), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(src, h.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = src;
  res.res.linear.desc = float1();
  res.res.linear.sizeInBytes = n * 4;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  ASSERT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaSuccess);
  EXPECT_NE(t, 0u);
  int nn = n;
  ASSERT_EQ(launch(kernels().kernel("tex_linear"), d3(1), d3(128), 0, nullptr, t, out, nn), cudaSuccess);
  std::vector<float> back(n);
  ASSERT_EQ(cudaMemcpy(back.data(), out, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, h);
  cudaResourceDesc res_back;
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&res_back, t), cudaSuccess);
  EXPECT_EQ(res_back.res.linear.devPtr, src);
  ASSERT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaErrorInvalidValue);  // destroyed twice
  EXPECT_EQ(cudaGetTextureObjectResourceDesc(&res_back, t), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(src);
  cudaFree(out);
}

TEST(CudartTexture, SurfaceWritesAndTextureReadsOfOneArray) {
  const int w = 12, h = 5;
  cudaChannelFormatDesc f = float1();
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &f, w, h, cudaArraySurfaceLoadStore), cudaSuccess);
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  ASSERT_EQ(cudaCreateSurfaceObject(&s, &res), cudaSuccess);
  int ww = w, hh = h;
  ASSERT_EQ(launch(kernels().kernel("surf_write"), d3(h), d3(w), 0, nullptr, s, ww, hh), cudaSuccess);
  // Read back through cudaMemcpy2DFromArray, then modify one row with cudaMemcpy2DToArray.
  std::vector<float> back(w * h);
  ASSERT_EQ(cudaMemcpy2DFromArray(back.data(), w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) ASSERT_EQ(back[y * w + x], (float)(x * 10 + y)) << x << "," << y;
  std::vector<float> row(w, -1.0f);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 2, row.data(), w * 4, w * 4, 1, cudaMemcpyHostToDevice), cudaSuccess);
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  cudaTextureObject_t t;
  ASSERT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaSuccess);
  float *out;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&out), w * h * 4), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("tex_2d"), d3(h), d3(w), 0, nullptr, t, out, ww, hh), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), out, w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[2 * w + 3], -1.0f);
  EXPECT_EQ(back[4 * w + 11], 114.0f);
  cudaDestroyTextureObject(t);
  cudaDestroySurfaceObject(s);
  cudaFree(out);
  cudaFreeArray(a);
}

TEST(CudartTexture, SurfaceNeedsAnArrayCreatedForLoadStore) {
  cudaChannelFormatDesc f = float1();
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &f, 8, 8, 0), cudaSuccess);
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaSurfaceObject_t s;
  std::string err = stderr_of([&] { EXPECT_EQ(cudaCreateSurfaceObject(&s, &res), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("cudaArraySurfaceLoadStore"), std::string::npos) << err;
  cudaGetLastError();
  cudaFreeArray(a);
}

TEST(CudartTexture, InvalidTextureSettingsAreRefused) {
  cudaChannelFormatDesc i32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &i32, 8, 8, 0), cudaSuccess);
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  cudaTextureObject_t t;
  td.filterMode = cudaFilterModeLinear;  // linear filtering of 32-bit integers
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidFilterSetting);
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;  // only 8- and 16-bit integers normalise
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidNormSetting);
  td.readMode = cudaReadModeElementType;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, nullptr, nullptr), cudaErrorInvalidValue);
  res.resType = cudaResourceTypeMipmappedArray;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorNotSupported);
  res.resType = cudaResourceTypeLinear;
  int host[4];
  res.res.linear.devPtr = host;  // not device memory
  res.res.linear.desc = i32;
  res.res.linear.sizeInBytes = sizeof host;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFreeArray(a);
}

TEST(CudartTexture, CopiesOutsideTheArrayAreInvalidValue) {
  cudaChannelFormatDesc f = float1();
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &f, 8, 4, 0), cudaSuccess);
  std::vector<float> h(64);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 4, 0, h.data(), 32, 32, 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 3, h.data(), 32, 32, 2, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DFromArray(h.data(), 16, a, 0, 0, 32, 2, cudaMemcpyDeviceToHost), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, h.data(), 32, 32, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  cudaArray_t gone;
  ASSERT_EQ(cudaMallocArray(&gone, &f, 8, 4, 0), cudaSuccess);
  ASSERT_EQ(cudaFreeArray(gone), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2DToArray(gone, 0, 0, h.data(), 32, 32, 1, cudaMemcpyHostToDevice), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  cudaFreeArray(a);
}

TEST(CudartTexture, LayeredAndThreeDimensionalArraysWithMemcpy3D) {
  cudaChannelFormatDesc f = float1();
  cudaArray_t a;
  cudaExtent e = {4, 3, 2};
  ASSERT_EQ(cudaMalloc3DArray(&a, &f, e, 0), cudaSuccess);
  std::vector<float> h(4 * 3 * 2), back(4 * 3 * 2, 0);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)i;
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = cudaPitchedPtr{h.data(), 16, 4, 3};
  p.dstArray = a;
  p.extent = e;
  p.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  std::memset(&p, 0, sizeof p);
  p.srcArray = a;
  p.dstPtr = cudaPitchedPtr{back.data(), 16, 4, 3};
  p.extent = e;
  p.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  EXPECT_EQ(back, h);
  cudaFreeArray(a);
  cudaArray_t layered, cube;
  ASSERT_EQ(cudaMalloc3DArray(&layered, &f, cudaExtent{8, 8, 3}, cudaArrayLayered), cudaSuccess);
  ASSERT_EQ(cudaMalloc3DArray(&cube, &f, cudaExtent{8, 8, 6}, cudaArrayCubemap), cudaSuccess);
  EXPECT_EQ(cudaMalloc3DArray(&a, &f, cudaExtent{8, 4, 6}, cudaArrayCubemap), cudaErrorInvalidValue);  // not square
  cudaGetLastError();
  cudaFreeArray(layered);
  cudaFreeArray(cube);
}
