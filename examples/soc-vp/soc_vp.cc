// soc_vp — a small SoC virtual platform that uses simtvp's GPU the way an SoC team would: only the
// installed package (find_package(simtvp): simtvp::gpu, simtvp::driver), standard TLM-2.0 sockets.
//
//   cpu (loosely timed, tlm_quantumkeeper, zero-delay MMIO; runs simtvp's register-level driver)
//    │                      ┌──> ram   0x8000_0000  64 MiB (DMI)
//    └──> bus ──────────────┼──> gpu   0x4000_0000  BAR0 (through a TLM-2.0 protocol checker)
//          ▲                └──> intc  0x5000_0000  PENDING, ENABLE
//          └── gpu.dma (through a protocol checker)          gpu.irq ──> intc line 0 ──> cpu.irq
//
// The CPU loads the bundled program's PTX (kernels/vector_add.ptx, kernels/sgemm.ptx: nvcc's output
// for simtvp's tests/kernels programs), launches the kernels, checks every result against its own
// computation and prints the GPU's statistics. Exit status 0 when every check passed.
//
// Usage: soc_vp [--config NAME|FILE] [--set OPTION VALUE]... [--quantum-us N] [--kernels DIR]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <simtvp/driver.h>
#include <simtvp/gpu_abi.h>
#include <simtvp/gpu_top.h>
#include <simtvp/simtvp_version.h>
#include <simtvp/stats.h>
#include <simtvp/tlm_checker.h>

#include "soc_components.h"

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

constexpr uint64_t kRamBase = 0x80000000ull, kRamBytes = 64ull << 20;
constexpr uint64_t kGpuBase = 0x40000000ull;
constexpr uint64_t kIntcBase = 0x50000000ull;
constexpr unsigned kGpuIrqLine = 0;

