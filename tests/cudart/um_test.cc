// um_test.cc — unified memory with on-demand migration (docs/vm.md "Unified memory") through
// libcudart on the sm_75 configuration, built three times: on the functional GPU
// (cudart_um_tests), its CA cores (cudart_um_ca_tests) and its AT cores (cudart_um_at_tests,
// UM_TEST_MODEL), all with MMU_CAPS.REPLAYABLE 1: first touch,
// replayable GPU faults serviced in batches, host faults migrating pages back, prefetch, advice,
// range attributes and their bad inputs. Every count below is computed by hand in its comment;
// how many batches the timing cores' faults fall into depends on when the driver gets the interrupt,
// so there the batch counts are only bounded (faults, pages and bytes are exact on both).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cudart_test_util.h"
#include "simtvp_host.h"
#include "stats.h"

using namespace cudart_test;

namespace {

const int kPageInts = 4096 / 4;

#ifndef UM_TEST_MODEL
#define UM_TEST_MODEL "func"
#endif
#ifndef UM_TEST_MORE_OPTIONS /* e.g. a -system_mode (docs/system-modes.md) */
#define UM_TEST_MORE_OPTIONS ""
#endif
// Before the platform opens (at the first CUDA call): the SIMT side under test.
const bool kFunctional = [] {
  setenv("SIMTVP_OPTIONS", "-simt_model " UM_TEST_MODEL " " UM_TEST_MORE_OPTIONS, 1);
  return std::string(UM_TEST_MODEL) == "func";
}();


drv_um_stats um() {
  drv_um_stats s;
  std::memset(&s, 0, sizeof s);
  EXPECT_EQ(cucore_um_stats(&s), 0);
  return s;
}

uint64_t gpu_stat(const char *name) {
  int found = 0;
  uint64_t v = stats_get(simtvp_host_stats(simtvp_host_get()), name, &found);
  return found ? v : 0;
}

int *managed(size_t bytes) {
  int *m = nullptr;
  EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void **>(&m), bytes, cudaMemAttachGlobal), cudaSuccess);
  return m;
}

cudaMemLocation device0() { return cudaMemLocation{1, 0}; }
cudaMemLocation host() { return cudaMemLocation{2, 0}; }

}  // namespace

// 8 pages written by the host (8 first touches, no copy), then add_one over all 8192 ints: 64 CTAs
// of 128 threads, all resident at once (30 SMs x 8 CTAs of 128 threads), so every warp faults
// before the driver runs: 8 distinct pages = 8 fault-buffer entries, one batch, 8 pages and
// 8 x 4096 = 32768 bytes host -> GPU. The host then reads every page back: 8 host faults,
// 8 pages GPU -> host.
TEST(CudartUnifiedMemory, KernelOnHostInitialisedPagesFaultsOncePerPageAndMigratesThem) {
  const int n = 8 * kPageInts;
  drv_um_stats s0 = um();
  uint64_t entries0 = gpu_stat("mmu.fault_entries"), replays0 = gpu_stat("mmu.replays");
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = i;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.first_touch_host - s0.first_touch_host, 8u);
  EXPECT_EQ(s1.pages_to_gpu - s0.pages_to_gpu, 0u);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.faults - s1.faults, 8u);
  if (kFunctional) EXPECT_EQ(s2.batches - s1.batches, 1u);
  else EXPECT_GE(s2.batches - s1.batches, 1u);
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 8u);
  EXPECT_EQ(s2.bytes_to_gpu - s1.bytes_to_gpu, 32768u);
  EXPECT_EQ(s2.pages_to_host - s1.pages_to_host, 0u);
  EXPECT_EQ(gpu_stat("mmu.fault_entries") - entries0, 8u);
  EXPECT_EQ(gpu_stat("mmu.replays") - replays0, s2.batches - s1.batches);
  EXPECT_GT(gpu_stat("um.fault_waits"), 0u);
  EXPECT_GT(gpu_stat("um.fault_stall_cycles"), 0u);  // the migration took GPU time
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], i + 1) << i;
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.host_faults - s2.host_faults, 8u);
  EXPECT_EQ(s3.pages_to_host - s2.pages_to_host, 8u);
  EXPECT_EQ(s3.bytes_to_host - s2.bytes_to_host, 32768u);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// 16 host-initialised pages; the kernel touches the first 4 (4096 ints): 4 faults, 4 pages up.
