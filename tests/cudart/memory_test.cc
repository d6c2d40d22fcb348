// memory_test.cc — device, pinned and managed memory; copies of every kind, 2-D and 3-D; memsets;
// symbols; pointer attributes; and the error of each misuse.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cudart_test_util.h"
#include "simtvp_host.h"
#include "stats.h"

using namespace cudart_test;

TEST(CudartMemory, MallocAndFreeRoundTrip) {
  void *p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);  // 256-byte aligned like CUDA's
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
}

TEST(CudartMemory, FreeTwiceAndInteriorPointersAreInvalidValue) {
  char *p = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&p), 1000), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaFree(p + 8), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("cudaFree"), std::string::npos) << err;
  EXPECT_NE(err.find("not its start"), std::string::npos) << err;
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  err = stderr_of([&] { EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("already freed"), std::string::npos) << err;
  int host;
  EXPECT_EQ(cudaFree(&host), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartMemory, NullResultPointerAndHugeSizeAreRefused) {
  EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  void *p = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(cudaMalloc(&p, (size_t)1 << 50), cudaErrorMemoryAllocation);
  EXPECT_EQ(p, nullptr);
  cudaGetLastError();
}

TEST(CudartMemory, MemcpyOfEveryKind) {
  const int n = 1000;
  std::vector<int> a(n), b(n, 0), c(n, 0);
  for (int i = 0; i < n; i++) a[i] = i * 7;
  int *d1, *d2;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d1), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d2), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d1, a.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d2, d1, n * 4, cudaMemcpyDeviceToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b.data(), d2, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(a, b);
  ASSERT_EQ(cudaMemcpy(c.data(), b.data(), n * 4, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(a, c);
  // cudaMemcpyDefault: the direction comes from the addresses (unified addressing).
  std::vector<int> e(n, 0);
  ASSERT_EQ(cudaMemcpy(d2 + 10, a.data(), 40, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(e.data(), d2, n * 4, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(e[10], 0);
  EXPECT_EQ(e[19], 63);
  EXPECT_EQ(cudaMemcpy(nullptr, d1, 0, cudaMemcpyDeviceToHost), cudaSuccess);  // 0 bytes: nothing to check
  cudaFree(d1);
  cudaFree(d2);
}

TEST(CudartMemory, MemcpyKindThatContradictsTheAddressesIsInvalidValue) {
  int *d, h[4] = {};
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 16), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaMemcpy(h, h, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("not a live cudaMalloc allocation"), std::string::npos) << err;
  EXPECT_EQ(cudaMemcpy(h, d, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // source is device memory
  EXPECT_EQ(cudaMemcpy(d, h, 16, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpy(d, nullptr, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartMemory, CopyPastTheAllocationOrAfterFreeIsInvalidValue) {
  char *d;
  std::vector<char> h(4096);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 1024), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaMemcpy(d + 512, h.data(), 1024, cudaMemcpyHostToDevice), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("0x"), std::string::npos) << err;  // names the address
  ASSERT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(h.data(), d, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  // use after free
  EXPECT_EQ(cudaMemset(d, 0, 16), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartMemory, PitchedAllocationsAnd2DCopies) {
  void *d = nullptr;
  size_t pitch = 0;
  const size_t w = 100, h = 7;
  ASSERT_EQ(cudaMallocPitch(&d, &pitch, w, h), cudaSuccess);
  EXPECT_GE(pitch, w);
  EXPECT_EQ(pitch % 512, 0u);
  std::vector<uint8_t> src(w * h), back(w * h, 0);
  for (size_t i = 0; i < src.size(); i++) src[i] = (uint8_t)(i * 3);
  ASSERT_EQ(cudaMemcpy2D(d, pitch, src.data(), w, w, h, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset2D(static_cast<char *>(d) + 10, pitch, 0xab, 5, h), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(back.data(), w, d, pitch, w, h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t y = 0; y < h; y++)
    for (size_t x = 0; x < w; x++)
      ASSERT_EQ(back[y * w + x], x >= 10 && x < 15 ? 0xab : src[y * w + x]) << x << "," << y;
  EXPECT_EQ(cudaMemcpy2D(d, pitch, src.data(), w, pitch + 1, h, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartMemory, Malloc3DAndMemset3D) {
  cudaPitchedPtr p;
  cudaExtent e = {64, 4, 3};
  ASSERT_EQ(cudaMalloc3D(&p, e), cudaSuccess);
  EXPECT_EQ(p.xsize, 64u);
  EXPECT_EQ(p.ysize, 4u);
  ASSERT_EQ(cudaMemset(p.ptr, 0, p.pitch * 4 * 3), cudaSuccess);  // device memory is not zeroed
  ASSERT_EQ(cudaMemset3D(p, 7, e), cudaSuccess);
  std::vector<uint8_t> h(p.pitch * 4 * 3);
  ASSERT_EQ(cudaMemcpy(h.data(), p.ptr, h.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(h[2 * 4 * p.pitch + 3 * p.pitch + 63], 7);
  EXPECT_EQ(h[64], 0);  // the pitch padding is untouched
  cudaFree(p.ptr);
}

TEST(CudartMemory, MemsetFillsBytes) {
  uint8_t *d;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 300), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0x5a, 300), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d + 100, 0x1234, 50, nullptr), cudaSuccess);  // only the low byte counts
  uint8_t h[300];
  ASSERT_EQ(cudaMemcpy(h, d, 300, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], 0x5a);
  EXPECT_EQ(h[100], 0x34);
  EXPECT_EQ(h[149], 0x34);
  EXPECT_EQ(h[150], 0x5a);
  cudaFree(d);
}

TEST(CudartMemory, MemGetInfoShrinksByAnAllocation) {
  size_t free0 = 0, total = 0, free1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  EXPECT_GT(total, 0u);
  void *p;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  EXPECT_EQ(free0 - free1, (size_t)1 << 20);
  cudaFree(p);
}

TEST(CudartMemory, PinnedMemoryCopiesAsynchronouslyAndIsReportedAsHost) {
  const int n = 4096;
  int *pinned = nullptr, *d = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void **>(&pinned), n * 4, cudaHostAllocPortable), cudaSuccess);
  for (int i = 0; i < n; i++) pinned[i] = i;
  // The platform's system memory itself (simtvp_host_sysmem_ptr): copies are DMAs from it.
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(pinned), &info);
  EXPECT_EQ(info.type, CU_MEM_PINNED);
  EXPECT_NE(info.bus, 0u);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d, pinned, n * 4, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 256), d3(256), 0, s, d, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d, n * 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(pinned[i], i + 1) << i;
  unsigned flags = 99;
  ASSERT_EQ(cudaHostGetFlags(&flags, pinned), cudaSuccess);
  EXPECT_EQ(flags, (unsigned)cudaHostAllocPortable);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, pinned + 5), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  void *dp = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&dp, pinned + 5, 0), cudaSuccess);  // mapped now: zero-copy
  EXPECT_EQ(dp, pinned + 5);  // unified addressing: the host's address
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pinned), cudaErrorInvalidValue);  // freed twice
  int not_pinned;
  EXPECT_EQ(cudaFreeHost(&not_pinned), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(d);
}

// Zero-copy (docs/system-modes.md): a kernel reads and writes mapped pinned memory in place,
// through the GPU's DMA initiator; the host sees the kernel's writes without a copy.
TEST(CudartMemory, KernelsReadAndWriteMappedPinnedMemoryInPlace) {
  const int n = 1024;
  int *h = nullptr, *d = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void **>(&h), n * 4, cudaHostAllocMapped), cudaSuccess);
  for (int i = 0; i < n; i++) h[i] = 7 * i;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(&d), h, 0), cudaSuccess);
  EXPECT_EQ(d, h);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 256), d3(256), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], 7 * i + 1) << i;
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, h), cudaSuccess);
  EXPECT_EQ(a.devicePointer, h);
  ASSERT_EQ(cudaFreeHost(h), cudaSuccess);
}

