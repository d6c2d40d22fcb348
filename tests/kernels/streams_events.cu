// streams_events — asynchronous work on two streams with an event dependency between them:
//   stream 1: copy a in, a = 2a (scale), record `a_ready`, copy a out;
//   stream 2: copy b in, wait for `a_ready` (cudaStreamWaitEvent), b = b + a (accumulate), copy b
//             out, then a host function (cudaLaunchHostFunc) that marks completion;
// pinned host buffers (cudaMallocHost), timing events around each stream's work
// (cudaEventElapsedTime must be >= 0), cudaEventQuery/cudaStreamQuery after synchronising.
// Usage: streams_events [n=4096]
#include "kernel_check.cuh"

__global__ void scale(float *a, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= factor;
}

__global__ void accumulate(float *b, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

static void CUDART_CB mark_done(void *flag) { *static_cast<volatile int *>(flag) = 1; }

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 4096);
  const size_t bytes = n * sizeof(float);
  float *a, *b, *a_out, *b_out;
  CHECK_CUDA(cudaMallocHost(&a, bytes));
  CHECK_CUDA(cudaMallocHost(&b, bytes));
  CHECK_CUDA(cudaMallocHost(&a_out, bytes));
  CHECK_CUDA(cudaMallocHost(&b_out, bytes));
  test_rng rng(13);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)((int)(rng.next() % 1000));
    b[i] = (float)((int)(rng.next() % 1000));
  }
  float *da, *db;
  CHECK_CUDA(cudaMalloc(&da, bytes));
  CHECK_CUDA(cudaMalloc(&db, bytes));

  cudaStream_t s1, s2;
  CHECK_CUDA(cudaStreamCreate(&s1));
  CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t a_ready, start1, stop1, start2, stop2;
  CHECK_CUDA(cudaEventCreateWithFlags(&a_ready, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreate(&start1));
  CHECK_CUDA(cudaEventCreate(&stop1));
  CHECK_CUDA(cudaEventCreate(&start2));
  CHECK_CUDA(cudaEventCreate(&stop2));
  volatile int host_func_ran = 0;

  const int threads = 128, blocks = (n + threads - 1) / threads;
  CHECK_CUDA(cudaEventRecord(start1, s1));
  CHECK_CUDA(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, s1));
  scale<<<blocks, threads, 0, s1>>>(da, 2.0f, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(a_ready, s1));
  CHECK_CUDA(cudaMemcpyAsync(a_out, da, bytes, cudaMemcpyDeviceToHost, s1));
  CHECK_CUDA(cudaEventRecord(stop1, s1));

  CHECK_CUDA(cudaEventRecord(start2, s2));
  CHECK_CUDA(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, s2));
  CHECK_CUDA(cudaStreamWaitEvent(s2, a_ready, 0));
  accumulate<<<blocks, threads, 0, s2>>>(db, da, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpyAsync(b_out, db, bytes, cudaMemcpyDeviceToHost, s2));
  CHECK_CUDA(cudaLaunchHostFunc(s2, mark_done, (void *)&host_func_ran));
  CHECK_CUDA(cudaEventRecord(stop2, s2));

  CHECK_CUDA(cudaEventSynchronize(stop1));
  CHECK_CUDA(cudaStreamSynchronize(s2));
  CHECK_CUDA(cudaDeviceSynchronize());
  float ms1 = -1.0f, ms2 = -1.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms1, start1, stop1));
  CHECK_CUDA(cudaEventElapsedTime(&ms2, start2, stop2));
  const cudaError_t event_state = cudaEventQuery(stop2), stream_state = cudaStreamQuery(s1);

  int status = -1;
  if (event_state != cudaSuccess || stream_state != cudaSuccess)
    status = verdict("streams_events", false, "after synchronising: event query %s, stream query %s",
                     cudaGetErrorName(event_state), cudaGetErrorName(stream_state));
  else if (!host_func_ran)
    status = verdict("streams_events", false, "the host function did not run");
  else if (!(ms1 >= 0.0f && ms2 >= 0.0f))
    status = verdict("streams_events", false, "elapsed times %g ms, %g ms", ms1, ms2);
  for (int i = 0; i < n && status < 0; ++i) {
    if (a_out[i] != 2.0f * a[i])
      status = verdict("streams_events", false, "a[%d]=%g, want %g", i, a_out[i], 2.0f * a[i]);
    else if (b_out[i] != b[i] + 2.0f * a[i])
      status = verdict("streams_events", false, "b[%d]=%g, want %g", i, b_out[i], b[i] + 2.0f * a[i]);
  }
  if (status < 0)
    status = verdict("streams_events", true, "n=%d, 2 streams, event dependency, host func; %.3f ms, %.3f ms",
                     n, ms1, ms2);
  CHECK_CUDA(cudaEventDestroy(a_ready));
  CHECK_CUDA(cudaEventDestroy(start1));
  CHECK_CUDA(cudaEventDestroy(stop1));
  CHECK_CUDA(cudaEventDestroy(start2));
  CHECK_CUDA(cudaEventDestroy(stop2));
  CHECK_CUDA(cudaStreamDestroy(s1));
  CHECK_CUDA(cudaStreamDestroy(s2));
  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFreeHost(a));
  CHECK_CUDA(cudaFreeHost(b));
  CHECK_CUDA(cudaFreeHost(a_out));
  CHECK_CUDA(cudaFreeHost(b_out));
  return status;
}