// The host then reads pages 0 and 3 (2 pages come back) and page 10 (never left: no migration).
TEST(CudartUnifiedMemory, HostReadMigratesBackOnlyThePagesTheKernelTouched) {
  const int n = 16 * kPageInts, touched = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 7;
  drv_um_stats s1 = um();
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(touched / 128), d3(128), 0, nullptr, m, touched), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.faults - s1.faults, 4u);
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 4u);
  EXPECT_EQ(m[0], 8);
  EXPECT_EQ(m[3 * kPageInts + 5], 8);
  EXPECT_EQ(m[10 * kPageInts], 7);
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.pages_to_host - s2.pages_to_host, 2u);
  EXPECT_EQ(s3.host_faults - s2.host_faults, 2u);
  int last = -1;
  ASSERT_EQ(cudaMemRangeGetAttribute(&last, 4, 4 /* LastPrefetchLocation */, m + kPageInts, 4096), cudaSuccess);
  EXPECT_EQ(last, 0);  // page 1 is still on the GPU
  ASSERT_EQ(cudaMemRangeGetAttribute(&last, 4, 4, m, 4096), cudaSuccess);
  EXPECT_EQ(last, cudaCpuDeviceId);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// Pages nobody touched: the kernel's touch places them on the GPU without a copy (4 first
// touches, 0 bytes up); the host read then brings all 4 back (4 x 4096 bytes down).
TEST(CudartUnifiedMemory, GpuFirstTouchPlacesPagesWithoutACopy) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  drv_um_stats s1 = um();
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.faults - s1.faults, 4u);
  EXPECT_EQ(s2.first_touch_gpu - s1.first_touch_gpu, 4u);
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 0u);
  long sum = 0;
  for (int i = 0; i < n; i++) sum += m[i];
  EXPECT_EQ(sum, n);
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.bytes_to_host - s2.bytes_to_host, 4u * 4096u);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// A prefetch to the device moves the 4 host pages on the stream (4 pages up), so the kernel then
// faults 0 times; a prefetch to the host brings them back (4 pages down) and host reads fault 0
// times.
TEST(CudartUnifiedMemory, PrefetchMovesPagesSoNothingFaults) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 1;
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, nullptr), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 4u);
  EXPECT_EQ(s2.prefetched_pages - s1.prefetched_pages, 4u);
  EXPECT_EQ(s2.faults - s1.faults, 0u);
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, host(), 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);  // stream-ordered, like the copies
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.pages_to_host - s2.pages_to_host, 4u);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 2) << i;
  drv_um_stats s4 = um();
  EXPECT_EQ(s4.host_faults - s3.host_faults, 0u);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// A prefetch to the device is asynchronous to the host: the call returns with the 4 page copies
// (and the page-table writes) queued on the paging channel and its stream waiting for them, so a
// query of the stream right after it finds it busy; a sync waits for the copies, after which the
// kernel on the stream faults 0 times (4 pages, 16384 bytes up, all prefetched).
TEST(CudartUnifiedMemory, PrefetchToTheDeviceReturnsAtOnceAndItsStreamWaitsForTheCopies) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 3;
  cudaStream_t st = nullptr;
  ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, st), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(st), cudaErrorNotReady);  // the copies are still on their way
  int last = -7;
  ASSERT_EQ(cudaMemRangeGetAttribute(&last, 4, 4 /* LastPrefetchLocation */, m, n * 4), cudaSuccess);
  EXPECT_EQ(last, 0);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(st), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 4u);
  EXPECT_EQ(s2.bytes_to_gpu - s1.bytes_to_gpu, 16384u);
  EXPECT_EQ(s2.prefetched_pages - s1.prefetched_pages, 4u);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, st, m, n), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.faults - s2.faults, 0u);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 4) << i;
  // A host access while a prefetch is in flight waits for it (the paging channel is in order) and
  // brings the page back: page 2 comes down, 1 host fault.
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, st), cudaSuccess);
  drv_um_stats s4 = um();
  EXPECT_EQ(m[2 * kPageInts + 1], 4);
  drv_um_stats s5 = um();
  EXPECT_EQ(s5.host_faults - s4.host_faults, 1u);
  EXPECT_EQ(s5.pages_to_host - s4.pages_to_host, 1u);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(st), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// A prefetch to the host is asynchronous too: right after the call the stream is busy (it waits