TEST(CudartMemory, RegisteredMappedHostMemoryIsReachedByKernels) {
  const int n = 3000;  // not a whole number of pages, and not page-aligned
  std::vector<int> buf(n + 100);
  int *h = buf.data() + 3;
  for (int i = 0; i < n; i++) h[i] = i;
  ASSERT_EQ(cudaHostRegister(h, n * 4, cudaHostRegisterMapped), cudaSuccess);
  int *d = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(&d), h, 0), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3((n + 255) / 256), d3(256), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], i + 1) << i;
  EXPECT_EQ(buf[2], 0);  // the bytes around the range are untouched
  ASSERT_EQ(cudaHostUnregister(h), cudaSuccess);
  // Registering again after unregistering maps it again.
  ASSERT_EQ(cudaHostRegister(h, n * 4, cudaHostRegisterMapped), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(h), cudaSuccess);
}

namespace {
uint64_t gpu_stat(const char *name) {
  int found = 0;
  uint64_t v = stats_get(simtvp_host_stats(simtvp_host_get()), name, &found);
  return found ? v : 0;
}

struct Cost {
  uint64_t copies, bytes;
  bool operator==(const Cost &o) const { return copies == o.copies && bytes == o.bytes; }
};

// Registers n ints at h mapped, lets a kernel add one to each through the device pointer,
// unregisters; what the copy engine did meanwhile (the driver's page-table writes).
Cost register_and_add_one(int *h, int n, int **device) {
  Cost before{gpu_stat("ce.copies"), gpu_stat("ce.bytes")};
  for (int i = 0; i < n; i++) h[i] = 5 * i;
  EXPECT_EQ(cudaHostRegister(h, n * 4, cudaHostRegisterMapped), cudaSuccess);
  EXPECT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(device), h, 0), cudaSuccess);
  EXPECT_EQ(launch(kernels().kernel("add_one"), d3(n / 256), d3(256), 0, nullptr, *device, n), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < n; i++) EXPECT_EQ(h[i], 5 * i + 1) << i;
  EXPECT_EQ(cudaHostUnregister(h), cudaSuccess);
  return Cost{gpu_stat("ce.copies") - before.copies, gpu_stat("ce.bytes") - before.bytes};
}
}  // namespace

