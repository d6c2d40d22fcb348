/* simtvp-func — runs PTX kernels on simtvp's functional engine (models/func) through the runner
 * API (func_runner.h), with no timing model and no CUDA runtime: for debugging kernels, for the
 * tests, and as the project's first runnable demo. `simtvp-func --help` is the manual. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "func_runner.h"

extern const char func_demo_ptx[];
extern const unsigned long func_demo_ptx_len;

static const char usage[] =
    "usage: simtvp-func [options] [file.ptx]\n"
    "\n"
    "Runs PTX kernels on simtvp's functional engine (exact PTX semantics, no timing model).\n"
    "Without a PTX file (or with --demo) it runs the built-in demo: vector add and a shared-memory\n"
    "tiled SGEMM (platform/simtvp-func/demo.cu), checks both against the host and prints the\n"
    "results and statistics.\n"
    "\n"
    "Kernel launch:\n"
    "  -k, --kernel NAME        kernel to launch (default: the first .entry of the file)\n"
    "  -g, --grid X[,Y[,Z]]     grid size in CTAs (default 1)\n"
    "  -b, --block X[,Y[,Z]]    CTA size in threads (default 32)\n"
    "  -s, --smem BYTES         dynamic shared memory per CTA (default 0)\n"
    "  -a, --arg VALUE          the next kernel parameter: the NAME of a buffer (its device address)\n"
    "                           or TYPE:VALUE, TYPE one of u8 u16 u32 u64 s8 s16 s32 s64 f32 f64\n"
    "                           (integers in C syntax: 10, 0x1f, -3)\n"
    "Device buffers:\n"
    "      --buf NAME=BYTES[:INIT]  allocate a buffer; INIT: zero (default), iota32 (u32 0,1,2…),\n"
    "                           iotaf (f32 0,1,2…), rand32 (deterministic u32), fill:BYTE, file:PATH\n"
    "      --dump NAME[:TYPE[:COUNT]]  print a buffer after the run; TYPE u32 s32 x32 f32 u64 f64 u8\n"
    "                           (default u32), COUNT elements (default all, at most 4096)\n"
    "      --save NAME=PATH     write a buffer to a file after the run\n"
    "Engine:\n"
    "      --max-insns N        stop the kernel after N warp instructions (runaway loops)\n"
    "      --stack BYTES        per-thread call stack (default 1024, as cudaLimitStackSize)\n"
    "      --heap BYTES         device malloc heap (default 8 MiB)\n"
    "      --threads N          run CTAs on N host threads (default 1: deterministic; with more,\n"
    "                           order-dependent results such as float atomic sums may vary)\n"
    "Output:\n"
    "      --json PATH          also write the statistics as JSON\n"
    "  -q, --quiet              print no statistics\n"
    "      --demo               run the built-in demo (the default without a file)\n"
    "  -h, --help               this text\n"
    "\n"
    "Device printf output goes to stdout. A kernel fault (bad address, misaligned access, barrier\n"
    "deadlock, trap, failed assert …) prints the kernel, CTA, thread, PC, PTX line and address and\n"
    "exits with status 1; bad usage exits with 2.\n"
    "\n"
    "Example:\n"
    "  simtvp-func -k vector_add -g 4 -b 256 --buf a=4096:iotaf --buf b=4096:iotaf --buf c=4096 \\\n"
    "              -a a -a b -a c -a s32:1024 --dump c:f32:8 demo.ptx\n";

typedef struct buf {
  char name[64];
  uint64_t dptr, bytes;
} buf;

#define MAX_BUFS 64
#define MAX_ARGS 64
#define MAX_LIST 64

typedef struct opts {
  const char *file, *kernel, *json;
  uint32_t grid[3], block[3], smem;
  buf bufs[MAX_BUFS];
  uint32_t n_bufs;
  const char *buf_specs[MAX_BUFS];
  const char *args[MAX_ARGS];
  uint32_t n_args;
  const char *dumps[MAX_LIST], *saves[MAX_LIST];
  uint32_t n_dumps, n_saves;
  uint64_t max_insns, stack, heap, threads;
  int quiet, demo;
} opts;

static int bad_usage(const char *fmt, const char *what) {
  fprintf(stderr, "simtvp-func: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n(see simtvp-func --help)\n");
  return 2;
}

static int parse_u64(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 0);
  if (!*s || *end || errno || s[0] == '-') return 0;
  *v = x;
  return 1;
}

static int parse_dim(const char *s, uint32_t d[3]) {
  d[0] = d[1] = d[2] = 1;
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%s", s);
  char *save = NULL, *tok = strtok_r(tmp, ",x", &save);
  for (int i = 0; tok; i++, tok = strtok_r(NULL, ",x", &save)) {
    uint64_t v;
    if (i > 2 || !parse_u64(tok, &v) || v == 0 || v > 0x7fffffff) return 0;
    d[i] = (uint32_t)v;
  }
  return 1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_fault(const char *what, const simtvp_diag *d) {
  fprintf(stderr, "simtvp-func: %s failed (%s): %s\n", what, simtvp_status_name(d->status), d->message);
}

static buf *find_buf(opts *o, const char *name) {
  for (uint32_t i = 0; i < o->n_bufs; i++)
    if (!strcmp(o->bufs[i].name, name)) return &o->bufs[i];
  return NULL;
}

static int setup_buf(func_runner *r, opts *o, const char *spec) {
  buf *b = &o->bufs[o->n_bufs];
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof b->name) return bad_usage("bad --buf '%s' (NAME=BYTES[:INIT])", spec);
  memcpy(b->name, spec, (size_t)(eq - spec));
  b->name[eq - spec] = '\0';
  char sz[64];
  const char *colon = strchr(eq + 1, ':');
  size_t n = colon ? (size_t)(colon - eq - 1) : strlen(eq + 1);
  if (n >= sizeof sz) return bad_usage("bad --buf '%s'", spec);
  memcpy(sz, eq + 1, n);
  sz[n] = '\0';
  if (!parse_u64(sz, &b->bytes) || b->bytes == 0) return bad_usage("bad size in --buf '%s'", spec);
  simtvp_diag d = {0};
  if (func_runner_alloc(r, b->bytes, &b->dptr, &d) != SIMTVP_OK) {
    print_fault("allocation", &d);
    return 1;
  }
  uint8_t *data = calloc(1, b->bytes);
  if (!data) return bad_usage("%s: out of host memory", spec);
  const char *init = colon ? colon + 1 : "zero";
  if (!strcmp(init, "iota32")) {
    for (uint64_t i = 0; i + 4 <= b->bytes; i += 4) {
      uint32_t v = (uint32_t)(i / 4);
      memcpy(data + i, &v, 4);
    }
  } else if (!strcmp(init, "iotaf")) {
    for (uint64_t i = 0; i + 4 <= b->bytes; i += 4) {
      float v = (float)(i / 4);
      memcpy(data + i, &v, 4);
    }
  } else if (!strcmp(init, "rand32")) {
    uint32_t x = 2463534242u;
    for (uint64_t i = 0; i + 4 <= b->bytes; i += 4) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      memcpy(data + i, &x, 4);
    }
  } else if (!strncmp(init, "fill:", 5)) {
    uint64_t v;
    if (!parse_u64(init + 5, &v) || v > 255) {
      free(data);
      return bad_usage("bad fill byte in --buf '%s'", spec);
    }
    memset(data, (int)v, b->bytes);
  } else if (!strncmp(init, "file:", 5)) {
    FILE *f = fopen(init + 5, "rb");
    if (!f) {
      free(data);
      return bad_usage("cannot read '%s'", init + 5);
    }
    size_t got = fread(data, 1, b->bytes, f);
    (void)got;
    fclose(f);
  } else if (strcmp(init, "zero")) {
    free(data);
    return bad_usage("unknown INIT in --buf '%s'", spec);
  }
  func_runner_write(r, b->dptr, data, b->bytes, &d);
  free(data);
  o->n_bufs++;
  return 0;
}

static int parse_arg(opts *o, const char *a, uint64_t *slot) {
  buf *b = find_buf(o, a);
  if (b) {
    *slot = b->dptr;
    return 0;
  }
  const char *colon = strchr(a, ':');
  if (!colon) return bad_usage("--arg '%s' is neither a buffer name nor TYPE:VALUE", a);
  char type[8];
  size_t n = (size_t)(colon - a);
  if (n >= sizeof type) return bad_usage("bad type in --arg '%s'", a);
  memcpy(type, a, n);
  type[n] = '\0';
  const char *v = colon + 1;
  char *end;
  errno = 0;
  if (!strcmp(type, "f32")) {
    float f = strtof(v, &end);
    memcpy(slot, &f, 4);
  } else if (!strcmp(type, "f64")) {
    double f = strtod(v, &end);
    memcpy(slot, &f, 8);
  } else if (type[0] == 's') {
    long long x = strtoll(v, &end, 0);
    *slot = (uint64_t)x;
  } else if (type[0] == 'u') {
    unsigned long long x = strtoull(v, &end, 0);
    *slot = (uint64_t)x;
  } else {
    return bad_usage("unknown type in --arg '%s'", a);
  }
  if (!*v || *end || errno) return bad_usage("bad value in --arg '%s'", a);
  return 0;
}

static void dump_buf(func_runner *r, opts *o, const char *spec) {
  char name[64], type[8] = "u32";
  uint64_t count = 0;
  const char *c1 = strchr(spec, ':');
  size_t n = c1 ? (size_t)(c1 - spec) : strlen(spec);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, spec, n);
  name[n] = '\0';
  if (c1) {
    const char *c2 = strchr(c1 + 1, ':');
    size_t tn = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
    if (tn < sizeof type) {
      memcpy(type, c1 + 1, tn);
      type[tn] = '\0';
    }
    if (c2) parse_u64(c2 + 1, &count);
  }
  buf *b = find_buf(o, name);
  if (!b) {
    fprintf(stderr, "simtvp-func: --dump: no buffer %s\n", name);
    return;
  }
  uint32_t es = (!strcmp(type, "u64") || !strcmp(type, "f64")) ? 8 : !strcmp(type, "u8") ? 1 : 4;
  uint64_t total = b->bytes / es;
  if (!count || count > total) count = total;
  if (count > 4096) count = 4096;
  uint8_t *data = malloc(count ? count * es : 1);
  simtvp_diag d = {0};
  func_runner_read(r, b->dptr, data, count * es, &d);
  printf("%s (%s, %" PRIu64 " of %" PRIu64 "):", name, type, count, total);
  for (uint64_t i = 0; i < count; i++) {
    if (i % 8 == 0) printf("\n  [%5" PRIu64 "]", i);
    uint8_t *p = data + i * es;
    uint32_t u;
    uint64_t q;
    float f;
    double g;
    if (!strcmp(type, "f32")) memcpy(&f, p, 4), printf(" %12g", f);
    else if (!strcmp(type, "f64")) memcpy(&g, p, 8), printf(" %14g", g);
    else if (!strcmp(type, "u64")) memcpy(&q, p, 8), printf(" %" PRIu64, q);
    else if (!strcmp(type, "s32")) memcpy(&u, p, 4), printf(" %11d", (int32_t)u);
    else if (!strcmp(type, "x32")) memcpy(&u, p, 4), printf(" 0x%08x", u);
    else if (!strcmp(type, "u8")) printf(" %3u", *p);
    else memcpy(&u, p, 4), printf(" %10u", u);
  }
  printf("\n");
  free(data);
}

static void print_speed(func_runner *r, double seconds) {
  func_launch_counts c;
  func_runner_last_counts(r, &c);
  printf("  %" PRIu64 " warp instructions, %" PRIu64 " thread instructions in %.3f s (%.1f M thread-insn/s)\n",
         c.warp_insns, c.thread_insns, seconds, seconds > 0 ? (double)c.thread_insns / seconds / 1e6 : 0.0);
}

static int finish(func_runner *r, opts *o, int status) {
  if (!o->quiet) {
    printf("\n---- statistics ----\n");
    func_runner_print_stats(r, stdout);
  }
  if (o->json) {
    simtvp_diag d = {0};
    if (stats_write_json(func_runner_stats(r), o->json, &d) != SIMTVP_OK) {
      fprintf(stderr, "simtvp-func: %s\n", d.message);
      if (!status) status = 1;
    }
  }
  func_runner_destroy(r);
  return status;
}

/* The built-in demo: vector add and tiled SGEMM with host checks. */
static int run_demo(func_runner *r, opts *o) {
  simtvp_diag d = {0};
  if (func_runner_load_ptx(r, func_demo_ptx, func_demo_ptx_len, "demo.ptx", &d) != SIMTVP_OK) {
    print_fault("loading the demo kernels", &d);
    return finish(r, o, 1);
  }
  printf("simtvp-func demo: functional execution of demo.ptx (vector_add, sgemm_tiled)\n");
  const int32_t vn = 1 << 20;
  float *a = malloc(vn * 4), *b = malloc(vn * 4), *c = malloc(vn * 4);
  for (int i = 0; i < vn; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
  uint64_t da, db, dc;
  func_runner_alloc(r, vn * 4, &da, &d);
  func_runner_alloc(r, vn * 4, &db, &d);
  func_runner_alloc(r, vn * 4, &dc, &d);
  func_runner_write(r, da, a, vn * 4, &d);
  func_runner_write(r, db, b, vn * 4, &d);
  const void *vargs[4] = {&da, &db, &dc, &vn};
  uint32_t vg[3] = {(uint32_t)(vn / 256), 1, 1}, vb[3] = {256, 1, 1};
  double t0 = now();
  if (func_runner_launch(r, "vector_add", vg, vb, 0, vargs, &d) != SIMTVP_OK) {
    print_fault("vector_add", &d);
    return finish(r, o, 1);
  }
  double t = now() - t0;
  func_runner_read(r, dc, c, vn * 4, &d);
  int bad = -1;
  for (int i = 0; i < vn && bad < 0; i++)
    if (c[i] != a[i] + b[i]) bad = i;
  if (bad >= 0) printf("FAIL vector_add: c[%d] = %g, want %g\n", bad, c[bad], a[bad] + b[bad]);
  else printf("PASS vector_add: %d elements, c[%d] = %g\n", vn, vn - 1, c[vn - 1]);
  print_speed(r, t);

  const int n = 256;
  float *A = malloc(n * n * 4), *B = malloc(n * n * 4), *C = malloc(n * n * 4);
  for (int i = 0; i < n * n; i++) A[i] = (float)(i % 9 - 4), B[i] = (float)(i % 7 - 3);
  uint64_t dA, dB, dC;
  func_runner_alloc(r, n * n * 4, &dA, &d);
  func_runner_alloc(r, n * n * 4, &dB, &d);
  func_runner_alloc(r, n * n * 4, &dC, &d);
  func_runner_write(r, dA, A, n * n * 4, &d);
  func_runner_write(r, dB, B, n * n * 4, &d);
  const void *sargs[4] = {&dA, &dB, &dC, &n};
  uint32_t sg[3] = {n / 16, n / 16, 1}, sb[3] = {16, 16, 1};
  t0 = now();
  if (func_runner_launch(r, "sgemm_tiled", sg, sb, 0, sargs, &d) != SIMTVP_OK) {
    print_fault("sgemm_tiled", &d);
    return finish(r, o, 1);
  }
  t = now() - t0;
  func_runner_read(r, dC, C, n * n * 4, &d);
  int bad_s = -1;
  for (int i = 0; i < n * n && bad_s < 0; i++) {
    float acc = 0.0f;
    for (int p = 0; p < n; p++) acc += A[(i / n) * n + p] * B[p * n + i % n];
    if (acc != C[i]) bad_s = i;
  }
  if (bad_s >= 0) printf("FAIL sgemm_tiled: C[%d][%d] = %g\n", bad_s / n, bad_s % n, C[bad_s]);
  else printf("PASS sgemm_tiled: %dx%d times %dx%d, exact, C[0][0] = %g\n", n, n, n, n, C[0]);
  print_speed(r, t);
  free(a), free(b), free(c), free(A), free(B), free(C);
  return finish(r, o, bad >= 0 || bad_s >= 0);
}

static const char *first_entry(const char *path) {
  static char name[256];
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char line[4096];
  const char *found = NULL;
  while (!found && fgets(line, sizeof line, f)) {
    char *e = strstr(line, ".entry");
    if (!e) continue;
    e += 6;
    while (*e == ' ' || *e == '\t') e++;
    size_t n = strcspn(e, " \t(\r\n");
    if (n && n < sizeof name) {
      memcpy(name, e, n);
      name[n] = '\0';
      found = name;
    }
  }
  fclose(f);
  return found;
}

int main(int argc, char **argv) {
  opts o;
  memset(&o, 0, sizeof o);
  o.grid[0] = o.grid[1] = o.grid[2] = 1;
  o.block[0] = 32, o.block[1] = o.block[2] = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (!v) return bad_usage("%s needs a value", a); i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "-k") || !strcmp(a, "--kernel")) {
      NEED(); o.kernel = v;
    } else if (!strcmp(a, "-g") || !strcmp(a, "--grid")) {
      NEED(); if (!parse_dim(v, o.grid)) return bad_usage("bad grid '%s'", v);
    } else if (!strcmp(a, "-b") || !strcmp(a, "--block")) {
      NEED(); if (!parse_dim(v, o.block)) return bad_usage("bad block '%s'", v);
    } else if (!strcmp(a, "-s") || !strcmp(a, "--smem")) {
      uint64_t x;
      NEED(); if (!parse_u64(v, &x) || x > 0xffffffffu) return bad_usage("bad shared-memory size '%s'", v);
      o.smem = (uint32_t)x;
    } else if (!strcmp(a, "-a") || !strcmp(a, "--arg")) {
      NEED(); if (o.n_args == MAX_ARGS) return bad_usage("too many --arg (%s)", v);
      o.args[o.n_args++] = v;
    } else if (!strcmp(a, "--buf")) {
      NEED(); if (o.n_bufs == MAX_BUFS) return bad_usage("too many --buf (%s)", v);
      o.buf_specs[o.n_bufs++] = v;
    } else if (!strcmp(a, "--dump")) {
      NEED(); if (o.n_dumps == MAX_LIST) return bad_usage("too many --dump (%s)", v);
      o.dumps[o.n_dumps++] = v;
    } else if (!strcmp(a, "--save")) {
      NEED(); if (o.n_saves == MAX_LIST) return bad_usage("too many --save (%s)", v);
      o.saves[o.n_saves++] = v;
    } else if (!strcmp(a, "--max-insns")) {
      NEED(); if (!parse_u64(v, &o.max_insns)) return bad_usage("bad --max-insns '%s'", v);
    } else if (!strcmp(a, "--stack")) {
      NEED(); if (!parse_u64(v, &o.stack) || o.stack > (1u << 24)) return bad_usage("bad --stack '%s'", v);
    } else if (!strcmp(a, "--heap")) {
      NEED(); if (!parse_u64(v, &o.heap)) return bad_usage("bad --heap '%s'", v);
    } else if (!strcmp(a, "--threads")) {
      NEED(); if (!parse_u64(v, &o.threads) || o.threads < 1 || o.threads > 256) return bad_usage("bad --threads '%s'", v);
    } else if (!strcmp(a, "--json")) {
      NEED(); o.json = v;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      o.quiet = 1;
    } else if (!strcmp(a, "--demo")) {
      o.demo = 1;
    } else if (a[0] == '-' && a[1]) {
      return bad_usage("unknown option %s", a);
    } else if (o.file) {
      return bad_usage("more than one PTX file (%s)", a);
    } else {
      o.file = a;
    }