// for the driver, which migrates the 4 pages once the kernel before it is done), a host function
// queued behind it on the stream finds them on the host (it reads all 4 pages without a fault:
// the migration ran before it, never inside it), and the sync finds 4 pages, 16384 bytes down,
// 4 prefetched, 0 host faults.
TEST(CudartUnifiedMemory, PrefetchToTheHostReturnsAtOnceAndRunsInStreamOrder) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 5;
  cudaStream_t st = nullptr;
  ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, st), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, st, m, n), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, st, m, n), cudaSuccess);
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, host(), 0, st), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(st), cudaErrorNotReady);
  struct Seen {
    const int *m;
    int n;
    long sum;
  } seen{m, n, 0};
  ASSERT_EQ(cudaLaunchHostFunc(st, [](void *p) {
              auto *x = static_cast<Seen *>(p);
              for (int i = 0; i < x->n; i++) x->sum += x->m[i];
            }, &seen),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  EXPECT_EQ(seen.sum, 7L * n);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.pages_to_host - s1.pages_to_host, 4u);
  EXPECT_EQ(s2.bytes_to_host - s1.bytes_to_host, 16384u);
  EXPECT_EQ(s2.prefetched_pages - s1.prefetched_pages, 4u);
  EXPECT_EQ(s2.host_faults - s1.host_faults, 0u);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 7) << i;
  EXPECT_EQ(um().host_faults - s2.host_faults, 0u);
  EXPECT_EQ(cudaStreamDestroy(st), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// Preferred location host: add_one over 4 host-initialised pages faults once per page (4 faults)
// and each fault maps the host page for the GPU's remote access instead of migrating it (4
// remote maps, 0 bytes up): the kernel's stores land in host memory, so host reads neither fault
// nor bring anything down; a second kernel faults 0 times. On timing cores the accesses are
// system-memory requests (hub.requests grows) and, on a discrete GPU, the second kernel, which
// reaches host memory over the link, takes more GPU cycles than a third after a prefetch to the
// device.
TEST(CudartUnifiedMemory, PreferredLocationHostMapsPagesRemotelyInsteadOfMigrating) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 1;
  ASSERT_EQ(cudaMemAdvise(m, n * 4, 3 /* SetPreferredLocation */, host()), cudaSuccess);
  drv_um_stats s1 = um();
  uint64_t hub0 = gpu_stat("hub.requests");
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.faults - s1.faults, 4u);
  EXPECT_EQ(s2.remote_maps - s1.remote_maps, 4u);
  EXPECT_EQ(s2.bytes_to_gpu - s1.bytes_to_gpu, 0u);
  if (!kFunctional) {
    EXPECT_GT(gpu_stat("hub.requests"), hub0);
  }
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 2) << i;
  uint64_t c0 = gpu_stat("gpu_sim_cycle");
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  uint64_t remote_cycles = gpu_stat("gpu_sim_cycle") - c0;
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.faults - s2.faults, 0u);
  EXPECT_EQ(s3.host_faults - s1.host_faults, 0u);
  EXPECT_EQ(s3.bytes_to_host - s1.bytes_to_host, 0u);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 3) << i;
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  uint64_t c1 = gpu_stat("gpu_sim_cycle");
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  uint64_t local_cycles = gpu_stat("gpu_sim_cycle") - c1;
  EXPECT_EQ(um().faults - s3.faults, 0u);
  printf("add_one over 4 pages: %llu GPU cycles remote, %llu in device memory\n",
         (unsigned long long)remote_cycles, (unsigned long long)local_cycles);
  // A discrete GPU reaches host memory over its link; an integrated one (the other system modes)
  // has no DRAM of its own, so there device memory is system memory too and costs the same.
  if (!kFunctional && std::string(UM_TEST_MORE_OPTIONS).find("-system_mode") == std::string::npos) {
    EXPECT_GT(remote_cycles, local_cycles);
  }
  int pref = 7;
  ASSERT_EQ(cudaMemRangeGetAttribute(&pref, 4, 2 /* PreferredLocation */, m, n * 4), cudaSuccess);
  EXPECT_EQ(pref, cudaCpuDeviceId);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// Accessed-by the device: the advice maps the 2 pages the host holds at once (2 remote maps), so
