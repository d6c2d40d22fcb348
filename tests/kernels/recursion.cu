// recursion — device-side calls that cannot be inlined:
//   fib():         doubly recursive (a real call stack in local memory, depth differs per lane);
//   sum_digits():  recursive with an accumulator passed down;
//   ops[]:         a __device__ table of function pointers, initialised with the addresses of four
//                  functions; each thread calls through ops[selector], so one warp makes a divergent
//                  indirect call to several targets.
// Usage: recursion [threads=64] [max_fib=12]
#include "kernel_check.cuh"

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int sum_digits(unsigned v, int acc) {
  return v == 0 ? acc : sum_digits(v / 10, acc + (int)(v % 10));
}

typedef int (*binary_op)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ binary_op ops[4] = {op_add, op_sub, op_mul, op_max};

__global__ void recursion(const int *a, const int *b, const int *selector, int max_fib, int *fibs,
                          int *digits, int *applied, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fibs[i] = fib(i % (max_fib + 1));
  digits[i] = sum_digits((unsigned)a[i] * 7919u, 0);
  binary_op op = ops[selector[i] & 3];
  applied[i] = op(a[i], b[i]);
}

static int host_fib(int n) { return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2); }

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 64);
  const int max_fib = arg_int(argc, argv, 2, 12);
  int *a = new int[n], *b = new int[n], *sel = new int[n];
  int *fibs = new int[n], *digits = new int[n], *applied = new int[n];
  test_rng rng(8);
  for (int i = 0; i < n; ++i) {
    a[i] = (int)(rng.next() % 2000) - 1000;
    b[i] = (int)(rng.next() % 2000) - 1000;
    sel[i] = (int)(rng.next() % 4);
  }
  int *da, *db, *dsel, *dfibs, *ddigits, *dapplied;
  const size_t bytes = n * sizeof(int);
  CHECK_CUDA(cudaMalloc(&da, bytes));
  CHECK_CUDA(cudaMalloc(&db, bytes));
  CHECK_CUDA(cudaMalloc(&dsel, bytes));
  CHECK_CUDA(cudaMalloc(&dfibs, bytes));
  CHECK_CUDA(cudaMalloc(&ddigits, bytes));
  CHECK_CUDA(cudaMalloc(&dapplied, bytes));
  CHECK_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dsel, sel, bytes, cudaMemcpyHostToDevice));
  // Recursion needs more than the default per-thread stack on some devices.
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  recursion<<<(n + 31) / 32, 32>>>(da, db, dsel, max_fib, dfibs, ddigits, dapplied, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(fibs, dfibs, bytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(digits, ddigits, bytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(applied, dapplied, bytes, cudaMemcpyDeviceToHost));

  int status = -1;
  for (int i = 0; i < n && status < 0; ++i) {
    int want_fib = host_fib(i % (max_fib + 1));
    int want_digits = 0;
    for (unsigned v = (unsigned)a[i] * 7919u; v; v /= 10) want_digits += (int)(v % 10);
    int want_applied = sel[i] == 0 ? a[i] + b[i]
                       : sel[i] == 1 ? a[i] - b[i]
                       : sel[i] == 2 ? a[i] * b[i]
                                     : (a[i] > b[i] ? a[i] : b[i]);
    if (fibs[i] != want_fib)
      status = verdict("recursion", false, "fib(%d)=%d, want %d", i % (max_fib + 1), fibs[i], want_fib);
    else if (digits[i] != want_digits)
      status = verdict("recursion", false, "sum_digits[%d]=%d, want %d", i, digits[i], want_digits);
    else if (applied[i] != want_applied)
      status = verdict("recursion", false, "ops[%d](%d,%d)=%d, want %d", sel[i], a[i], b[i],
                       applied[i], want_applied);
  }
  if (status < 0)
    status = verdict("recursion", true, "n=%d fib(0..%d), sum_digits, 4-way indirect call", n, max_fib);
  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dsel));
  CHECK_CUDA(cudaFree(dfibs));
  CHECK_CUDA(cudaFree(ddigits));
  CHECK_CUDA(cudaFree(dapplied));
  delete[] a;
  delete[] b;
  delete[] sel;
  delete[] fibs;
  delete[] digits;
  delete[] applied;
  return status;
}
