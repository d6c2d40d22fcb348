/* debug_internal — private state of the debugger shared by its files: debug.c (breakpoint and
 * watchpoint tables, launches and CTAs it tracks, the stop decision, the engine hooks),
 * debug_cmd.c (commands) and debug_show.c (how things are shown: locations, registers, memory). */
#ifndef SIMTVP_DEBUG_INTERNAL_H
#define SIMTVP_DEBUG_INTERNAL_H

#include <signal.h>

#include "debug.h"

#define DBG_LINE 1024     /* longest command line */
#define DBG_NAME 512      /* longest kernel or file name kept in a breakpoint */
#define DBG_MAX_DIRS 16   /* `directory` entries */

/* Kinds of stop points (breakpoints and watchpoints share one numbering, as in gdb). */
enum {
  DBG_BP_KERNEL = 0, /* the first instruction of a kernel launch (by name or launch number) */
  DBG_BP_PTX,        /* every instruction of a PTX line */
  DBG_BP_SOURCE,     /* the first instruction of each stretch of a source line (.loc) */
  DBG_BP_CTA,        /* the first instruction a CTA executes */
  DBG_BP_THREAD,     /* the first instruction a thread executes (once per CTA) */
  DBG_WATCH,         /* a warp instruction wrote global memory there */
  DBG_BP_PC          /* every execution of the instruction at a module-wide pc */
};

typedef struct dbg_point {
  uint32_t id;
  uint8_t kind;
  bool enabled;
  char kernel[DBG_NAME];  /* DBG_BP_KERNEL: the name; others: kernel filter ("" = any) */
  uint64_t launch_no;     /* kernel by launch number (name empty) */
  char file[DBG_NAME];    /* DBG_BP_PTX: module filter ("" = any); DBG_BP_SOURCE: source file */
  uint32_t line;
  uint32_t pc;            /* DBG_BP_PC */
  bool has_cta, has_thread;
  uint32_t cta[3], thread[3];
  /* DBG_WATCH */
  uint64_t addr;
  uint32_t bytes;         /* 1, 2, 4 or 8 */
  char fmt;               /* how values are shown: x d u f */
  uint8_t old[8];         /* value before the instruction being checked */
  bool old_valid;
  uint64_t hits;
} dbg_point;

/* A launch the engine created. */
typedef struct dbg_launch {
  func_launch *l;
  const ptx_module *m;
  func_launch_params lp;
  uint64_t uid;           /* the GPU's launch number, else the debugger's count */
  char *pretty;           /* demangled name (NULL: the PTX name) */
  uint8_t *at_pc;         /* per instruction: an enabled line breakpoint may stop there */
  uint32_t kernel_stop;   /* kernel breakpoint to report at the launch's first instruction */
  bool fault_shown;
} dbg_launch;

/* A CTA the engine runs. */
typedef struct dbg_cta {
  func_cta *c;
  dbg_launch *L;
  uint32_t pending;       /* CTA/thread breakpoint to report at its first matching instruction */
  bool pending_thread;
  uint32_t warp, lane;    /* pending thread breakpoint: where that thread lives */
} dbg_cta;

struct dbg {
  dbg_config cfg;
  char program[DBG_NAME];
  dbg_ports p;
  bool attached;
  volatile sig_atomic_t interrupt;

  dbg_point *pts;
  uint32_t n_pts, cap_pts, next_id;
  uint32_t n_watch;        /* enabled watchpoints */

  dbg_launch **launches;
  uint32_t n_launches, cap_launches;
  uint64_t launches_seen;
  dbg_cta *ctas;
  uint32_t n_ctas, cap_ctas;
  uint32_t n_pending;      /* CTAs with a pending CTA/thread breakpoint */
  func_engine *engine;     /* the engine seen last: device memory for x and watchpoints */

  /* focus: the warp and lane commands talk about */
  func_warp *focus;
  uint32_t focus_lane;
  dbg_launch *focus_L;
  bool focus_after;        /* stopped after focus's instruction (watchpoint, fault) */
  func_warp *fault_warp;   /* the warp that faulted last, and the instruction that faulted */
  uint32_t fault_pc;

  /* stepping */
  func_warp *step_warp;
  uint64_t step_left;

  /* command state */
  bool in_repl;
  uint32_t list_next;      /* `list` continues here */
  const ptx_module *list_m;
  char x_fmt, x_unit;      /* x's last format and unit */
  char last_cmd[DBG_LINE];
  char dirs[DBG_MAX_DIRS][DBG_NAME];
  uint32_t n_dirs;
};