// the kernel over them faults 0 times and nothing moves; a prefetch to the device then migrates
// them (8192 bytes up) and a host read brings page 0 back (1 host fault), where it is mapped
// remotely again (1 more remote map).
TEST(CudartUnifiedMemory, AccessedByTheDeviceKeepsHostPagesMapped) {
  const int n = 2 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 10;
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemAdvise(m, n * 4, 5 /* SetAccessedBy */, device0()), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, nullptr, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.remote_maps - s1.remote_maps, 2u);
  EXPECT_EQ(s2.faults - s1.faults, 0u);
  EXPECT_EQ(s2.bytes_to_gpu - s1.bytes_to_gpu, 0u);
  EXPECT_EQ(m[5], 11);
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.bytes_to_gpu - s2.bytes_to_gpu, 8192u);
  EXPECT_EQ(s3.remote_unmaps - s2.remote_unmaps, 2u);
  EXPECT_EQ(m[7], 11);
  drv_um_stats s4 = um();
  EXPECT_EQ(s4.host_faults - s3.host_faults, 1u);
  EXPECT_EQ(s4.remote_maps - s3.remote_maps, 1u);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// A kernel on another (non-blocking) stream does not wait for a prefetch: its warps may find pages
// whose copies are still in flight (their state is the GPU's already, the table writes not done);
// the driver then replays only once the paging channel is idle, so nothing moves twice (4 pages
// up in all) and every value is right.
TEST(CudartUnifiedMemory, KernelRacingAPrefetchOnAnotherStreamSeesThePagesOnce) {
  const int n = 4 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = 10;
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemPrefetchAsync(m, n * 4, device0(), 0, a), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 128), d3(128), 0, b, m, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 4u);
  EXPECT_EQ(s2.bytes_to_gpu - s1.bytes_to_gpu, 16384u);
  for (int i = 0; i < n; i++) ASSERT_EQ(m[i], 11) << i;
  EXPECT_EQ(cudaStreamDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(b), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// Read-mostly pages are duplicated: a copy out of them (a GPU-side read) leaves the host its
// read-only copy, so host reads do not fault; a host write drops the GPU copy of that page only.
TEST(CudartUnifiedMemory, ReadMostlyPagesAreDuplicatedUntilWritten) {
  const int n = 2 * kPageInts;
  int *m = managed(n * 4);
  for (int i = 0; i < n; i++) m[i] = i;
  ASSERT_EQ(cudaMemAdvise(m, n * 4, 1 /* SetReadMostly */, device0()), cudaSuccess);
  int rm = 0;
  ASSERT_EQ(cudaMemRangeGetAttribute(&rm, 4, 1 /* ReadMostly */, m, n * 4), cudaSuccess);
  EXPECT_EQ(rm, 1);
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  drv_um_stats s1 = um();
  ASSERT_EQ(cudaMemcpy(d, m, n * 4, cudaMemcpyDefault), cudaSuccess);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.duplicates - s1.duplicates, 2u);
  EXPECT_EQ(s2.pages_to_gpu - s1.pages_to_gpu, 2u);
  EXPECT_EQ(m[5], 5);  // the host copy is still readable
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.host_faults - s2.host_faults, 0u);
  m[kPageInts] = -1;  // a write to page 1 drops the GPU's copy of it
  drv_um_stats s4 = um();
  EXPECT_EQ(s4.duplicates_dropped - s3.duplicates_dropped, 1u);
  EXPECT_EQ(s4.pages_to_host - s3.pages_to_host, 0u);
  std::vector<int> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[kPageInts], kPageInts);  // the copy was made before the write
  cudaFree(d);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// A __managed__ variable (managed_value, initialised to 5) lies on a page of its own, apart from the