// The CPU: one thread that runs `program` with simtvp's driver on a drv_bus made of its own
// bus accesses. Temporally decoupled: its memory accesses go through DMI and cost local time; MMIO
// is annotated with the local time only (the access itself costs nothing: a zero-delay model), and
// the GPU synchronises on it; before it sleeps for an interrupt it synchronises too.
struct cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<cpu> socket{"socket"};
  sc_core::sc_in<bool> irq{"irq"};
  simtvp::gpu_top *gpu = nullptr;  // asked whether an interrupt can still come
  std::function<void(cpu &)> program;
  drv_bus bus{};
  uint64_t mmio_accesses = 0, ram_bytes = 0, irq_waits = 0;

  SC_HAS_PROCESS(cpu);
  explicit cpu(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_invalidate_direct_mem_ptr(this, &cpu::invalidate);
    bus.ctx = this;
    bus.mmio_read32 = [](void *c, uint32_t off) { return static_cast<cpu *>(c)->read32(kGpuBase + off); };
    bus.mmio_write32 = [](void *c, uint32_t off, uint32_t v) { static_cast<cpu *>(c)->write32(kGpuBase + off, v); };
    bus.sysmem_alloc = [](void *c, uint64_t size, uint64_t align, uint64_t *addr) {
      cpu *self = static_cast<cpu *>(c);
      uint64_t a = (self->next_free_ + align - 1) & ~(align - 1);
      if (a + size > kRamBase + kRamBytes) return false;
      self->next_free_ = a + size;
      *addr = a;
      return true;
    };
    bus.sysmem_free = [](void *, uint64_t) {};  // a bump allocator: this program frees at exit
    bus.sysmem_read = [](void *c, uint64_t a, void *dst, uint64_t n) {
      static_cast<cpu *>(c)->memory(tlm::TLM_READ_COMMAND, a, dst, n);
    };
    bus.sysmem_write = [](void *c, uint64_t a, const void *src, uint64_t n) {
      static_cast<cpu *>(c)->memory(tlm::TLM_WRITE_COMMAND, a, const_cast<void *>(src), n);
    };
    bus.wait_for_interrupt = [](void *c) { return static_cast<cpu *>(c)->wait_for_interrupt(); };
    SC_THREAD(run);
    set_stack_size(16u << 20);  // the driver runs on this thread
  }

  void run() {
    qk_.reset();
    write32(kIntcBase + 4, 1u << kGpuIrqLine);  // ENABLE the GPU's line
    if (program) program(*this);
    qk_.sync();
    sc_core::sc_stop();
  }

  uint32_t read32(uint64_t addr) {
    uint32_t v = 0;
    mmio(tlm::TLM_READ_COMMAND, addr, &v);
    return v;
  }
  void write32(uint64_t addr, uint32_t v) { mmio(tlm::TLM_WRITE_COMMAND, addr, &v); }

 private:
  void mmio(tlm::tlm_command cmd, uint64_t addr, uint32_t *v) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(reinterpret_cast<unsigned char *>(v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = qk_.get_local_time();  // zero-delay access at the CPU's local time
    socket->b_transport(t, delay);
    qk_.set(delay);
    if (qk_.need_sync()) qk_.sync();
    mmio_accesses++;
    if (t.is_response_error()) {
      std::fprintf(stderr, "soc_vp: cpu: MMIO %s at 0x%llx failed: %s\n", cmd == tlm::TLM_READ_COMMAND ? "read" : "write",
                   static_cast<unsigned long long>(addr), t.get_response_string().c_str());
      std::exit(3);
    }
  }

  // System memory through DMI when the memory grants it (1 ns per 64 bytes of local time), else
  // through the bus.
  void memory(tlm::tlm_command cmd, uint64_t addr, void *data, uint64_t n) {
    ram_bytes += n;
    if (!dmi_valid_) {
      tlm::tlm_generic_payload q;
      q.set_command(cmd);
      q.set_address(addr);
      dmi_ = tlm::tlm_dmi();
      dmi_valid_ = socket->get_direct_mem_ptr(q, dmi_);
    }
    if (dmi_valid_ && addr >= dmi_.get_start_address() && addr + n - 1 <= dmi_.get_end_address()) {
      unsigned char *p = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
      if (cmd == tlm::TLM_READ_COMMAND)
        std::memcpy(data, p, n);
      else
        std::memcpy(p, data, n);
      qk_.inc(sc_time(static_cast<double>((n + 63) / 64), SC_NS));
    } else {
      tlm::tlm_generic_payload t;
      t.set_command(cmd);
      t.set_address(addr);
      t.set_data_ptr(static_cast<unsigned char *>(data));
      t.set_data_length(static_cast<unsigned>(n));
      t.set_streaming_width(static_cast<unsigned>(n));
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_time delay = qk_.get_local_time();
      socket->b_transport(t, delay);
      qk_.set(delay);
    }
    if (qk_.need_sync()) qk_.sync();
  }

  bool wait_for_interrupt() {
    irq_waits++;
    qk_.sync();  // catch up before sleeping
    for (;;) {
      if (read32(kIntcBase) & (1u << kGpuIrqLine)) return true;
      if (gpu->quiescent()) return false;  // nothing left that could raise it
      wait(irq.posedge_event() | gpu->quiescent_event());
      qk_.reset();
    }
  }

  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
    if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
  }

  tlm_utils::tlm_quantumkeeper qk_;
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false;
  uint64_t next_free_ = kRamBase + (1u << 20);  // the first MiB is left to the boot code
};

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "soc_vp: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The checks the program runs, each reporting PASS or FAIL.
struct results {
  int failed = 0, passed = 0;
  void check(bool ok, const char *what, const std::string &detail = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail.empty() ? "" : ": ", detail.c_str());
    (ok ? passed : failed)++;
  }
};

// Launches `kernel` of `mod` with CUDA-style arguments and waits for it.
simtvp_status launch(drv *d, drv_module *mod, const char *kernel, const uint32_t grid[3], const uint32_t block[3],
                     std::vector<void *> args, simtvp_diag *diag) {
  drv_function *f = drv_module_function(mod, kernel);
  if (!f) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "no kernel %s", kernel);
  unsigned char params[4096];
  uint32_t used = 0;
  simtvp_status st = drv_function_pack_params(f, args.data(), params, sizeof params, &used, diag);
  if (st == SIMTVP_OK) st = drv_launch(d, nullptr, f, grid, block, 0, params, used, diag);
  if (st == SIMTVP_OK) st = drv_sync(d, diag);
  return st;
}

template <class T>
uint64_t to_device(drv *d, const std::vector<T> &v, simtvp_diag *diag) {
  uint64_t a = 0;
  if (drv_mem_alloc(d, v.size() * sizeof(T), &a, diag) != SIMTVP_OK) return 0;
  if (drv_memcpy(d, nullptr, drv_device_ptr(a), drv_host_ptr(v.data()), v.size() * sizeof(T), diag) != SIMTVP_OK)
    return 0;
  return a;
}

