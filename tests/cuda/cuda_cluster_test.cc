// cuda_cluster_test.cc — the driver API's Hopper entry points on the H100 configuration (compute
// capability 9.0): cuLaunchKernelEx with a cluster-dimension attribute, kernels with compiled
// cluster dimensions (__cluster_dims__), the cluster function attributes, cuTensorMapEncodeTiled
// and a TMA kernel reading through the maps it wrote, and the error of each misuse. The kernels
// are tests/kernels/hopper.cu's, loaded from its committed PTX. cuda.h's launch-config and
// tensor-map types are declared here by their documented layout (no CUDA headers in CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cu_core.h"
#include "cuda_api.h"

namespace {

struct Environment {
  Environment() {
    setenv("SIMTVP_CONFIG", SIMTVP_SOURCE_DIR "/configs/SM90_H100.config", 1);
    setenv("SIMTVP_QUIET", "1", 0);
    setenv("SIMTVP_CUDA_QUIET", "1", 0);
  }
} environment;

// CUlaunchAttribute / CUlaunchConfig (cuda.h, CUDA 12+)
struct LaunchAttribute {
  int id;  // CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2, _CLUSTER_DIMENSION = 4
  char pad[4];
  union {
    char bytes[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
struct alignas(64) TensorMap {
  uint64_t opaque[16];
};

constexpr int kInvalidClusterSize = 912;  // CUDA_ERROR_INVALID_CLUSTER_SIZE
constexpr int kInt32 = 3;                 // CU_TENSOR_MAP_DATA_TYPE_INT32

}  // namespace

extern "C" {
CUresult cuLaunchKernelEx(const LaunchConfig *config, CUfunction f, void **kernelParams, void **extra);
CUresult cuTensorMapEncodeTiled(void *tensorMap, int tensorDataType, unsigned tensorRank, void *globalAddress,
                                const uint64_t *globalDim, const uint64_t *globalStrides, const unsigned *boxDim,
                                const unsigned *elementStrides, int interleave, int swizzle, int l2Promotion,
                                int oobFill);
}

namespace {

class CudaCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoad(&mod, SIMTVP_SOURCE_DIR "/tests/kernels/ptx/hopper.ptx"), CUDA_SUCCESS)
        << cucore_last_message();
  }
  void TearDown() override {
    if (mod) cuModuleUnload(mod);
    if (ctx) cuCtxDestroy_v2(ctx);
  }
  CUfunction function(const char *name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, mod, name), CUDA_SUCCESS);
    return f;
  }
  CUdeviceptr upload(const std::vector<int> &v) {
    CUdeviceptr d = 0;
    EXPECT_EQ(cuMemAlloc_v2(&d, v.size() * 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD_v2(d, v.data(), v.size() * 4), CUDA_SUCCESS);
    return d;
  }
  std::vector<int> download(CUdeviceptr d, size_t n) {
    std::vector<int> v(n);
    EXPECT_EQ(cuMemcpyDtoH_v2(v.data(), d, n * 4), CUDA_SUCCESS);
    return v;
  }
  static LaunchConfig config(unsigned grid, unsigned block, unsigned smem, LaunchAttribute *a, unsigned n) {
    return LaunchConfig{grid, 1, 1, block, 1, 1, smem, nullptr, a, n};
  }
  static LaunchAttribute cluster(unsigned x, unsigned y = 1, unsigned z = 1) {
    LaunchAttribute a;
    std::memset(&a, 0, sizeof a);
    a.id = 4;
    a.value.clusterDim.x = x, a.value.clusterDim.y = y, a.value.clusterDim.z = z;
    return a;
  }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
};

TEST_F(CudaCluster, DeviceIsComputeCapability90) {
  int major = 0, minor = -1;
  ASSERT_EQ(cuDeviceGetAttribute(&major, 75, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&minor, 76, 0), CUDA_SUCCESS);
  EXPECT_EQ(major * 10 + minor, 90);
}

// The Programming Guide's distributed-shared-memory histogram: clusters of 4 from the attribute.
TEST_F(CudaCluster, LaunchKernelExRunsClustersFromTheAttribute) {
  const int n = 3000, nbins = 128;
  std::vector<int> in(n), want(nbins, 0);
  for (int i = 0; i < n; i++) in[i] = i * 7919 % 100000, want[in[i] % nbins]++;
  CUdeviceptr din = upload(in), dbins = upload(std::vector<int>(nbins, 0));
  int nb = nbins, nn = n;
  void *args[] = {&dbins, &nb, &din, &nn};
  LaunchAttribute a = cluster(4);
  LaunchConfig c = config(8, 128, nbins / 4 * 4, &a, 1);
  ASSERT_EQ(cuLaunchKernelEx(&c, function("_Z17cluster_histogramPiiPKii"), args, nullptr), CUDA_SUCCESS)
      << cucore_last_message();
  EXPECT_EQ(download(dbins, nbins), want);
}

