// hw_info — what the CUDA runtime says about device 0 and the software, one "INFO,key,value" line
// each (run_hw.sh writes them to machine.csv; on simtvp the same program shows what the simulated
// GPU reports). Exit status 3 with a message when there is no usable device, so a script stops
// early and clearly.
#include "hwcorr.cuh"

namespace {

void info(const char *key, const std::string &value) {
  std::string v = value;
  for (char &c : v)
    if (c == ',' || c == '\n') c = ' ';
  std::printf("INFO,%s,%s\n", key, v.c_str());
}
void info(const char *key, long long value) { info(key, std::to_string(value)); }

int attr(cudaDeviceAttr a) {
  int v = -1;
  if (cudaDeviceGetAttribute(&v, a, 0) != cudaSuccess) v = -1;
  return v;
}

}  // namespace

int main() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  info("cuda_driver_version", driver);
  info("cuda_runtime_version", runtime);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "hw_info: no CUDA device (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 3;
  }
  cudaDeviceProp p;
  HWC_CHECK(cudaGetDeviceProperties(&p, 0));
  info("device_count", count);
  info("gpu_name", p.name);
  info("compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor));
  info("sm_count", p.multiProcessorCount);
  info("sm_clock_max_khz", attr(cudaDevAttrClockRate));
  info("mem_clock_max_khz", attr(cudaDevAttrMemoryClockRate));
  info("mem_bus_width_bits", p.memoryBusWidth);
  info("l2_bytes", p.l2CacheSize);
  info("global_mem_bytes", static_cast<long long>(p.totalGlobalMem));
  info("shared_mem_per_sm_bytes", static_cast<long long>(p.sharedMemPerMultiprocessor));
  info("shared_mem_per_block_optin_bytes", static_cast<long long>(p.sharedMemPerBlockOptin));
  info("regs_per_sm", p.regsPerMultiprocessor);
  info("max_threads_per_sm", p.maxThreadsPerMultiProcessor);
  info("ecc_enabled", p.ECCEnabled);
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess) info("pci_bus_id", bus);
  return 0;
}