template <class T>
bool from_device(drv *d, uint64_t a, std::vector<T> *v, simtvp_diag *diag) {
  return drv_memcpy(d, nullptr, drv_host_ptr(v->data()), drv_device_ptr(a), v->size() * sizeof(T), diag) ==
             SIMTVP_OK &&
         drv_sync(d, diag) == SIMTVP_OK;
}

// The program on the CPU: vector add and SGEMM (naive and tiled) from the bundled PTX.
void gpu_program(cpu &c, const std::string &kernels_dir, results &r) {
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  drv *d = nullptr;
  if (drv_open(&c.bus, nullptr, &d, &diag) != SIMTVP_OK) {
    r.check(false, "driver opens the GPU", diag.message);
    return;
  }
  const drv_device_props *p = drv_props(d);
  std::printf("GPU: %s, %u SMs, compute capability %u.%u, %llu MiB\n", p->name, p->sm_count, p->cc_major,
              p->cc_minor, static_cast<unsigned long long>(p->devmem_bytes >> 20));

  const std::string vadd_ptx = read_file(kernels_dir + "/vector_add.ptx");
  const std::string sgemm_ptx = read_file(kernels_dir + "/sgemm.ptx");
  drv_module *vadd = nullptr, *sgemm = nullptr;
  r.check(drv_module_load_ptx(d, vadd_ptx.data(), vadd_ptx.size(), "vector_add.ptx", &vadd, &diag) == SIMTVP_OK &&
              drv_module_load_ptx(d, sgemm_ptx.data(), sgemm_ptx.size(), "sgemm.ptx", &sgemm, &diag) == SIMTVP_OK,
          "PTX of the bundled program loads", diag.message);
  if (!vadd || !sgemm) return;

  // c[i] = a[i] + b[i] over n elements, 256 threads per block.
  {
    const int n = 50000;
    std::vector<float> a(n), b(n), out(n, 0.0f);
    for (int i = 0; i < n; i++) {
      a[i] = 0.5f * static_cast<float>(i);
      b[i] = static_cast<float>(n - i);
    }
    uint64_t da = to_device(d, a, &diag), db = to_device(d, b, &diag), dc = to_device(d, out, &diag);
    const uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    int count = n;
    simtvp_status st = launch(d, vadd, "_Z10vector_addPKfS0_Pfi", grid, block, {&da, &db, &dc, &count}, &diag);
    bool ok = st == SIMTVP_OK && from_device(d, dc, &out, &diag);
    int bad = 0;
    for (int i = 0; ok && i < n; i++)
      if (out[i] != a[i] + b[i]) bad++;
    r.check(ok && bad == 0, "vector_add: 50000 elements", ok ? std::to_string(bad) + " wrong" : diag.message);
  }

  // C = alpha * A * B + beta * C, row-major, small integers: every sum is exact in float.
  const int m = 64, n = 48, k = 80;
  std::vector<float> A(m * k), B(k * n), C0(m * n), want(m * n);
  for (int i = 0; i < m * k; i++) A[i] = static_cast<float>((i * 7) % 5 - 2);
  for (int i = 0; i < k * n; i++) B[i] = static_cast<float>((i * 3) % 7 - 3);
  for (int i = 0; i < m * n; i++) C0[i] = static_cast<float>(i % 9);
  const float alpha = 2.0f, beta = 0.5f;
  for (int row = 0; row < m; row++)
    for (int col = 0; col < n; col++) {
      float acc = 0.0f;
      for (int q = 0; q < k; q++) acc += A[row * k + q] * B[q * n + col];
      want[row * n + col] = alpha * acc + beta * C0[row * n + col];
    }
  for (const char *kernel : {"_Z11sgemm_naiveiiifPKfS0_fPf", "_Z11sgemm_tilediiifPKfS0_fPf"}) {
    uint64_t dA = to_device(d, A, &diag), dB = to_device(d, B, &diag), dC = to_device(d, C0, &diag);
    const uint32_t grid[3] = {(n + 15) / 16, (m + 15) / 16, 1}, block[3] = {16, 16, 1};
    int mm = m, nn = n, kk = k;
    float al = alpha, be = beta;
    simtvp_status st = launch(d, sgemm, kernel, grid, block, {&mm, &nn, &kk, &al, &dA, &dB, &be, &dC}, &diag);
    std::vector<float> got(m * n);
    bool ok = st == SIMTVP_OK && from_device(d, dC, &got, &diag);
    r.check(ok && got == want, std::strstr(kernel, "naive") ? "sgemm naive 64x48x80 exact" : "sgemm tiled 64x48x80 exact",
            ok ? "" : diag.message);
  }
  drv_close(d);
}

}  // namespace

