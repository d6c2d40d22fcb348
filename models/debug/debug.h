/* debug — the interactive GPU debugger of `simtvp --debug` (docs/debugger.md is the manual).
 *
 * What GPGPU-Sim's interactive debugger offers (breakpoints, watchpoints, single-stepping warps),
 * with commands after gdb and cuda-gdb, done as a model core on the functional engine's debugger
 * port (func.h
 * func_debug_port): the engine calls it before and after every warp instruction, when launches
 * and CTAs begin and end; it decides whether to stop there, and when it stops it reads commands
 * through its ports until one resumes. Because every SIMT variant executes instructions through
 * models/func (at issue, for the CA and AT cores), the debugger stops the simulation at an
 * instruction's functional execution in functional and timing modes alike; nothing advances
 * while it waits, so timing state is untouched when it continues.
 *
 * What it does: breakpoints on a kernel (mangled or demangled name, or launch number), on a pc, a PTX
 * line or a CUDA source line (the .loc/.file information of the PTX), on a CTA or a thread
 * (each optionally restricted to a kernel, CTA and thread); watchpoints on global memory (stop
 * after a warp instruction that wrote there, naming warp, thread, pc and line, old and new
 * value); stepping a warp by instructions; registers, predicates, the SIMT stack, kernel
 * parameters, shared/local/global/param memory with types (x/8fw ADDR); list and where (PTX and
 * source line); warps, CTAs and kernels; stops on kernel faults. Commands and their output are in
 * docs/debugger.md; `help` lists them.
 *
 * Everything leaves through dbg_ports: lines in, text out, and the optional help of a front end
 * (demangling, source files, simulated time, ending the program). No I/O of its own, no globals.
 * One host thread drives it (the engine's); dbg_interrupt alone may be called from a signal
 * handler. */
#ifndef SIMTVP_DEBUG_H
#define SIMTVP_DEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dbg dbg;

typedef struct dbg_ports {
  void *ctx;
  /* The next command line into buf (NUL-terminated, without its newline); false at the end of
   * input, after which the debugger detaches (the program runs on without it). `prompt` is what
   * an interactive front end shows. Required. */
  bool (*read_line)(void *ctx, const char *prompt, char *buf, size_t size);
  /* Debugger output. Required. */
  void (*write)(void *ctx, const char *text, size_t len);
  /* The demangled form of a kernel name into buf; false when it is not a mangled name.
   * Optional: without it kernels are shown and matched by their PTX names only. */
  bool (*demangle)(void *ctx, const char *name, char *buf, size_t size);
  /* Line `line` of the text file `path` into buf (without newline); false when unreadable.
   * Optional: without it `list` and stops show source file:line but not its text. */
  bool (*source_line)(void *ctx, const char *path, uint32_t line, char *buf, size_t size);
  /* The simulated time now, as text for stop reports ("1.234 us"); optional. */
  bool (*now)(void *ctx, char *buf, size_t size);
  /* `kill`: end the program now. Optional (without it `kill` says it cannot). */
  void (*kill)(void *ctx);
} dbg_ports;

typedef struct dbg_config {
  /* Write each command read, after the prompt, so that a scripted session's output reads as the
   * session it was (front ends set it when input is not a terminal). */
  bool echo;
  /* The program being debugged, for the banner (may be NULL). */
  const char *program;
} dbg_config;

/* SIMTVP_ERR_ARG when a required port is missing. */
dbg *dbg_create(const dbg_config *config, const dbg_ports *ports, simtvp_diag *diag);
void dbg_destroy(dbg *d);

/* The port to give the functional engine (func_ports.debug). */
func_debug_port dbg_func_port(dbg *d);

/* Before the program's first kernel: prints the banner and reads commands (breakpoints,
 * watchpoints) until one resumes. */
void dbg_start(dbg *d);
/* The program is done with the GPU: a last word (kernels launched). */
void dbg_finish(dbg *d);
/* Executes one command line as if it had been read; returns true when it resumes the program
 * (continue, step, detach). For front ends and tests. */
bool dbg_command(dbg *d, const char *line);
/* Stop at the next warp instruction (Ctrl-C). Async-signal-safe. */
void dbg_interrupt(dbg *d);
/* false once the user detached (quit, end of input): every hook then returns at once. */
bool dbg_attached(const dbg *d);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DEBUG_H */