// Where the program's buffer lies does not change what the simulated GPU does: registered memory
// gets device addresses of its own (cudaDevAttrCanUseHostPointerForRegisteredMem is 0), in the
// order it is mapped. Mapped at its host address, a 16 KiB buffer across a 2 MiB boundary needed
// a second level-0 page table: one copy-engine copy and 4 KiB more to map it and one copy more to
// unmap it than the same buffer inside one 2 MiB region (tests/kernels zerocopy: ce.copies 28
// instead of 26, ce.bytes +4096, in the runs whose heap put it there).
TEST(CudartMemory, RegisteredMemoryCostsTheSameWhereverItLies) {
  const uint64_t region = 2ull << 20, page = 4096;
  const int n = 4 * 1024;  // four pages
  void *area = mmap(nullptr, 4 * region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(area, MAP_FAILED);
  const uint64_t boundary = (reinterpret_cast<uint64_t>(area) + region - 1) & ~(region - 1);
  int *inside = reinterpret_cast<int *>(boundary);                           // pages 0-3 of a region
  int *across = reinterpret_cast<int *>(boundary + 2 * region - 2 * page);   // two pages on each side
  int *d_warm = nullptr, *d_inside = nullptr, *d_across = nullptr;
  register_and_add_one(inside, n, &d_warm);  // the tables above the leaves exist from now on
  const Cost in = register_and_add_one(inside, n, &d_inside);
  const Cost acr = register_and_add_one(across, n, &d_across);
  EXPECT_TRUE(in == acr) << "inside one 2 MiB region: " << in.copies << " copies, " << in.bytes
                         << " bytes; across a boundary: " << acr.copies << " copies, " << acr.bytes << " bytes";
  EXPECT_EQ(in.copies, 2u);  // the four leaf entries, written when mapped and when unmapped
  EXPECT_EQ(d_inside, d_across);  // the window's first free pages, each time
  EXPECT_EQ(d_warm, d_inside);
  EXPECT_NE(d_inside, inside);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaHostRegister(across + 3, 100, cudaHostRegisterMapped), cudaSuccess);
  ASSERT_EQ(cudaPointerGetAttributes(&a, across + 5), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  EXPECT_EQ(a.hostPointer, across + 5);
  EXPECT_EQ(a.devicePointer, d_across + 5);  // the same offset within the page
  int back[4] = {};  // a copy from the device pointer reads the program's memory
  ASSERT_EQ(cudaMemcpy(back, d_across + 4, sizeof back, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back[0], across[4]);
  EXPECT_EQ(back[3], across[7]);
  ASSERT_EQ(cudaHostUnregister(across + 3), cudaSuccess);
  munmap(area, 4 * region);
}

// Two registrations inside one page are mapped at device addresses of their own (one page each,
// the same offsets) over one exposure of the page, which the second keeps when the first is
// unregistered: kernels still reach it.
TEST(CudartMemory, TwoRegistrationsOfOnePageAreReachedIndependently) {
  int *page = static_cast<int *>(std::aligned_alloc(4096, 4096));
  ASSERT_NE(page, nullptr);
  int *a = page, *b = page + 512;
  for (int i = 0; i < 1024; i++) page[i] = i;
  ASSERT_EQ(cudaHostRegister(a, 256 * 4, cudaHostRegisterMapped), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(b, 256 * 4, cudaHostRegisterMapped), cudaSuccess);
  int *da = nullptr, *db = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(&da), a, 0), cudaSuccess);
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(&db), b, 0), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(db) - reinterpret_cast<uintptr_t>(da), 4096u + 2048u);  // next page, same offset
  ASSERT_EQ(cudaHostUnregister(a), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(256), 0, nullptr, db, 256), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < 256; i++) ASSERT_EQ(b[i], 512 + i + 1) << i;
  EXPECT_EQ(a[0], 0);
  ASSERT_EQ(cudaHostUnregister(b), cudaSuccess);
  std::free(page);
}

