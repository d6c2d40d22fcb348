// atomics — global atomics on every width and type the programs here rely on, all hammering a few
// addresses from many threads:
//   f32 atomicAdd, f64 atomicAdd, 64-bit unsigned atomicAdd, 64-bit atomicCAS loop (a 64-bit max
//   built from compare-and-swap), 32-bit atomicMin/atomicMax (signed), atomicAnd/Or/Xor,
//   atomicInc (wrapping) and atomicDec, atomicExch (the old values form a permutation check).
// The float/double addends are integers or multiples of 1/4, so any order gives the same sum.
// Usage: atomics [threads_total=2048]
#include "kernel_check.cuh"

struct counters {
  float f32_sum;
  int pad0;
  double f64_sum;
  unsigned long long u64_sum;
  unsigned long long u64_max_cas;
  int i32_min, i32_max;
  unsigned and_bits, or_bits, xor_bits;
  unsigned inc_wrap, dec_wrap;
  int exch_slot;
};

__device__ unsigned long long cas_max(unsigned long long *address, unsigned long long value) {
  unsigned long long old = *address, assumed;
  do {
    assumed = old;
    if (assumed >= value) break;
    old = atomicCAS(address, assumed, value);
  } while (old != assumed);
  return old;
}

__global__ void atomics(counters *c, int *exch_old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&c->f32_sum, (float)(i % 13) * 0.25f);
  atomicAdd(&c->f64_sum, (double)(i % 29) * 0.5);
  atomicAdd(&c->u64_sum, (unsigned long long)i << 32 | 1ull);
  cas_max(&c->u64_max_cas, ((unsigned long long)i * 7919u % (unsigned)n) << 20);
  atomicMin(&c->i32_min, (int)((long long)i * 37 % n) - n / 2);
  atomicMax(&c->i32_max, (int)((long long)i * 37 % n) - n / 2);
  atomicAnd(&c->and_bits, ~(1u << (i % 32)) | (i % 64 >= 32 ? 0xffffffffu : 0u));
  atomicOr(&c->or_bits, 1u << (i % 31));
  atomicXor(&c->xor_bits, (unsigned)i * 2654435761u);
  atomicInc(&c->inc_wrap, 99u);  // counts 0..99 then wraps to 0
  atomicDec(&c->dec_wrap, 99u);  // counts down, 0 wraps to 99
  exch_old[i] = atomicExch(&c->exch_slot, i);
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 2048);
  counters init;
  std::memset(&init, 0, sizeof init);
  init.i32_min = 1 << 30;
  init.i32_max = -(1 << 30);
  init.and_bits = 0xffffffffu;
  init.dec_wrap = 50u;
  init.exch_slot = -1;
  counters *dc;
  int *dexch;
  CHECK_CUDA(cudaMalloc(&dc, sizeof(counters)));
  CHECK_CUDA(cudaMalloc(&dexch, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dc, &init, sizeof init, cudaMemcpyHostToDevice));
  atomics<<<(n + 127) / 128, 128>>>(dc, dexch, n);
  CHECK_LAUNCH();
  counters got;
  int *exch_old = new int[n];
  CHECK_CUDA(cudaMemcpy(&got, dc, sizeof got, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(exch_old, dexch, n * sizeof(int), cudaMemcpyDeviceToHost));

  counters want = init;
  for (int i = 0; i < n; ++i) {
    want.f32_sum += (float)(i % 13) * 0.25f;
    want.f64_sum += (double)(i % 29) * 0.5;
    want.u64_sum += (unsigned long long)i << 32 | 1ull;
    unsigned long long m = ((unsigned long long)i * 7919u % (unsigned)n) << 20;
    if (m > want.u64_max_cas) want.u64_max_cas = m;
    int v = (int)((long long)i * 37 % n) - n / 2;
    if (v < want.i32_min) want.i32_min = v;
    if (v > want.i32_max) want.i32_max = v;
    want.and_bits &= ~(1u << (i % 32)) | (i % 64 >= 32 ? 0xffffffffu : 0u);
    want.or_bits |= 1u << (i % 31);
    want.xor_bits ^= (unsigned)i * 2654435761u;
    want.inc_wrap = want.inc_wrap >= 99u ? 0u : want.inc_wrap + 1;
    want.dec_wrap = (want.dec_wrap == 0u || want.dec_wrap > 99u) ? 99u : want.dec_wrap - 1;
  }
  // atomicExch: the old values are -1 plus every index except the final slot value, once each.
  int *seen = new int[n + 1]();
  bool exch_ok = got.exch_slot >= 0 && got.exch_slot < n;
  for (int i = 0; i < n && exch_ok; ++i) {
    int old = exch_old[i];
    if (old < -1 || old >= n || old == got.exch_slot || seen[old + 1]++) exch_ok = false;
  }

  int status;
  if (got.f32_sum != want.f32_sum)
    status = verdict("atomics", false, "f32 sum %.9g, want %.9g", got.f32_sum, want.f32_sum);
  else if (got.f64_sum != want.f64_sum)
    status = verdict("atomics", false, "f64 sum %.17g, want %.17g", got.f64_sum, want.f64_sum);
  else if (got.u64_sum != want.u64_sum)
    status = verdict("atomics", false, "u64 sum %#llx, want %#llx", got.u64_sum, want.u64_sum);
  else if (got.u64_max_cas != want.u64_max_cas)
    status = verdict("atomics", false, "CAS max %#llx, want %#llx", got.u64_max_cas, want.u64_max_cas);
  else if (got.i32_min != want.i32_min || got.i32_max != want.i32_max)
    status = verdict("atomics", false, "min/max %d/%d, want %d/%d", got.i32_min, got.i32_max,
                     want.i32_min, want.i32_max);
  else if (got.and_bits != want.and_bits || got.or_bits != want.or_bits || got.xor_bits != want.xor_bits)
    status = verdict("atomics", false, "and/or/xor %#x/%#x/%#x, want %#x/%#x/%#x", got.and_bits,
                     got.or_bits, got.xor_bits, want.and_bits, want.or_bits, want.xor_bits);
  else if (got.inc_wrap != want.inc_wrap || got.dec_wrap != want.dec_wrap)
    status = verdict("atomics", false, "inc/dec %u/%u, want %u/%u", got.inc_wrap, got.dec_wrap,
                     want.inc_wrap, want.dec_wrap);
  else if (!exch_ok)
    status = verdict("atomics", false, "atomicExch old values are not a permutation (final %d)",
                     got.exch_slot);
  else
    status = verdict("atomics", true, "n=%d f32=%g f64=%g u64=%#llx", n, got.f32_sum, got.f64_sum,
                     got.u64_sum);
  CHECK_CUDA(cudaFree(dc));
  CHECK_CUDA(cudaFree(dexch));
  delete[] exch_old;
  delete[] seen;
  return status;
}
