// simtvp_host — the contract of simtvp_host.h on the SystemC platform (platform/vp).
//
// SystemC allows one elaboration and one simulation per process, and the CUDA libraries that use
// this (libcudart.so.13, libcuda.so.1) may both be loaded: so the platform is process-wide state
// (the only one in the project), created on first open, shared through simtvp_host_acquire, and
// never rebuilt after it was closed. Every call into the simulation is serialised by a mutex.
#include "simtvp_host.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <dlfcn.h>
#include <unistd.h>

#include <systemc>

#include "func.h"
#include "gpu_params.h"
#include "gpu_top.h"
#include "vp_config.h"
#include "vp_platform.h"

struct simtvp_host {
  simtvp::vp_platform *platform = nullptr;
  drv *driver = nullptr;
  bool quiet = false;
  bool broken = false;          // the simulation stopped for good (starvation, SystemC error)
  simtvp_diag broken_diag;
  int refs = 0;
  std::recursive_mutex lock;
  // The OS thread that is running the simulation inside simtvp_host_call (none outside).
  std::atomic<std::thread::id> simulating{};
  // fn runs on the stub's thread inside a call made from this OS thread: a nested call.
  bool nested() {
    return simulating.load() == std::this_thread::get_id() && platform->host().on_thread();
  }
  // Host memory the GPU shares (simtvp_host_watch): page -> its bus address and how many
  // watches hold it. armed: the pages are inaccessible to the program (PROT_NONE) now.
  struct watched_page {
    uint64_t bus = 0;
    uint32_t count = 0;
  };
  std::map<uint64_t, watched_page> watched;
  std::atomic<bool> armed{false};
  bool trap_enabled = true;     // -host_trap_shared
  uint64_t *trapped_reads = nullptr, *trapped_writes = nullptr;  // registered at the first trap
  uint64_t trapped_none[2] = {0, 0};  // where they count without a statistics sink
};

namespace {

// Process-wide: SystemC is.
std::mutex g_open_lock;
simtvp_host *g_host = nullptr;
bool g_systemc_used = false;  // a platform was built (and maybe closed): SystemC cannot restart

// Messages of SystemC itself go to stderr (the program's stdout stays its own) and errors still
// throw, so they come back as statuses.
void report_handler(const sc_core::sc_report &rep, const sc_core::sc_actions &actions) {
  if (actions & (sc_core::SC_DISPLAY | sc_core::SC_LOG)) {
    const char *sev = "info";
    switch (rep.get_severity()) {
    case sc_core::SC_WARNING: sev = "warning"; break;
    case sc_core::SC_ERROR: sev = "error"; break;
    case sc_core::SC_FATAL: sev = "fatal"; break;
    default: break;
    }
    std::fflush(stdout);
    std::fprintf(stderr, "simtvp: %s: %s: %s\n", sev, rep.get_msg_type(), rep.get_msg());
  }
  sc_core::sc_report_handler::default_handler(rep, actions & ~(sc_core::SC_DISPLAY | sc_core::SC_LOG));
}

simtvp_status from_exception(simtvp_diag *diag, const char *where) {
  try {
    throw;
  } catch (const sc_core::sc_report &rep) {
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "%s: SystemC: %s: %s", where, rep.get_msg_type(),
                           rep.get_msg());
  } catch (const std::bad_alloc &) {
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "%s: out of host memory", where);
  } catch (const std::exception &e) {
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "%s: %s", where, e.what());
  } catch (...) {
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "%s: unknown exception", where);
  }
}

// ---- the `simtvp` command's report descriptor ($SIMTVP_REPORT_FD) and fatal signals -----------

int report_fd() {
  static int fd = [] {
    const char *v = std::getenv("SIMTVP_REPORT_FD");
    if (!v || !*v) return -1;
    char *end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end || n < 0 || n > 65535 || fcntl(static_cast<int>(n), F_GETFD) == -1) return -1;
    return static_cast<int>(n);
  }();
  return fd;
}

// One line, with write(2) only (also from a signal handler).
void report_line(const char *what, long a = -1, long b = -1, long c = -1) {
  int fd = report_fd();
  if (fd < 0) return;
  char buf[96];
  size_t n = 0;
  for (const char *p = what; *p && n < 60; p++) buf[n++] = *p;
  for (long v : {a, b, c}) {
    if (v < 0) continue;
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && k < 20);
    buf[n++] = ' ';
    while (k) buf[n++] = digits[--k];
  }
  buf[n++] = '\n';
  ssize_t w = write(fd, buf, n);
  (void)w;
}

