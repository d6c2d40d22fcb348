/* simtvp_host — how host software (libcudart, libcuda, tests) reaches the simulated platform.
 *
 * The CUDA program runs natively on its own thread. The platform (host CPU stub, system bus,
 * system memory, GPU module) is a SystemC model built on first use. Every driver call is executed
 * inside the host CPU stub's SC_THREAD through simtvp_host_call: the caller's thread hands over the
 * request and runs the SystemC kernel until it completes, so each register access and each
 * system-memory access of the driver is a TLM transaction with its time annotation (DESIGN.md §1).
 * One host thread, deterministic; one platform per process (a SystemC limitation).
 *
 * Contract between platform/ (which implements it) and sw/ (which uses it). */
#ifndef SIMTVP_HOST_H
#define SIMTVP_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "driver.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct simtvp_host simtvp_host;

typedef struct simtvp_host_options {
  const char *config_path;   /* GPGPU-Sim-style option file; NULL = $SIMTVP_CONFIG, else the
                                built-in default configuration */
  const char *out_dir;       /* statistics JSON and time series go here; NULL = $SIMTVP_OUTDIR,
                                else none written */
  const char *const *overrides; /* extra "-option value" words applied after the file (argv style) */
  int n_overrides;
  bool strict;               /* unknown options are errors */
  bool quiet;                /* no per-kernel statistics text on stderr */
} simtvp_host_options;

/* Builds and elaborates the platform. Only one may exist in a process; a second open returns
 * SIMTVP_ERR_STATE. Configuration errors name the option and file:line. */
simtvp_host *simtvp_host_open(const simtvp_host_options *options, simtvp_diag *diag);

/* Finishes the simulation: prints the run summary (kernels, simulated time, instructions, wall
 * time, simulation rate) unless quiet, writes the statistics JSON, releases everything. */
void simtvp_host_close(simtvp_host *host);

/* The bus the driver runs on. Its functions may be called only from inside simtvp_host_call
 * (they are TLM transactions issued by the host CPU stub's thread). */
const drv_bus *simtvp_host_bus(simtvp_host *host);

/* Runs fn(ctx) on the host CPU stub's thread and advances simulated time until fn returns. Driver
 * calls made inside fn (through simtvp_host_bus) cost simulated time; blocking waits inside them
 * let the GPU run. Returns SIMTVP_OK, or an error when the simulation stopped (e.g. deadlock). */
simtvp_status simtvp_host_call(simtvp_host *host, void (*fn)(void *ctx), void *ctx,
                               simtvp_diag *diag);

/* Simulated time so far, picoseconds. */
uint64_t simtvp_host_time_ps(const simtvp_host *host);

/* The statistics sink of the platform (per-kernel and total GPU statistics). */
stats *simtvp_host_stats(simtvp_host *host);

/* ---- additions (additive to the contract above) ------------------------------------------- */

/* Environment read by simtvp_host_open when the options leave a field unset (the `simtvp` command
 * sets these for the program it runs):
 *   SIMTVP_CONFIG   option file             SIMTVP_OUTDIR  output directory
 *   SIMTVP_OPTIONS  extra "-option value" words ('...' and "..." quote), applied after the file
 *                   and before options->overrides
 *   SIMTVP_STRICT=1 unknown options are errors      SIMTVP_QUIET=1 no statistics text, no summary
 * Without a file, the built-in configs/default.config is used (found from any directory). */

/* Sharing one platform between libraries of one process (libcudart.so.13 and libcuda.so.1):
 * acquire opens the platform, or returns the open one with its reference count raised (then
 * `options` are ignored); each acquire is matched by one release, and the last release closes it
 * (as simtvp_host_close). simtvp_host_open on an open platform stays SIMTVP_ERR_STATE. */
simtvp_host *simtvp_host_acquire(const simtvp_host_options *options, simtvp_diag *diag);
void simtvp_host_release(simtvp_host *host);
/* The platform open in this process, or NULL. */
simtvp_host *simtvp_host_get(void);

/* The platform's register-level driver, shared by every user of the platform: opened on first use
 * (drv_open on simtvp_host_bus inside a host call, driver warnings to stderr) and closed by
 * simtvp_host_close. Use it only inside simtvp_host_call, like the bus. Two drivers must never
 * run on one GPU (each drv_open reprograms the channels). */
simtvp_status simtvp_host_driver(simtvp_host *host, drv **out, simtvp_diag *diag);

/* The last kernel fault's full report from the SIMT side (kernel, CTA, thread, PC, PTX line,
 * address) — richer than what the GPU's error registers give the driver. false when none. */
bool simtvp_host_last_fault(const simtvp_host *host, simtvp_diag *out);

/* The host CPU's own view of system memory: a pointer to [bus_addr, +bytes) (a range
 * drv_bus.sysmem_alloc handed out), NULL when the range is not all system memory. The program may
 * read and write it directly — as a CPU does with its pinned memory: untimed, while the GPU's DMA
 * to the same bytes goes through the bus. Valid until simtvp_host_close. */
void *simtvp_host_sysmem_ptr(simtvp_host *host, uint64_t bus_addr, uint64_t bytes);