int sc_main(int argc, char *argv[]) {
  simtvp::gpu_top_config config;  // default: the installed default.config (simtvp::config_dir())
  sc_time quantum(10, SC_US);
  std::string kernels_dir = SOC_VP_KERNELS_DIR;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      config.files.push_back(argv[++i]);
    } else if (a == "--set" && i + 2 < argc) {
      config.options.push_back(argv[++i]);
      config.options.push_back(argv[++i]);
    } else if (a == "--quantum-us" && i + 1 < argc) {
      quantum = sc_time(std::atof(argv[++i]), SC_US);
    } else if (a == "--kernels" && i + 1 < argc) {
      kernels_dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: soc_vp [--config NAME|FILE] [--set OPTION VALUE]... [--quantum-us N] [--kernels DIR]\n");
      return 2;
    }
  }
  std::printf("soc_vp on simtvp %s (headers %s), configurations in %s\n", simtvp::version(), SIMTVP_VERSION_STRING,
              simtvp::config_dir().c_str());

  // The GPU, with a statistics sink.
  stats *st = stats_create();
  simtvp::gpu_top_options options;
  options.st = st;
  simtvp_diag diag;
  simtvp::gpu_top *gpu = simtvp::gpu_top::create("gpu", config, options, &diag);
  if (!gpu) {
    std::fprintf(stderr, "soc_vp: the GPU cannot be built: %s\n", diag.message);
    return 1;
  }

  // The rest of the SoC.
  soc::memory ram("ram", kRamBytes, sc_time(20, SC_NS));
  soc::bus bus("bus");
  soc::intc intc("intc", 1);
  cpu cpu0("cpu");
  simtvp::tlm_protocol_checker<> bar0_check("bar0_check"), dma_check("dma_check");
  sc_core::sc_signal<bool> gpu_irq("gpu_irq"), cpu_irq("cpu_irq");

  bus.map("ram", kRamBase, kRamBytes);
  bus.out.bind(ram.socket);
  bus.map("gpu", kGpuBase, GPU_BAR0_BYTES);
  bus.out.bind(bar0_check.target_socket);
  bar0_check.initiator_socket.bind(gpu->bar0);
  bus.map("intc", kIntcBase, 8);
  bus.out.bind(intc.socket);
  cpu0.socket.bind(bus.in);
  gpu->dma.bind(dma_check.target_socket);
  dma_check.initiator_socket.bind(bus.in);
  gpu->irq.bind(gpu_irq);
  intc.irq_in[kGpuIrqLine].bind(gpu_irq);
  intc.irq_out.bind(cpu_irq);
  cpu0.irq.bind(cpu_irq);
  cpu0.gpu = gpu;

  tlm_utils::tlm_quantumkeeper::set_global_quantum(quantum);
  results r;
  cpu0.program = [&](cpu &c) { gpu_program(c, kernels_dir, r); };
  sc_core::sc_start();

  r.check(bar0_check.monitor().violations().empty() && dma_check.monitor().violations().empty(),
          "TLM-2.0 base protocol on BAR0 and DMA",
          std::to_string(bar0_check.monitor().transactions()) + " + " + std::to_string(dma_check.monitor().transactions()) +
              " transactions checked");
  const simtvp::gpu_dma_counters &dma = gpu->dma_counters();
  std::printf("simulated %s; CPU: %llu MMIO accesses, %llu bytes of its own memory traffic, %llu interrupt waits "
              "(global quantum %s); GPU DMA: %llu transactions, %llu through DMI\n",
              sc_core::sc_time_stamp().to_string().c_str(), static_cast<unsigned long long>(cpu0.mmio_accesses),
              static_cast<unsigned long long>(cpu0.ram_bytes), static_cast<unsigned long long>(cpu0.irq_waits),
              quantum.to_string().c_str(), static_cast<unsigned long long>(dma.transports),
              static_cast<unsigned long long>(dma.dmi_accesses));
  std::printf("\nGPU statistics (%s SIMT side):\n", gpu->simt_model());
  stats_print_totals(st, stdout);
  std::printf("\n%d passed, %d failed\n", r.passed, r.failed);
  return r.failed || r.passed == 0 ? 1 : 0;
}