const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// A fatal signal in the program's own code after the platform opened: the outputs so far are
// written (statistics, report, trace), then the signal takes its default course. Best effort —
// what the handler calls is not async-signal-safe, so a crash inside malloc may prevent it; a
// crash while the simulation runs (inside simtvp itself) writes nothing.
void on_fatal_signal(int sig) {
  static volatile sig_atomic_t entered = 0;
  if (!entered) {
    entered = 1;
    simtvp_host *h = g_host;
    long kernels = 0, written = 0;
    if (h && h->platform && h->simulating.load() == std::thread::id()) {
      kernels = h->platform->kernels_begun();
      h->platform->yield_terminal();
      h->platform->write_outputs_now();
      written = 1;
    }
    report_line("crash", sig, kernels, written);
  }
  signal(sig, SIG_DFL);
  raise(sig);  // delivered when the handler returns (the signal is blocked meanwhile)
}

void install_fatal_handlers() {
  for (int sig : kFatalSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(sig, &sa, nullptr);
  }
}

// The GPU's generic-address windows (FUNC_WINDOW_*, models/func/func.h: shared, local and
// parameter memory) are GPU addresses that never reach host memory. With unified addressing a
// host pointer is a GPU address too (mapped memory, shared_va), so a host mapping inside the
// windows would be read by kernels as shared, local or parameter memory. The kernel places
// mappings at random (ASLR): system memory's large mapping landed there in 1-3 % of runs. So
// the range is reserved (PROT_NONE, no memory) when the library loads, before anything of the
// platform is mapped. Where something already sits there (the program's own libraries, placed at
// random; AddressSanitizer's allocator), the free gaps around it are reserved instead, so nothing
// later lands there either, and the platform says what it found when it opens.
bool g_windows_reserved = false;
char g_windows_occupant[160] = ""; /* the first foreign mapping found inside the windows */

/* The length of a /proc/self/maps line without its trailing spaces. */
size_t n_keep(const char *line) {
  size_t n = std::strlen(line);
  while (n && line[n - 1] == ' ') n--;
  return n;
}

/* Reserves [lo, hi) with PROT_NONE unless something is mapped there: true when reserved. */
bool reserve_range(uint64_t lo, uint64_t hi) {
  if (hi <= lo) return true;
  void *want = reinterpret_cast<void *>(lo);
  void *p = mmap(want, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return false;
  if (p != want) { /* a kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a hint */
    munmap(p, hi - lo);
    return false;
  }
  return true;
}

/* Reads /proc/self/maps and notes the free gaps inside the windows (at most max_gaps; no heap use
 * here: the program's allocator may not be ready): the number noted. Nothing is mapped while the
 * file is read, since a new mapping can shift the kernel's place in it and hide a line. */
size_t find_window_gaps(uint64_t (*gaps)[2], size_t max_gaps) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[4096], line[512];
  size_t n_line = 0, n_gaps = 0;
  uint64_t cursor = FUNC_WINDOW_LO;
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < got; i++) {
      if (buf[i] != '\n') {
        if (n_line + 1 < sizeof line) line[n_line++] = buf[i];
        continue;
      }
      line[n_line] = 0;
      n_line = 0;
      unsigned long long lo = 0, hi = 0;
      if (std::sscanf(line, "%llx-%llx", &lo, &hi) != 2 || hi <= FUNC_WINDOW_LO || lo >= FUNC_WINDOW_HI) continue;
      if (!g_windows_occupant[0]) { /* (the first pass: none of ours is there yet) */
        /* kept short: the range and permissions, then the name */
        size_t keep = std::min(n_keep(line), sizeof g_windows_occupant - 1);
        std::memcpy(g_windows_occupant, line, keep);
        g_windows_occupant[keep] = 0;
      }
      if (lo > cursor && n_gaps < max_gaps) {
        gaps[n_gaps][0] = cursor;
        gaps[n_gaps++][1] = lo;
      }
      if (hi > cursor) cursor = hi;
    }
  }
  close(fd);
  if (cursor < FUNC_WINDOW_HI && n_gaps < max_gaps) {
    gaps[n_gaps][0] = cursor;
    gaps[n_gaps++][1] = FUNC_WINDOW_HI;
  }
  return n_gaps;
}

/* Reserves the free gaps around what sits inside the windows. A pass whose reservations all
 * succeed has left no gap (another thread may map something meanwhile: then look again). */
void reserve_window_gaps() {
  for (int pass = 0; pass < 8; pass++) {
    uint64_t gaps[64][2];
    size_t n = find_window_gaps(gaps, 64), reserved = 0;
    for (size_t i = 0; i < n; i++) reserved += reserve_range(gaps[i][0], gaps[i][1]);
    if (n < 64 && reserved == n) return;
  }
}

__attribute__((constructor)) void reserve_generic_windows() {
  if (reserve_range(FUNC_WINDOW_LO, FUNC_WINDOW_HI))
    g_windows_reserved = true;
  else
    reserve_window_gaps();
}