#undef NEED
  }

  func_runner_config cfg = {0};
  cfg.engine.max_warp_insns = o.max_insns;
  cfg.engine.stack_bytes = (uint32_t)o.stack;
  cfg.engine.threads = (uint32_t)o.threads;
  cfg.heap_bytes = o.heap;
  cfg.out = stdout;
  simtvp_diag d = {0};
  func_runner *r = func_runner_create(&cfg, &d);
  if (!r) {
    print_fault("start", &d);
    return 1;
  }
  if (o.demo || !o.file) return run_demo(r, &o);

  if (func_runner_load_ptx_file(r, o.file, &d) != SIMTVP_OK) {
    print_fault("loading the PTX", &d);
    func_runner_destroy(r);
    return 1;
  }
  const char *kernel = o.kernel ? o.kernel : first_entry(o.file);
  if (!kernel) {
    func_runner_destroy(r);
    return bad_usage("%s has no .entry; name a kernel with --kernel", o.file);
  }
  uint32_t want = func_runner_param_count(r, kernel);
  const char *specs[MAX_BUFS];
  uint32_t nb = o.n_bufs;
  memcpy(specs, o.buf_specs, sizeof specs);
  o.n_bufs = 0;
  for (uint32_t i = 0; i < nb; i++) {
    int st = setup_buf(r, &o, specs[i]);
    if (st) {
      func_runner_destroy(r);
      return st;
    }
  }
  if (o.n_args != want) {
    fprintf(stderr, "simtvp-func: kernel %s has %u parameters, %u given with --arg\n", kernel, want, o.n_args);
    func_runner_destroy(r);
    return 2;
  }
  uint64_t slots[MAX_ARGS];
  const void *args[MAX_ARGS];
  for (uint32_t i = 0; i < o.n_args; i++) {
    slots[i] = 0;
    int st = parse_arg(&o, o.args[i], &slots[i]);
    if (st) {
      func_runner_destroy(r);
      return st;
    }
    args[i] = &slots[i];
  }
  double t0 = now();
  simtvp_status st = func_runner_launch(r, kernel, o.grid, o.block, o.smem, args, &d);
  double t = now() - t0;
  if (st != SIMTVP_OK) {
    print_fault(kernel, &d);
    return finish(r, &o, 1);
  }
  printf("simtvp-func: %s completed: grid (%u,%u,%u), block (%u,%u,%u)\n", kernel, o.grid[0], o.grid[1],
         o.grid[2], o.block[0], o.block[1], o.block[2]);
  print_speed(r, t);
  for (uint32_t i = 0; i < o.n_dumps; i++) dump_buf(r, &o, o.dumps[i]);
  for (uint32_t i = 0; i < o.n_saves; i++) {
    const char *eq = strchr(o.saves[i], '=');
    char name[64];
    size_t n = eq ? (size_t)(eq - o.saves[i]) : 0;
    buf *b = NULL;
    if (eq && n < sizeof name) {
      memcpy(name, o.saves[i], n);
      name[n] = '\0';
      b = find_buf(&o, name);
    }
    if (!b) {
      fprintf(stderr, "simtvp-func: bad --save '%s'\n", o.saves[i]);
      continue;
    }
    uint8_t *data = malloc(b->bytes);
    func_runner_read(r, b->dptr, data, b->bytes, &d);
    FILE *f = fopen(eq + 1, "wb");
    if (!f || fwrite(data, 1, b->bytes, f) != b->bytes) fprintf(stderr, "simtvp-func: cannot write %s\n", eq + 1);
    if (f) fclose(f);
    free(data);
  }
  return finish(r, &o, 0);
}