// module's other globals (dev_counter), and migrates like cudaMallocManaged memory. The loader wrote
// its initialiser to device memory, so the page starts on the GPU. Host read: 1 host fault, 1 page
// (4096 bytes) down; host write: no fault (the page is the host's now). bump_managed (1 CTA of 4
// threads, one warp) reads it and thread 0 adds 100: 1 fault, 1 page (4096 bytes) up. The host
// read of 107 then: 1 host fault, 1 page down.
TEST(CudartUnifiedMemory, ManagedVariableHasItsOwnPageAndMigratesOnDemand) {
  Registration &r = kernels();
  ASSERT_EQ(__cudaInitModule(r.handle()), 1);
  int *value = static_cast<int *>(*r.managed_ptr("managed_value"));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(value) % 4096, 0u);
  void *counter = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&counter, r.var("dev_counter")), cudaSuccess);
  EXPECT_NE(reinterpret_cast<uintptr_t>(counter) / 4096, reinterpret_cast<uintptr_t>(value) / 4096);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, value), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  int last = -7;
  ASSERT_EQ(cudaMemRangeGetAttribute(&last, 4, 4 /* LastPrefetchLocation */, value, 4), cudaSuccess);
  EXPECT_EQ(last, 0);  // on the GPU, where the loader wrote it
  drv_um_stats s0 = um();
  EXPECT_EQ(*value, 5);
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.host_faults - s0.host_faults, 1u);
  EXPECT_EQ(s1.bytes_to_host - s0.bytes_to_host, 4096u);
  *value = 7;
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.host_faults - s1.host_faults, 0u);
  int *d = nullptr;
  const int n = 4;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, n * 4), cudaSuccess);
  drv_um_stats s3 = um();
  ASSERT_EQ(launch(r.kernel("bump_managed"), d3(1), d3(n), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  drv_um_stats s4 = um();
  EXPECT_EQ(s4.faults - s3.faults, 1u);
  EXPECT_EQ(s4.batches - s3.batches, 1u);
  EXPECT_EQ(s4.pages_to_gpu - s3.pages_to_gpu, 1u);
  EXPECT_EQ(s4.bytes_to_gpu - s3.bytes_to_gpu, 4096u);
  EXPECT_EQ(*value, 107);  // the kernel saw the host's 7 and added 100
  drv_um_stats s5 = um();
  EXPECT_EQ(s5.host_faults - s4.host_faults, 1u);
  EXPECT_EQ(s5.bytes_to_host - s4.bytes_to_host, 4096u);
  int h[n];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(cudaFree(value), cudaErrorInvalidValue);  // the module owns it
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartUnifiedMemory, PreferredLocationAndAccessedByAreReportedBack) {
  int *m = managed(4096);
  ASSERT_EQ(cudaMemAdvise(m, 4096, 3 /* SetPreferredLocation */, device0()), cudaSuccess);
  ASSERT_EQ(cudaMemAdvise(m, 4096, 5 /* SetAccessedBy */, host()), cudaSuccess);
  int pref = 7, by[2] = {7, 7};
  void *data[2] = {&pref, by};
  size_t sizes[2] = {4, 8};
  int attrs[2] = {2, 3};
  ASSERT_EQ(cudaMemRangeGetAttributes(data, sizes, attrs, 2, m, 4096), cudaSuccess);
  EXPECT_EQ(pref, 0);
  EXPECT_EQ(by[0], cudaCpuDeviceId);
  EXPECT_EQ(by[1], -2);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

TEST(CudartUnifiedMemory, BadPrefetchAndAdviceAreClearErrors) {
  int *m = managed(4096);
  EXPECT_EQ(cudaMemPrefetchAsync(m, 4096, cudaMemLocation{1, 5}, 0, nullptr), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemPrefetchAsync(m, 8192, device0(), 0, nullptr), cudaErrorInvalidValue);  // past the end
  cudaGetLastError();
  int x = 0;
  EXPECT_EQ(cudaMemPrefetchAsync(&x, 4, device0(), 0, nullptr), cudaErrorInvalidValue);  // not managed
  cudaGetLastError();
  EXPECT_EQ(cudaMemAdvise(m, 4096, 9, device0()), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaMemAdvise(m, 4096, 3, cudaMemLocation{9, 0}), cudaErrorInvalidValue);
  cudaGetLastError();
  int v = 0;
  EXPECT_EQ(cudaMemRangeGetAttribute(&v, 4, 17, m, 4096), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}