/* ---- debug.c ---- */
void dbg_out(dbg *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
dbg_launch *dbg_launch_of(dbg *d, const func_launch *l);
dbg_cta *dbg_cta_of(dbg *d, const func_cta *c);
/* Re-resolves every live launch's line breakpoints (after the table changed). */
void dbg_resolve_all(dbg *d);
/* Instructions of line breakpoint p in the running kernels, and in how many of them. */
uint32_t dbg_point_resolved(const dbg *d, const dbg_point *p, uint32_t *launches);
/* The device memory of the engine seen last; NULL before the first kernel. */
devmem *dbg_devmem(const dbg *d);
/* Reads the current value of watchpoint p into out; false when unmapped. */
bool dbg_watch_read(const dbg *d, const dbg_point *p, uint8_t out[8]);
/* Whether kernel filter/name `want` names launch L (mangled, demangled, or the demangled name
 * without its parameters, template arguments or namespaces; or a launch number). */
bool dbg_kernel_matches(const dbg_launch *L, const char *want, uint64_t launch_no);
/* Whether source file name `want` names module file `path` (equal, or equal to a trailing part
 * after a '/'). */
bool dbg_file_matches(const char *path, const char *want);
dbg_point *dbg_point_by_id(dbg *d, uint32_t id);
/* Where warp w is: its next instruction, or for a warp that faulted the instruction that did. */
uint32_t dbg_warp_pc(const dbg *d, const func_warp *w);

/* ---- debug_cmd.c ---- */
/* Reads and executes commands until one resumes (or input ends: then detaches). */
void dbg_repl(dbg *d);
/* Executes one line; true when it resumes. */
bool dbg_execute(dbg *d, const char *line);

/* ---- debug_show.c ---- */
const char *dbg_kernel_name(const dbg_launch *L);  /* demangled when known */
/* "vector_add.ptx:54" style place of a pc, and the source place "vector_add.cu:7" ("" without
 * .loc). */
void dbg_ptx_place(const dbg_launch *L, uint32_t pc, char *buf, size_t size);
void dbg_source_place(const dbg_launch *L, uint32_t pc, bool full_path, char *buf, size_t size);
/* One line "=> pc 12  vector_add.ptx:54  vector_add.cu:7   ld.global.f32 %f1, [%rd9];" and,
 * when the front end can read it, the source line's text under it. */
void dbg_show_pc(dbg *d, const dbg_launch *L, uint32_t pc, const char *marker, bool with_source);
/* "kernel 1 vector_add(...), CTA (0,0,0), warp 0, thread (3,0,0), SM 0" of the focus. */
void dbg_show_focus(dbg *d);
/* The stop report: headline already printed by the caller; focus, time, place. */
void dbg_show_stop(dbg *d);
void dbg_show_registers(dbg *d, const char *which);
void dbg_show_predicates(dbg *d);
void dbg_show_stack(dbg *d);
void dbg_show_warps(dbg *d, bool all);
void dbg_show_ctas(dbg *d);
void dbg_show_kernels(dbg *d);
void dbg_show_params(dbg *d);
void dbg_show_points(dbg *d);
void dbg_show_where(dbg *d);
/* Formats raw bytes (1, 2, 4, 8) as fmt ('x' 'd' 'u' 'f' 'c'; 0 = unsigned decimal). */
void dbg_format_value(const uint8_t *raw, uint32_t bytes, char fmt, char *buf, size_t size);
/* The natural format of a register by its name (%f: float, %fd: double, %rd: hex, %r: signed). */
char dbg_register_format(const char *name, uint32_t rclass);
/* A register's name in the focus warp's function ("%r5"): rclass and index; false when none. */
bool dbg_find_register(const dbg *d, const char *name, uint32_t *rclass, uint32_t *index);
const char *dbg_state_name(uint8_t state);
/* A register of the focus warp in lane `lane`: "0x3fc00000         1.5" (fmt 0: hex and natural),
 * or just the value in format fmt. */
void dbg_register_text(dbg *d, const char *name, uint32_t rclass, uint32_t index, uint32_t lane, char fmt,
                       char *buf, size_t size);
/* One line of `info breakpoints`' What column. */
void dbg_describe_point(const dbg_point *p, char *buf, size_t size);

#endif /* SIMTVP_DEBUG_INTERNAL_H */