simtvp_host *open_locked(const simtvp_host_options *options, simtvp_diag *diag, bool check_only = false,
                         uint32_t *config_problems = nullptr) {
  if (g_host || g_systemc_used) {
    simtvp_diag_set(diag, SIMTVP_ERR_STATE,
                    g_host ? "simtvp_host_open: a platform is already open in this process (one per "
                             "process; share it with simtvp_host_acquire)"
                           : "simtvp_host_open: the platform of this process was closed; SystemC "
                             "cannot simulate twice in one process");
    return nullptr;
  }
  simtvp::vp_settings settings = simtvp::vp_settings_resolve(options);
  if (check_only) {
    settings.check_only = true;
    settings.config_checked = false;
    settings.out_dir.clear();
    settings.trace_path.clear();
  }
  // Configuration first: an error leaves SystemC untouched, so a corrected open can follow.
  auto config = std::make_unique<gpu_config>();
  config_registry *registry = nullptr;
  struct msg_ctx {
    simtvp::vp_settings *s;
    uint32_t *problems;
  } mc{&settings, config_problems};
  simtvp_msg_port msg{};
  msg.ctx = &mc;
  msg.emit = [](void *ctx, simtvp_severity sev, const char *text) {
    auto *m = static_cast<msg_ctx *>(ctx);
    if (sev == SIMTVP_INFO && m->s->quiet) return;
    // The `simtvp` command checked this configuration before starting the program and reported
    // its warnings then: once is enough.
    if (sev != SIMTVP_ERROR && m->s->config_checked) return;
    if (sev != SIMTVP_INFO && m->problems) ++*m->problems;
    std::fprintf(stderr, "simtvp: %s: %s\n", sev == SIMTVP_INFO ? "info" : sev == SIMTVP_WARNING ? "warning" : "error", text);
  };
  if (simtvp::vp_load_config(settings, &msg, config.get(), &registry, diag) != SIMTVP_OK) {
    config_registry_destroy(registry);
    return nullptr;
  }
  gpu_params params;
  if (gpu_params_from_config(config.get(), &params, diag) != SIMTVP_OK) {
    simtvp::vp_diag_place(registry, diag);
    config_registry_destroy(registry);
    return nullptr;
  }

  // SystemC from here on. No copyright banner on the program's output.
  bool set_env = std::getenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE") == nullptr;
  if (set_env) setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  g_systemc_used = true;
  auto *h = new simtvp_host;
  h->quiet = settings.quiet;
  h->trap_enabled = config->host.trap_shared;
  simtvp_diag_clear(&h->broken_diag);
  try {
    sc_core::sc_report_handler::set_handler(report_handler);
    h->platform = new simtvp::vp_platform("simtvp", settings, *config, registry);
    if (set_env) unsetenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE");
    if (!h->platform->ok(diag)) {
      delete h;  // the platform module stays: SystemC cannot take it back before elaboration ends
      return nullptr;
    }
    // Elaboration and initialisation; the stub's thread then waits for the first request (an
    // event notified before this first start would be lost).
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    if (!check_only) {
      report_line("open");
      install_fatal_handlers();
      // What sat inside the windows may have been trimmed since the library loaded (allocators map
      // large and unmap the misaligned ends): reserve what that freed before kernels run.
      if (!g_windows_reserved) reserve_window_gaps();
      if (!g_windows_reserved && !settings.quiet)
        std::fprintf(stderr,
                     "simtvp: warning: host memory is mapped inside the GPU's generic-address windows "
                     "[0x%llx, 0x%llx) (%s): a host pointer there passed to a kernel (mapped memory, "
                     "-system_mode shared_va) would address shared, local or parameter memory; the rest of "
                     "the range is reserved; run the program again (the host places its mappings at random)\n",
                     static_cast<unsigned long long>(FUNC_WINDOW_LO), static_cast<unsigned long long>(FUNC_WINDOW_HI),
                     g_windows_occupant[0] ? g_windows_occupant : "a mapping");
    }
  } catch (...) {
    if (set_env) unsetenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE");
    from_exception(diag, "simtvp_host_open");
    delete h;
    return nullptr;
  }
  return h;
}

// Runs the posted request to completion.
simtvp_status run_request(simtvp_host *h, simtvp_diag *diag) {
  simtvp::host_cpu &cpu = h->platform->host();
  try {
    while (!cpu.done()) {
      sc_core::sc_start();
      if (cpu.done()) break;
      // sc_start() returned without the stub pausing: nothing is left to simulate while the host
      // waits (a model that stopped making progress).
      h->broken = true;
      simtvp_diag_set(&h->broken_diag, SIMTVP_ERR_DEADLOCK,
                      "simulation stopped at %.3f us: no event left while the host CPU waits "
                      "(the GPU is not idle but nothing can happen)",
                      sc_core::sc_time_stamp().to_seconds() * 1e6);
      if (diag) *diag = h->broken_diag;
      return SIMTVP_ERR_DEADLOCK;
    }
  } catch (...) {
    h->broken = true;
    from_exception(&h->broken_diag, "simulation");
    if (diag) *diag = h->broken_diag;
    return h->broken_diag.status;
  }
  return SIMTVP_OK;
}