TEST(CudartMemory, DevicePointerOfMemoryThatIsNotPinnedIsAnError) {
  int x = 0;
  void *d = &x;
  EXPECT_EQ(cudaHostGetDevicePointer(&d, &x, 0), cudaErrorInvalidValue);
  EXPECT_EQ(d, nullptr);
  int *h = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&h), 64), cudaSuccess);
  EXPECT_EQ(cudaHostGetDevicePointer(&d, h, 1), cudaErrorInvalidValue);  // flags must be 0
  cudaGetLastError();
  cudaFreeHost(h);
}

TEST(CudartMemory, MallocHostGivesZeroedPinnedMemory) {
  char *p = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&p), 10000), cudaSuccess);
  for (int i = 0; i < 10000; i++) ASSERT_EQ(p[i], 0);
  EXPECT_EQ(cudaHostAlloc(reinterpret_cast<void **>(&p), 16, 0x40), cudaErrorInvalidValue);  // unknown flag
  cudaGetLastError();
  cudaFreeHost(p);
}

TEST(CudartMemory, ManagedMemoryIsOnePointerForHostAndKernels) {
  const int n = 512;
  int *m = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void **>(&m), n * 4, cudaMemAttachGlobal), cudaSuccess);
  for (int i = 0; i < n; i++) m[i] = 3 * i;  // the host writes through the pointer
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 3 * i + 1) << i;  // and reads the kernel's result
  // Copies and memsets see the same memory.
  std::vector<int> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), m, n * 4, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(h[n - 1], 3 * (n - 1) + 1);
  ASSERT_EQ(cudaMemset(m, 0, 8), cudaSuccess);
  EXPECT_EQ(m[1], 0);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, m), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  EXPECT_EQ(a.hostPointer, m);
  EXPECT_EQ(a.devicePointer, m);
  EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void **>(&m), 16, 0x10), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFree(a.devicePointer), cudaSuccess);
}

TEST(CudartMemory, ManagedVariableIsReadableOnTheHostAfterInitModule) {
  Registration &r = kernels();
  ASSERT_EQ(__cudaInitModule(r.handle()), 1);
  int *value = static_cast<int *>(*r.managed_ptr("managed_value"));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(*value, 5);  // the PTX initialiser
  *value = 7;
  int *d;
  const int n = 4;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, n * 4), cudaSuccess);
  ASSERT_EQ(launch(r.kernel("bump_managed"), d3(1), d3(n), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(*value, 107);  // the kernel saw the host's 7 and added 100
  int h[n];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], 7);
  cudaFree(d);
}