// __cluster_dims__(2,1,1): a plain cuLaunchKernel runs clusters of 2; the attribute may repeat
// them but not change them.
TEST_F(CudaCluster, CompiledClusterDimensionsApplyToPlainLaunches) {
  CUfunction f = function("_Z16cluster_exchangePi");
  int v = -1;
  ASSERT_EQ(cuFuncGetAttribute(&v, 11, f), CUDA_SUCCESS);  // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
  EXPECT_EQ(v, 2);
  ASSERT_EQ(cuFuncGetAttribute(&v, 12, f), CUDA_SUCCESS);  // height
  EXPECT_EQ(v, 1);
  ASSERT_EQ(cuFuncGetAttribute(&v, 10, f), CUDA_SUCCESS);  // CLUSTER_SIZE_MUST_BE_SET
  EXPECT_EQ(v, 0);
  ASSERT_EQ(cuFuncGetAttribute(&v, 11, function("_Z10bulk_scalePKiPiS1_")), CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  const int blocks = 6;
  CUdeviceptr d = upload(std::vector<int>(blocks * 64, -1));
  void *args[] = {&d};
  ASSERT_EQ(cuLaunchKernel(f, blocks, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS)
      << cucore_last_message();
  std::vector<int> out = download(d, blocks * 64);
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < 64; t++) {
      const int rank = b % 2;
      ASSERT_EQ(out[b * 64 + t], (rank ^ 1) * 100 + t + 2000 + 10000 * rank + 100000 * (b / 2)) << b << " " << t;
    }
  LaunchAttribute same = cluster(2), other = cluster(3);
  LaunchConfig c = config(blocks, 64, 0, &same, 1);
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), CUDA_SUCCESS);
  c.attrs = &other;
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), kInvalidClusterSize);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(CudaCluster, BadClustersAreInvalidClusterSize) {
  CUfunction f = function("_Z17cluster_histogramPiiPKii");
  CUdeviceptr d = upload(std::vector<int>(64, 0));
  int nb = 64, n = 0;
  void *args[] = {&d, &nb, &d, &n};
  LaunchAttribute a = cluster(3);  // does not divide 8
  LaunchConfig c = config(8, 32, 64 * 4, &a, 1);  // room for every bin in each CTA
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), kInvalidClusterSize);
  a = cluster(2, 0);  // a zero dimension
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), kInvalidClusterSize);
  a = cluster(16);  // beyond the portable 8 ...
  c.gridDimX = 16;
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), kInvalidClusterSize);
  ASSERT_EQ(cuFuncSetAttribute(f, 14, 1), CUDA_SUCCESS);  // ... until NON_PORTABLE_CLUSTER_SIZE_ALLOWED
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), CUDA_SUCCESS) << cucore_last_message();
  a = cluster(32);  // beyond any
  c.gridDimX = 32;
  EXPECT_EQ(cuLaunchKernelEx(&c, f, args, nullptr), kInvalidClusterSize);
  EXPECT_EQ(cuLaunchKernelEx(nullptr, f, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

// cuTensorMapEncodeTiled writes the map tma_tile reads through (a 16 x 16 box of a 40 x 24 int
// tensor, rows padded to 48; out-of-bounds elements read as zero) and stores back through.
TEST_F(CudaCluster, TensorMapsEncodedByTheDriverDriveTmaCopies) {
  const int w = 40, h = 24, pitch = 48, gx = 3, gy = 2;
  std::vector<int> t(pitch * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < pitch; x++) t[y * pitch + x] = x < w ? 1000 * y + x : -1;
  CUdeviceptr dt = upload(t), dback = upload(std::vector<int>(pitch * h, 0)), dtiles = upload(std::vector<int>(gx * gy * 256));
  TensorMap src, dst;
  uint64_t dims[2] = {(uint64_t)w, (uint64_t)h}, strides[1] = {pitch * 4};
  unsigned box[2] = {16, 16}, estr[2] = {1, 1};
  ASSERT_EQ(cuTensorMapEncodeTiled(&src, kInt32, 2, reinterpret_cast<void *>(dt), dims, strides, box, estr, 0, 0, 0, 0),
            CUDA_SUCCESS) << cucore_last_message();
  ASSERT_EQ(cuTensorMapEncodeTiled(&dst, kInt32, 2, reinterpret_cast<void *>(dback), dims, strides, box, estr, 0, 0, 0,
                                   0), CUDA_SUCCESS);
  int ox = 4, oy = 3;
  void *args[] = {&src, &dst, &dtiles, &ox, &oy};
  ASSERT_EQ(cuLaunchKernel(function("_Z8tma_tile14CUtensorMap_stS_Piii"), gx, gy, 1, 256, 1, 1, 0, nullptr, args,
                           nullptr), CUDA_SUCCESS) << cucore_last_message();
  std::vector<int> tiles = download(dtiles, gx * gy * 256), back = download(dback, pitch * h);
  for (int b = 0; b < gx * gy; b++)
    for (int e = 0; e < 256; e++) {
      const int x = 16 * (b % gx) + ox + e % 16, y = 16 * (b / gx) + oy + e / 16;
      ASSERT_EQ(tiles[b * 256 + e], x < w && y < h ? 1000 * y + x : 0) << b << " " << e;
    }
  EXPECT_EQ(back[5 * pitch + 7], 1000 * (5 + oy) + 7 + ox + 1);  // tile (0,0) element (7,5) + 1
  // CUDA's rules: 64-byte aligned map, 16-byte aligned address, strides multiples of 16, box <= 256
  char raw[192];
  void *misaligned = raw + (64 - reinterpret_cast<uintptr_t>(raw) % 64) % 64 + 8;
  EXPECT_EQ(cuTensorMapEncodeTiled(misaligned, kInt32, 2, reinterpret_cast<void *>(dt), dims, strides, box, estr, 0, 0,
                                   0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuTensorMapEncodeTiled(&src, kInt32, 2, reinterpret_cast<void *>(dt + 4), dims, strides, box, estr, 0, 0,
                                   0, 0), CUDA_ERROR_INVALID_VALUE);
  uint64_t odd[1] = {pitch * 4 + 4};
  EXPECT_EQ(cuTensorMapEncodeTiled(&src, kInt32, 2, reinterpret_cast<void *>(dt), dims, odd, box, estr, 0, 0, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
  unsigned big[2] = {512, 16};
  EXPECT_EQ(cuTensorMapEncodeTiled(&src, kInt32, 2, reinterpret_cast<void *>(dt), dims, strides, big, estr, 0, 0, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