// Runs fn(ctx) on the stub's thread to completion (api_call: an API call, charged
// -host_api_overhead_ns). The program's watched pages are open meanwhile.
void disarm(simtvp_host *h);
void arm(simtvp_host *h);
simtvp_status call_locked(simtvp_host *host, void (*fn)(void *ctx), void *ctx, simtvp_diag *diag, bool api_call) {
  // Calls from several program threads are served one after the other.
  std::lock_guard<std::recursive_mutex> l(host->lock);
  if (host->broken) {
    if (diag) *diag = host->broken_diag;
    return SIMTVP_ERR_STATE;
  }
  disarm(host);
  host->platform->host().post(fn, ctx, api_call);
  host->simulating = std::this_thread::get_id();
  simtvp_status st = run_request(host, diag);
  host->simulating = std::thread::id();
  host->platform->yield_terminal();  // the program may print now: no progress line in its way
  arm(host);
  return st;
}

// The driver's unified-memory counters (docs/vm.md "Unified memory") as run totals, registered
// only when the run used on-demand managed memory (other runs print what they did before).
void publish_um(stats *st, const drv_um_stats &u) {
  if (!st || !(u.faults || u.pages_to_gpu || u.pages_to_host || u.first_touch_gpu || u.first_touch_host)) return;
  struct {
    const char *name, *unit, *what;
    uint64_t v;
  } rows[] = {
      {"um.faults", "faults", "replayable GPU faults the driver serviced (fault-buffer entries)", u.faults},
      {"um.fault_batches", "batches", "fault batches the driver serviced (one MMU_REPLAY each)", u.batches},
      {"um.pages_to_gpu", "pages", "managed pages migrated host -> GPU (faults and prefetches)", u.pages_to_gpu},
      {"um.bytes_to_gpu", "bytes", "managed bytes migrated host -> GPU", u.bytes_to_gpu},
      {"um.pages_to_host", "pages", "managed pages migrated GPU -> host", u.pages_to_host},
      {"um.bytes_to_host", "bytes", "managed bytes migrated GPU -> host", u.bytes_to_host},
      {"um.first_touch_gpu", "pages", "managed pages placed on the GPU by its first touch (no copy)", u.first_touch_gpu},
      {"um.first_touch_host", "pages", "managed pages placed on the host by its first touch (no copy)", u.first_touch_host},
      {"um.host_faults", "faults", "host accesses to managed pages that were not on the host", u.host_faults},
      {"um.prefetched_pages", "pages", "managed pages moved by prefetches", u.prefetched_pages},
      {"um.duplicates", "pages", "read-mostly duplicates made", u.duplicates},
  };
  for (const auto &r : rows) *stats_counter(st, r.name, r.unit, r.what) = r.v;
}

void close_locked(simtvp_host *h) {
  disarm(h);
  h->watched.clear();
  if (h->driver && !h->broken) {
    struct ctx_t {
      drv *d;
      drv_um_stats um;
    } c{h->driver, {}};
    h->platform->host().post(
        [](void *p) {
          auto *c = static_cast<ctx_t *>(p);
          drv_um_get_stats(c->d, &c->um);
          drv_close(c->d);
        },
        &c);
    h->simulating = std::this_thread::get_id();
    run_request(h, nullptr);
    h->simulating = std::thread::id();
    publish_um(h->platform->statistics(), c.um);
  }
  h->driver = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (h->platform->finish(&d) != SIMTVP_OK) std::fprintf(stderr, "simtvp: error: %s\n", d.message);
  std::fflush(stderr);
  report_line("closed", h->platform->kernels_begun());
  // The simulation never runs again in this process: the platform's modules (and with them the
  // model cores, device memory and system memory) go now.
  delete h->platform;
  h->platform = nullptr;
}