TEST(CudartMemory, PointerAttributesOfDeviceAndOrdinaryHostMemory) {
  void *d;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, static_cast<char *>(d) + 3), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  EXPECT_EQ(a.device, 0);
  int host;
  ASSERT_EQ(cudaPointerGetAttributes(&a, &host), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
  EXPECT_EQ(cudaPointerGetAttributes(nullptr, &host), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(d);
}

// ---- symbols ----------------------------------------------------------------------------------------

TEST(CudartSymbol, MemcpyToAndFromSymbolsReachesTheKernel) {
  Registration &r = kernels();
  float table[16];
  for (int i = 0; i < 16; i++) table[i] = 0.5f * i;
  ASSERT_EQ(cudaMemcpyToSymbol(r.var("const_table"), table, sizeof table, 0, cudaMemcpyHostToDevice), cudaSuccess);
  int zero = 0;
  ASSERT_EQ(cudaMemcpyToSymbol(r.var("dev_counter"), &zero, 4, 0, cudaMemcpyHostToDevice), cudaSuccess);
  const int n = 64;
  float *out;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&out), n * 4), cudaSuccess);
  ASSERT_EQ(launch(r.kernel("use_symbols"), d3(1), d3(n), 0, nullptr, out, n), cudaSuccess);
  ASSERT_EQ(launch(r.kernel("use_symbols"), d3(1), d3(n), 0, nullptr, out, n), cudaSuccess);
  float h[n];
  ASSERT_EQ(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], 0.5f * (i % 16) + 10.0f * (1 + i % 4)) << i;  // + init_table
  int counter = -1;
  ASSERT_EQ(cudaMemcpyFromSymbol(&counter, r.var("dev_counter"), 4, 0, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(counter, 2);
  // An offset into the symbol.
  float two;
  ASSERT_EQ(cudaMemcpyFromSymbol(&two, r.var("const_table"), 4, 4 * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(two, 2.0f);
  cudaFree(out);
}

TEST(CudartSymbol, SymbolAddressAndSizeAreTheVariables) {
  Registration &r = kernels();
  void *addr = nullptr;
  size_t size = 0;
  ASSERT_EQ(cudaGetSymbolAddress(&addr, r.var("init_table")), cudaSuccess);
  ASSERT_EQ(cudaGetSymbolSize(&size, r.var("init_table")), cudaSuccess);
  EXPECT_EQ(size, 16u);
  int h[4];
  ASSERT_EQ(cudaMemcpy(h, addr, 16, cudaMemcpyDeviceToHost), cudaSuccess);  // the initialiser
  EXPECT_EQ(h[0], 10);
  EXPECT_EQ(h[3], 40);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, addr), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
}

TEST(CudartSymbol, UnknownSymbolIsInvalidSymbol) {
  int not_registered;
  void *addr;
  std::string err = stderr_of([&] { EXPECT_EQ(cudaGetSymbolAddress(&addr, &not_registered), cudaErrorInvalidSymbol); });
  EXPECT_NE(err.find("not a registered __device__/__constant__ variable"), std::string::npos) << err;
  EXPECT_EQ(cudaMemcpyToSymbol(&not_registered, &not_registered, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyToSymbol(nullptr, &not_registered, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
  cudaGetLastError();
}

TEST(CudartSymbol, CopiesPastTheSymbolOrWithAWrongKindAreRefused) {
  Registration &r = kernels();
  char buf[64] = {};
  EXPECT_EQ(cudaMemcpyToSymbol(r.var("init_table"), buf, 17, 0, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(r.var("init_table"), buf, 8, 12, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(r.var("init_table"), buf, 4, 0, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyFromSymbol(buf, r.var("init_table"), 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidMemcpyDirection);
  cudaGetLastError();
}

TEST(CudartMemory, RegisteredHostMemoryIsReportedAsPinned) {
  std::vector<int> host(1024, 3);
  ASSERT_EQ(cudaHostRegister(host.data(), host.size() * 4, 0), cudaSuccess);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, host.data() + 10), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  EXPECT_EQ(cudaHostRegister(host.data() + 8, 16, 0), cudaErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(cudaFreeHost(host.data()), cudaErrorInvalidValue);  // not the runtime's to free
  int *d;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 4096), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d, host.data(), 4096, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  std::vector<int> back(1024, 0);
  ASSERT_EQ(cudaMemcpy(back.data(), d, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  ASSERT_EQ(cudaHostUnregister(host.data()), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(host.data()), cudaErrorHostMemoryNotRegistered);
  EXPECT_EQ(cudaHostRegister(d, 16, 0), cudaErrorInvalidValue);  // device memory
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartMemory, StreamOrderedAllocationAndPeerCopies) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMallocAsync(reinterpret_cast<void **>(&a), 256, s), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(reinterpret_cast<void **>(&b), 256, s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 0x22, 256, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyPeerAsync(b, 0, a, 0, 256, s), cudaSuccess);
  int h[64];
  ASSERT_EQ(cudaMemcpyAsync(h, b, 256, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(h[63], 0x22222222);
  EXPECT_EQ(cudaMemcpyPeer(b, 1, b, 0, 4), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaFreeAsync(a, s), cudaErrorInvalidValue);  // freed already
  cudaGetLastError();
  ASSERT_EQ(cudaFreeAsync(b, s), cudaSuccess);
  cudaStreamDestroy(s);
}
