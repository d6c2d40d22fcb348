// pingpong — the host and a running kernel take turns on one flag in mapped (zero-copy) host
// memory, with system-scope atomics and fences on the GPU and sequentially consistent atomics on
// the host (docs/system-modes.md §3). The kernel waits for each odd value the host publishes and
// answers with the next even one; the host waits for each even value, polling the stream
// (cudaStreamQuery) while it spins, as a CUDA program that must not block does.
//
// On simtvp the host program runs natively and simulated time advances only inside CUDA calls, so
// the host's poll is what lets the kernel run on; the loop is bounded so that a kernel that never
// answers ends the program with FAIL, never a hang.
// Usage: pingpong [rounds=8]
#include <atomic>
#include <cstdio>

#include <cuda/atomic>

#include "../kernels/kernel_check.cuh"

// One thread plays; the flag and a payload word live in mapped host memory.
__global__ void pong(int *flag, int *payload, int rounds) {
  cuda::atomic_ref<int, cuda::thread_scope_system> f(*flag);
  for (int i = 0; i < rounds; i++) {
    while (f.load(cuda::memory_order_acquire) != 2 * i + 1) {
    }
    payload[0] += 2 * i + 1;         // read the host's payload, add to it
    __threadfence_system();          // membar.sys: the payload before the flag
    atomicExch_system(flag, 2 * i + 2);
  }
}

int main(int argc, char **argv) {
  const int rounds = arg_int(argc, argv, 1, 8);
  int *flag = nullptr, *payload = nullptr;
  CHECK_CUDA(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&payload, sizeof(int), cudaHostAllocMapped));
  *flag = 0;
  *payload = 0;
  int *dflag = nullptr, *dpayload = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dflag), flag, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dpayload), payload, 0));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  pong<<<1, 1, 0, s>>>(dflag, dpayload, rounds);
  CHECK_CUDA(cudaGetLastError());

  std::atomic_ref<int> f(*flag);
  int expect_payload = 0;
  for (int i = 0; i < rounds; i++) {
    *payload += 1000;  // the host's part of the payload, published by the flag's store
    expect_payload += 1000 + 2 * i + 1;
    f.store(2 * i + 1, std::memory_order_seq_cst);
    long polls = 0;
    while (f.load(std::memory_order_seq_cst) != 2 * i + 2) {
      cudaError_t q = cudaStreamQuery(s);
      if (q != cudaSuccess && q != cudaErrorNotReady) CHECK_CUDA(q);
      // The kernel may have answered and ended since the load above: look again before failing.
      bool answered = f.load(std::memory_order_seq_cst) == 2 * i + 2;
      if (!answered && (q == cudaSuccess || ++polls > 10000000))
        return verdict("pingpong", false, "round %d: the kernel did not answer (flag %d after %ld polls)", i,
                       f.load(), polls);
    }
    if (*payload != expect_payload)
      return verdict("pingpong", false, "round %d: payload %d, expected %d", i, *payload, expect_payload);
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  bool ok = f.load() == 2 * rounds && *payload == expect_payload;
  return verdict("pingpong", ok, "%d rounds, flag %d, payload %d", rounds, f.load(), *payload);
}