// ---- the program's own accesses to host memory the GPU shares (docs/system-modes.md §2.4) -----
//
// While the GPU is busy, the pages the platform watches (mapped pinned and registered memory:
// simtvp_host_watch) are inaccessible to the program (PROT_NONE). A load or store of the program
// there traps: the SIGSEGV handler runs the simulation for the access's cost as the host's access
// of the line (host_cpu::touch: through the system memory's timing, the system-level cache and the
// coherence directory), opens the page, single-steps the instruction (EFLAGS.TF) and the SIGTRAP
// handler closes the page again. Every trapped access advances simulated time, so a host loop that
// spins on plain loads lets a running kernel advance. Inside simtvp_host_call the pages are open
// (the driver, the copy engines and the GPU's functional engine reach the same bytes), and they
// are closed again at its end while the GPU is still busy.
//
// The platform is the one owner of SIGSEGV and SIGTRAP (simtvp_host_fault_add): a fault goes to
// the watched pages first, then to the handler registered for its page (unified memory's
// host-side migration in sw/cuda), then to the handler installed before the owner (the program's
// own, the fatal-signal one, the default). So the order in which these were set up does not
// matter, and the program's own faults still reach its own handler.

constexpr uint64_t kWatchPage = 4096;

#if defined(__x86_64__) && defined(__linux__)
#define SIMTVP_HOST_TRAPS 1
#endif

// mprotect over the runs of contiguous watched pages.
void protect_watched(simtvp_host *h, int prot) {
  uint64_t lo = 0, hi = 0;
  for (const auto &w : h->watched) {
    if (w.first == hi) {
      hi += kWatchPage;
      continue;
    }
    if (hi > lo) mprotect(reinterpret_cast<void *>(lo), hi - lo, prot);
    lo = w.first;
    hi = lo + kWatchPage;
  }
  if (hi > lo) mprotect(reinterpret_cast<void *>(lo), hi - lo, prot);
}

void disarm(simtvp_host *h) {
  if (!h->armed.load()) return;
  h->armed = false;
  protect_watched(h, PROT_READ | PROT_WRITE);
}

// Closes the watched pages while the GPU is busy (a kernel or copy that may read or write them).
void arm(simtvp_host *h) {
  if (!h->trap_enabled || h->watched.empty() || h->broken || h->armed.load()) return;
  if (!h->platform->gpu().busy()) return;
  protect_watched(h, PROT_NONE);
  h->armed = true;
}

#ifdef SIMTVP_HOST_TRAPS
// The pages of this thread's single-stepped instruction (an access may straddle two pages).
thread_local uint64_t tl_step_pages[4];
thread_local unsigned tl_step_n = 0;
struct sigaction g_old_segv {}, g_old_trap {};
bool g_trap_handlers = false;

void chain(const struct sigaction &old, int sig, siginfo_t *si, void *uc) {
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction) old.sa_sigaction(sig, si, uc);
    return;
  }
  if (old.sa_handler == SIG_IGN) return;
  if (old.sa_handler != SIG_DFL && old.sa_handler) {
    old.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);  // a fault happens again and ends the program as it would have
  if (sig == SIGTRAP) raise(sig);  // a trap does not: deliver it (when the handler returns)
}

struct touch_ctx {
  simtvp_host *h;
  uint64_t bus;
  bool write;
};

void touch_on_stub(void *p) {
  auto *t = static_cast<touch_ctx *>(p);
  simtvp_host *h = t->h;
  if (!h->trapped_reads) {
    stats *st = h->platform->statistics();
    h->trapped_reads = st ? stats_counter(st, "host.trapped_reads", "accesses",
                                          "the program's loads of host memory the GPU shares, trapped while the GPU was busy")
                          : &h->trapped_none[0];
    h->trapped_writes = st ? stats_counter(st, "host.trapped_writes", "accesses",
                                           "the program's stores (and read-modify-writes) of host memory the GPU shares, "
                                           "trapped while the GPU was busy")
                           : &h->trapped_none[1];
  }
  ++*(t->write ? h->trapped_writes : h->trapped_reads);
  h->platform->host().touch(t->bus, t->write);
}

// A fault of the program on a watched page: true when handled (the access runs again).
bool trap_access(simtvp_host *h, uint64_t a, ucontext_t *uc) {
  const uint64_t page = a & ~(kWatchPage - 1);
  auto it = h->watched.find(page);
  if (it == h->watched.end()) return false;
  if (h->simulating.load() == std::this_thread::get_id()) {
    // Inside the simulation (the functional engine reaching a page another thread closed): open
    // everything; the access runs again.
    disarm(h);
    return true;
  }
  if (!h->armed.load()) {  // closed by a step that raced with a disarm
    mprotect(reinterpret_cast<void *>(page), kWatchPage, PROT_READ | PROT_WRITE);
    return true;
  }
  if (h->broken) {  // the simulation stopped for good: the program goes on untimed
    disarm(h);
    return true;
  }
  const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  touch_ctx t{h, it->second.bus + (a - page), write};
  call_locked(h, touch_on_stub, &t, nullptr, false);  // opens the pages, closes them if still busy
  if (!h->armed.load()) return true;                  // the GPU went idle: everything stays open
  // The instruction may straddle two pages: the first one's trap opened it, and the call above
  // closed it again; this instruction's pages are all open for its step.
  const unsigned cap = sizeof tl_step_pages / sizeof tl_step_pages[0];
  if (tl_step_n < cap) tl_step_pages[tl_step_n++] = page;
  for (unsigned i = 0; i < tl_step_n; i++)
    mprotect(reinterpret_cast<void *>(tl_step_pages[i]), kWatchPage, PROT_READ | PROT_WRITE);
  uc->uc_mcontext.gregs[REG_EFL] |= 0x100;  // TF: trap after this one instruction
  return true;
}

