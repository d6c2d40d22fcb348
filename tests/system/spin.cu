// spin — the host and a running kernel take turns on flags in host memory the GPU shares, and
// the host waits with plain loads only: no CUDA call while the kernel runs (docs/system-modes.md
// §2.4). On simtvp the program runs natively and simulated time would advance only inside CUDA
// calls; the platform traps the program's own accesses to mapped pages while the GPU is busy, so
// each of the host's loads advances the simulation and the kernel runs on.
//
// Part 1 (mapped pinned memory, cudaHostAlloc): the kernel spins on a flag the host writes with a
// plain store, answers with a plain (volatile) store after __threadfence_system; the host spins on
// a volatile load. `rounds` rounds with a payload each way.
// Part 2 (registered malloc memory, cudaHostRegister): the same with relaxed std::atomic_ref
// loads and stores on the host.
// Part 3 (coherence): the kernel reads a line of mapped memory, says so, waits; the host then
// overwrites the line with a plain store (which invalidates the GPU L2's copy in the coherent
// modes) and releases the kernel, which must read the host's value; before that, one 8-byte store
// straddles two mapped pages (trapped on each page, executed once).
// Every host wait is bounded: a kernel that never answers ends the program with FAIL, not a hang.
// Usage: spin [rounds=4]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../kernels/kernel_check.cuh"

constexpr long kSpinLimit = 20000000;

__global__ void answer(volatile int *flag, volatile int *payload, int rounds) {
  for (int i = 0; i < rounds; i++) {
    while (flag[0] != 2 * i + 1) {
    }
    payload[0] = payload[0] + 2 * i + 1;
    __threadfence_system();  // the payload before the flag
    flag[0] = 2 * i + 2;
  }
}

// line[0] read before and after the host's write; flag[0]: 1 = read once, 2 = go on.
__global__ void reread(volatile int *line, volatile int *flag, int *out) {
  out[0] = line[0];
  __threadfence_system();
  flag[0] = 1;
  while (flag[0] != 2) {
  }
  out[1] = line[0];
}

// Waits with plain loads until *flag == want; false after kSpinLimit loads.
template <typename Load>
static bool wait_for(Load load, int want, long *spins) {
  for (long n = 0; n < kSpinLimit; n++) {
    if (load() == want) {
      *spins += n;
      return true;
    }
  }
  return false;
}

static int pinned_rounds(int rounds, long *spins) {
  int *flag = nullptr, *payload = nullptr;
  CHECK_CUDA(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&payload, sizeof(int), cudaHostAllocMapped));
  volatile int *vf = flag, *vp = payload;
  *vf = 0;
  *vp = 0;
  int *dflag = nullptr, *dpayload = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dflag), flag, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dpayload), payload, 0));
  answer<<<1, 1>>>(dflag, dpayload, rounds);
  CHECK_CUDA(cudaGetLastError());
  int expect = 0;
  for (int i = 0; i < rounds; i++) {
    *vp = *vp + 1000;
    expect += 1000 + 2 * i + 1;
    *vf = 2 * i + 1;  // a plain store the kernel spins on
    if (!wait_for([&] { return *vf; }, 2 * i + 2, spins))
      return verdict("spin", false, "pinned round %d: the kernel did not answer (flag %d)", i, *vf);
    if (*vp != expect) return verdict("spin", false, "pinned round %d: payload %d, expected %d", i, *vp, expect);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFreeHost(flag));
  CHECK_CUDA(cudaFreeHost(payload));
  return 0;
}

static int registered_rounds(int rounds, long *spins) {
  const size_t page = 4096;
  int *buf = static_cast<int *>(std::aligned_alloc(page, page));
  std::memset(buf, 0, page);
  CHECK_CUDA(cudaHostRegister(buf, page, cudaHostRegisterMapped));
  int *dbuf = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dbuf), buf, 0));
  // flag and payload in different lines of one page
  std::atomic_ref<int> f(buf[0]), pl(buf[32]);
  answer<<<1, 1>>>(dbuf, dbuf + 32, rounds);
  CHECK_CUDA(cudaGetLastError());
  int expect = 0;
  for (int i = 0; i < rounds; i++) {
    pl.store(pl.load(std::memory_order_relaxed) + 1000, std::memory_order_relaxed);
    expect += 1000 + 2 * i + 1;
    f.store(2 * i + 1, std::memory_order_release);
    if (!wait_for([&] { return f.load(std::memory_order_relaxed); }, 2 * i + 2, spins))
      return verdict("spin", false, "registered round %d: the kernel did not answer (flag %d)", i, f.load());
    if (pl.load() != expect)
      return verdict("spin", false, "registered round %d: payload %d, expected %d", i, pl.load(), expect);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaHostUnregister(buf));
  std::free(buf);
  return 0;
}

static int coherence_line(long *spins) {
  int *line = nullptr, *flag = nullptr, *out = nullptr;
  CHECK_CUDA(cudaHostAlloc(&line, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaMalloc(&out, 2 * sizeof(int)));
  char *two = nullptr;  // two pages
  CHECK_CUDA(cudaHostAlloc(&two, 8192, cudaHostAllocMapped));
  std::memset(two, 0, 8192);
  volatile int *vl = line, *vf = flag;
  *vl = 7;
  *vf = 0;
  reread<<<1, 1>>>(line, flag, out);
  CHECK_CUDA(cudaGetLastError());
  if (!wait_for([&] { return *vf; }, 1, spins)) return verdict("spin", false, "coherence: the kernel did not read");
  // One store that straddles two mapped pages traps on each page (and runs as one instruction).
  asm volatile("movq %1, %0" : "=m"(*reinterpret_cast<unsigned long long *>(two + 4092)) : "r"(0x1122334455667788ull));
  *vl = 42;  // the GPU L2 holds this line: the directory invalidates its copy
  *vf = 2;
  CHECK_CUDA(cudaDeviceSynchronize());
  int got[2];
  CHECK_CUDA(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  if (got[0] != 7 || got[1] != 42)
    return verdict("spin", false, "coherence: the kernel read %d then %d, expected 7 then 42", got[0], got[1]);
  unsigned long long straddled = 0;
  std::memcpy(&straddled, two + 4092, sizeof straddled);
  if (straddled != 0x1122334455667788ull)
    return verdict("spin", false, "coherence: the straddling store left 0x%llx", straddled);
  CHECK_CUDA(cudaFreeHost(line));
  CHECK_CUDA(cudaFreeHost(flag));
  CHECK_CUDA(cudaFreeHost(two));
  CHECK_CUDA(cudaFree(out));
  return 0;
}

int main(int argc, char **argv) {
  const int rounds = arg_int(argc, argv, 1, 4);
  long spins = 0;
  if (int r = pinned_rounds(rounds, &spins)) return r;
  if (int r = registered_rounds(rounds, &spins)) return r;
  if (int r = coherence_line(&spins)) return r;
  return verdict("spin", true, "%d rounds on pinned and registered memory, a coherent line re-read", rounds);
}