/* The program's own (pageable) memory [p, p + bytes) made reachable by the GPU's DMA, as an OS
 * pins pages for a driver (cudaHostRegister): the whole pages holding it get a bus address in the
 * platform's window onto the program's memory (*bus_addr: the address of p); false when the range
 * cannot be exposed. Exposures are counted per page; simtvp_host_unexpose undoes one. Callable
 * outside simtvp_host_call. */
bool simtvp_host_expose(simtvp_host *host, const void *p, uint64_t bytes, uint64_t *bus_addr);
void simtvp_host_unexpose(simtvp_host *host, const void *p, uint64_t bytes);

/* Host memory the GPU shares — mapped pinned memory, registered memory mapped into kernels —
 * whose accesses by the program itself the platform times (docs/system-modes.md §2.4): while the
 * GPU is busy the whole pages of [p, p + bytes) are inaccessible to the program between
 * simtvp_host_call's; a load or store there traps, runs the simulation for the cost of the host's
 * access of that line at bus address bus_addr + (address - p) (system memory's timing, the
 * system-level cache and the coherence directory see it as the host's access), and then executes
 * natively (single-stepped). So a host loop spinning on such memory advances simulated time, and
 * the directory sees the program's own reads and writes of shared lines. Watches are counted per
 * page; unwatch undoes one. false (nothing done) when -host_trap_shared is 0 or the host is not
 * x86-64 Linux. Faults on other addresses go to the handlers added with simtvp_host_fault_add
 * (unified memory's host-side migration), then to the one installed before the first watch. Statistics (from the first trap):
 * host.trapped_reads / host.trapped_writes. Callable outside simtvp_host_call. */
bool simtvp_host_watch(simtvp_host *host, const void *p, uint64_t bytes, uint64_t bus_addr);
void simtvp_host_unwatch(simtvp_host *host, const void *p, uint64_t bytes);

/* The process's one SIGSEGV (and SIGTRAP) owner (docs/system-modes.md §2.4). Installed at the
 * first watch or fault page (x86-64 Linux), it remembers the handler installed before it (the
 * program's own, the platform's fatal-signal handler, or the default) and hands a fault, in this
 * order, to: the watched pages (the program's access while the GPU is busy); the handler added
 * for the fault's 4 KiB page (fn(ctx, address, write): true when it dealt with the fault and the
 * access is to run again, false to pass it on); the handler from before. So the order in which
 * unified memory's handler, the watches and the program's own handler were set up does not
 * matter. fault_add registers fn for the whole pages of [p, p + bytes), counted per page
 * (fault_remove undoes one); false (nothing added) when a page has another handler, on bad
 * arguments, or where the platform cannot trap (not x86-64 Linux: install a handler of your
 * own). Callable outside simtvp_host_call, with or without an open platform. */
typedef bool (*simtvp_fault_fn)(void *ctx, uint64_t addr, bool write);
bool simtvp_host_fault_add(const void *p, uint64_t bytes, simtvp_fault_fn fn, void *ctx);
void simtvp_host_fault_remove(const void *p, uint64_t bytes);

/* Loads and checks the configuration the same way simtvp_host_open would (file, environment,
 * overrides, strict), without building anything: errors name the option and file:line. */
simtvp_status simtvp_host_check_options(const simtvp_host_options *options, simtvp_diag *diag);

/* Where simtvp's files are, found from this library's own location (an installed tree, else the
 * build tree it was built in); "" when there is none. Valid for the life of the process.
 *   config_dir:  the shipped GPU configurations ($SIMTVP_CONFIG_DIR when set; installed
 *                <prefix>/share/simtvp/configs; else the source tree's configs/)
 *   runtime_dir: libcudart.so.13 and libcuda.so.1 (installed <libdir>/simtvp; the build tree's lib/)
 * simtvp_host_version: the simtvp version, "0.1.0". */
const char *simtvp_host_config_dir(void);
const char *simtvp_host_runtime_dir(void);
const char *simtvp_host_version(void);

/* Loads the configuration as simtvp_host_check_options does and builds the whole platform from it
 * (without running anything), so that everything a run would report about it — unknown options,
 * accepted-but-not-modelled ones, and what the GPU's blocks fall back to (network mode, partition
 * indexing …) — is printed now, on stderr. *problems (may be NULL) counts the warnings and errors
 * printed. The process's one SystemC simulation is used up: nothing can run after this. */
simtvp_status simtvp_host_check_build(const simtvp_host_options *options, uint32_t *problems,
                                      simtvp_diag *diag);

/* When $SIMTVP_REPORT_FD names an open file descriptor (the `simtvp` command sets it for the
 * program it runs), the platform writes one line to it when it opens ("open"), when it closes
 * ("closed <kernels>") and when the program dies of a signal after it opened ("crash <signal>
 * <kernels> <outputs written 0/1>"): so the command can tell that a program made no CUDA call, and
 * what happened to the statistics of one that crashed. At a fatal signal (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT, whose handler was the default) in the program's own code, the platform writes
 * its outputs (statistics JSON and text, report, trace) before the program dies. */

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_HOST_H */