// Handlers registered by page (simtvp_host_fault_add), counted like watches.
struct fault_page {
  simtvp_fault_fn fn = nullptr;
  void *ctx = nullptr;
  uint32_t count = 0;
};
std::mutex g_fault_lock;  // never held while a handler runs (a handler may add or remove pages)
std::map<uint64_t, fault_page> g_fault_pages;

bool registered_fault(uint64_t a, bool write) {
  simtvp_fault_fn fn = nullptr;
  void *ctx = nullptr;
  {
    std::lock_guard<std::mutex> l(g_fault_lock);
    auto it = g_fault_pages.find(a & ~(kWatchPage - 1));
    if (it == g_fault_pages.end()) return false;
    fn = it->second.fn;
    ctx = it->second.ctx;
  }
  return fn(ctx, a, write);
}

void on_watch_segv(int sig, siginfo_t *si, void *uc) {
  simtvp_host *h = g_host;
  if (h && si && si->si_code == SEGV_ACCERR && h->platform &&
      trap_access(h, reinterpret_cast<uint64_t>(si->si_addr), static_cast<ucontext_t *>(uc)))
    return;
  if (si) {
    const bool write = uc && (static_cast<ucontext_t *>(uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    if (registered_fault(reinterpret_cast<uint64_t>(si->si_addr), write)) return;
  }
  chain(g_old_segv, sig, si, uc);
}

void on_watch_trap(int sig, siginfo_t *si, void *uc) {
  if (tl_step_n) {  // the trapped instruction ran: close its pages again
    simtvp_host *h = g_host;
    for (unsigned i = 0; i < tl_step_n; i++)
      if (h && h->armed.load() && h->watched.count(tl_step_pages[i]))
        mprotect(reinterpret_cast<void *>(tl_step_pages[i]), kWatchPage, PROT_NONE);
    tl_step_n = 0;
    static_cast<ucontext_t *>(uc)->uc_mcontext.gregs[REG_EFL] &= ~0x100ll;
    return;
  }
  chain(g_old_trap, sig, si, uc);
}

// Once per process, at the first watch or registered fault page. SA_NODEFER: a handler that runs
// the simulation may fault again on another page (unified memory's migration reaching a mirror).
bool install_trap_handlers() {
  std::lock_guard<std::mutex> l(g_fault_lock);
  if (g_trap_handlers) return true;
  struct sigaction sa {};
  sa.sa_sigaction = on_watch_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_old_segv) != 0) return false;
  sa.sa_sigaction = on_watch_trap;
  sa.sa_flags = SA_SIGINFO;
  if (sigaction(SIGTRAP, &sa, &g_old_trap) != 0) {
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    return false;
  }
  g_trap_handlers = true;
  return true;
}
#else
bool install_trap_handlers() { return false; }
#endif

}  // namespace

extern "C" {

const char *simtvp_host_config_dir(void) {
  static const std::string dir = simtvp::config_dir();
  return dir.c_str();
}

const char *simtvp_host_runtime_dir(void) {
  static const std::string dir = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&simtvp_host_runtime_dir), &info) || !info.dli_fname) return std::string();
    std::string lib = info.dli_fname;
    size_t slash = lib.rfind('/');
    if (slash == std::string::npos) return std::string();
    lib.resize(slash);
    for (const std::string &d : {lib + "/" SIMTVP_LIB_TO_RUNTIME, lib})  // installed, then build tree
      if (access((d + "/libcudart.so.13").c_str(), R_OK) == 0) return d;
    return std::string();
  }();
  return dir.c_str();
}

const char *simtvp_host_version(void) { return simtvp::version(); }

// libsystemc refers to sc_main; simtvp never calls it (the platform is driven by sc_start from
// simtvp_host_call).
int sc_main(int, char *[]) { return 0; }

simtvp_host *simtvp_host_open(const simtvp_host_options *options, simtvp_diag *diag) {
  std::lock_guard<std::mutex> g(g_open_lock);
  simtvp_host *h = open_locked(options, diag);
  if (h) {
    h->refs = 1;
    g_host = h;
  }
  return h;
}

simtvp_host *simtvp_host_acquire(const simtvp_host_options *options, simtvp_diag *diag) {
  std::lock_guard<std::mutex> g(g_open_lock);
  if (g_host) {
    g_host->refs++;
    return g_host;
  }
  simtvp_host *h = open_locked(options, diag);
  if (h) {
    h->refs = 1;
    g_host = h;
  }
  return h;
}

simtvp_host *simtvp_host_get(void) {
  std::lock_guard<std::mutex> g(g_open_lock);
  return g_host;
}

void simtvp_host_close(simtvp_host *host) {
  if (!host) return;
  std::lock_guard<std::mutex> g(g_open_lock);
  if (host != g_host) return;
  if (host->nested()) return;  // not from inside a call
  {
    std::lock_guard<std::recursive_mutex> l(host->lock);
    close_locked(host);
  }
  g_host = nullptr;
  delete host;
}

void simtvp_host_release(simtvp_host *host) {
  if (!host) return;
  {
    std::lock_guard<std::mutex> g(g_open_lock);
    if (host != g_host || --host->refs > 0) return;
  }
  simtvp_host_close(host);
}

const drv_bus *simtvp_host_bus(simtvp_host *host) { return host ? host->platform->host().driver_bus() : nullptr; }

simtvp_status simtvp_host_call(simtvp_host *host, void (*fn)(void *ctx), void *ctx, simtvp_diag *diag) {
  if (!host || !fn) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "simtvp_host_call: %s is NULL", host ? "fn" : "host");
  if (host->nested()) {  // already on the stub's thread (e.g. a host callback): run it there
    fn(ctx);
    return SIMTVP_OK;
  }
  return call_locked(host, fn, ctx, diag, true);
}

uint64_t simtvp_host_time_ps(const simtvp_host *host) {
  (void)host;
  sc_core::sc_time t = sc_core::sc_time_stamp();
  return static_cast<uint64_t>(t.value() * (sc_core::sc_get_time_resolution().to_seconds() * 1e12) + 0.5);
}

stats *simtvp_host_stats(simtvp_host *host) { return host ? host->platform->statistics() : nullptr; }

simtvp_status simtvp_host_driver(simtvp_host *host, drv **out, simtvp_diag *diag) {
  if (!host || !out) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "simtvp_host_driver: NULL argument");
  std::lock_guard<std::recursive_mutex> l(host->lock);
  if (!host->driver) {
    struct open_ctx {
      simtvp_host *h;
      simtvp_status st;
      simtvp_diag d;
      drv *d_out;
    } c{host, SIMTVP_OK, {}, nullptr};
    simtvp_diag_clear(&c.d);
    simtvp_status st = simtvp_host_call(
        host,
        [](void *p) {
          auto *c = static_cast<open_ctx *>(p);
          drv_config dc{};
          dc.messages = c->h->platform->messages();
          c->st = drv_open(simtvp_host_bus(c->h), &dc, &c->d_out, &c->d);
        },
        &c, diag);
    if (st != SIMTVP_OK) return st;
    if (c.st != SIMTVP_OK) {
      if (diag) *diag = c.d;
      return c.st;
    }
    host->driver = c.d_out;
  }
  *out = host->driver;
  return SIMTVP_OK;
}

void *simtvp_host_sysmem_ptr(simtvp_host *host, uint64_t bus_addr, uint64_t bytes) {
  return host && host->platform ? host->platform->sysmem_ptr(bus_addr, bytes) : nullptr;
}

bool simtvp_host_expose(simtvp_host *host, const void *p, uint64_t bytes, uint64_t *bus_addr) {
  return host && host->platform && host->platform->expose(p, bytes, bus_addr);
}

void simtvp_host_unexpose(simtvp_host *host, const void *p, uint64_t bytes) {
  if (host && host->platform) host->platform->unexpose(p, bytes);
}

bool simtvp_host_watch(simtvp_host *host, const void *p, uint64_t bytes, uint64_t bus_addr) {
  if (!host || !host->platform || !bytes) return false;
  std::lock_guard<std::recursive_mutex> l(host->lock);
  if (!host->trap_enabled || !install_trap_handlers()) return false;
  const uint64_t a = reinterpret_cast<uintptr_t>(p);
  const uint64_t lo = a & ~(kWatchPage - 1), hi = (a + bytes + kWatchPage - 1) & ~(kWatchPage - 1);
  for (uint64_t pg = lo; pg < hi; pg += kWatchPage) {
    simtvp_host::watched_page &w = host->watched[pg];
    if (w.count++ == 0) w.bus = bus_addr - (a - pg);  // the first watch's bus address stays
    if (host->armed.load()) mprotect(reinterpret_cast<void *>(pg), kWatchPage, PROT_NONE);
  }
  return true;
}

void simtvp_host_unwatch(simtvp_host *host, const void *p, uint64_t bytes) {
  if (!host || !host->platform || !bytes) return;
  std::lock_guard<std::recursive_mutex> l(host->lock);
  const uint64_t a = reinterpret_cast<uintptr_t>(p);
  const uint64_t lo = a & ~(kWatchPage - 1), hi = (a + bytes + kWatchPage - 1) & ~(kWatchPage - 1);
  for (uint64_t pg = lo; pg < hi; pg += kWatchPage) {
    auto it = host->watched.find(pg);
    if (it == host->watched.end() || --it->second.count) continue;
    host->watched.erase(it);
    if (host->armed.load()) mprotect(reinterpret_cast<void *>(pg), kWatchPage, PROT_READ | PROT_WRITE);
  }
}

bool simtvp_host_fault_add(const void *p, uint64_t bytes, simtvp_fault_fn fn, void *ctx) {
#ifdef SIMTVP_HOST_TRAPS
  const uint64_t a = reinterpret_cast<uintptr_t>(p);
  if (!fn || !bytes || a + bytes < a || !install_trap_handlers()) return false;
  const uint64_t lo = a & ~(kWatchPage - 1), hi = (a + bytes + kWatchPage - 1) & ~(kWatchPage - 1);
  std::lock_guard<std::mutex> l(g_fault_lock);
  for (uint64_t pg = lo; pg < hi; pg += kWatchPage)
    if (g_fault_pages.count(pg) && (g_fault_pages[pg].fn != fn || g_fault_pages[pg].ctx != ctx))
      return false;  // another handler's page: nothing added
  for (uint64_t pg = lo; pg < hi; pg += kWatchPage) {
    fault_page &f = g_fault_pages[pg];
    f.fn = fn;
    f.ctx = ctx;
    f.count++;
  }
  return true;
#else
  (void)p, (void)bytes, (void)fn, (void)ctx;
  return false;
#endif
}

void simtvp_host_fault_remove(const void *p, uint64_t bytes) {
#ifdef SIMTVP_HOST_TRAPS
  const uint64_t a = reinterpret_cast<uintptr_t>(p);
  if (!bytes || a + bytes < a) return;
  const uint64_t lo = a & ~(kWatchPage - 1), hi = (a + bytes + kWatchPage - 1) & ~(kWatchPage - 1);
  std::lock_guard<std::mutex> l(g_fault_lock);
  for (uint64_t pg = lo; pg < hi; pg += kWatchPage) {
    auto it = g_fault_pages.find(pg);
    if (it != g_fault_pages.end() && --it->second.count == 0) g_fault_pages.erase(it);
  }
#else
  (void)p, (void)bytes;
#endif
}

bool simtvp_host_last_fault(const simtvp_host *host, simtvp_diag *out) {
  if (!host) return false;
  const simtvp_diag &f = host->platform->last_fault();
  if (f.status == SIMTVP_OK) return false;
  if (out) *out = f;
  return true;
}

simtvp_status simtvp_host_check_build(const simtvp_host_options *options, uint32_t *problems, simtvp_diag *diag) {
  uint32_t config_problems = 0;
  simtvp_host *h = nullptr;
  {
    std::lock_guard<std::mutex> g(g_open_lock);
    h = open_locked(options, diag, true, &config_problems);
    if (h) {
      h->refs = 1;
      g_host = h;
    }
  }
  if (problems) *problems = config_problems + (h ? h->platform->problems() : 0);
  if (!h) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_CONFIG;
  simtvp_host_close(h);
  return SIMTVP_OK;
}

simtvp_status simtvp_host_check_options(const simtvp_host_options *options, simtvp_diag *diag) {
  simtvp::vp_settings settings = simtvp::vp_settings_resolve(options);
  auto config = std::make_unique<gpu_config>();
  config_registry *registry = nullptr;
  simtvp_msg_port msg{};
  msg.ctx = &settings;
  msg.emit = [](void *ctx, simtvp_severity sev, const char *text) {
    if (sev == SIMTVP_INFO && static_cast<simtvp::vp_settings *>(ctx)->quiet) return;
    std::fprintf(stderr, "simtvp: %s: %s\n", sev == SIMTVP_INFO ? "info" : sev == SIMTVP_WARNING ? "warning" : "error", text);
  };
  simtvp_status st = simtvp::vp_load_config(settings, &msg, config.get(), &registry, diag);
  if (st == SIMTVP_OK) {
    gpu_params params;
    st = gpu_params_from_config(config.get(), &params, diag);
    if (st != SIMTVP_OK) simtvp::vp_diag_place(registry, diag);
  }
  config_registry_destroy(registry);
  return st;
}

}  // extern "C"
