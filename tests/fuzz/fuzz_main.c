/* fuzz_main — the driver of the fuzz harnesses where libFuzzer is not available (gcc builds): it
 * replays inputs (files, or every file of a directory) through LLVMFuzzerTestOneInput, then runs
 * -runs=N inputs made by a deterministic mutator from them (bit and byte flips, interesting
 * integers, insertions, deletions, copies inside the input and splices of two inputs), so a
 * bounded smoke run is the same inputs on every machine. Flags follow libFuzzer's spelling so one
 * command line serves both drivers:
 *   fuzz_<target> [-runs=N] [-seed=S] [-max_len=L] FILE|DIR...
 * A crash is a crash of this process (the sanitizers, when built in, report it); the input being
 * run is printed first when SIMTVP_FUZZ_VERBOSE is set. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

typedef struct input {
  uint8_t *data;
  size_t size;
  char *name;
} input;

typedef struct corpus {
  input *v;
  size_t n, cap;
} corpus;

static void add(corpus *c, uint8_t *data, size_t size, const char *name) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->v = realloc(c->v, c->cap * sizeof *c->v);
    if (!c->v) abort();
  }
  c->v[c->n].data = data;
  c->v[c->n].size = size;
  c->v[c->n].name = strdup(name);
  c->n++;
}

static void load_file(corpus *c, const char *path, size_t max_len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz: cannot open %s\n", path);
    exit(2);
  }
  uint8_t *buf = malloc(max_len ? max_len : 1);
  size_t n = fread(buf, 1, max_len, f);
  fclose(f);
  uint8_t *exact = realloc(buf, n ? n : 1); /* exactly n bytes: overreads are caught */
  add(c, exact ? exact : buf, n, path);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Directory entries in name order, so every machine sees the same sequence. */
static void load_path(corpus *c, const char *path, size_t max_len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "fuzz: no such file or directory: %s\n", path);
    exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    load_file(c, path, max_len);
    return;
  }
  DIR *d = opendir(path);
  if (!d) exit(2);
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      names = realloc(names, cap * sizeof *names);
      if (!names) abort();
    }
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    snprintf(names[n], len, "%s/%s", path, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    load_path(c, names[i], max_len);
    free(names[i]);
  }
  free(names);
}

/* xorshift64*: the mutation sequence is a function of the seed only. */
static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* One to four edits of src into dst (capacity max_len); returns the new size. */
static size_t mutate(const corpus *c, const input *src, uint8_t *dst, size_t max_len) {
  static const int64_t interesting[] = {0, 1, -1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
                                        0x10000, 0x7fffffff, 0x80000000ll, 0xffffffffll, 16, 32, 64,
                                        4096, INT64_MAX, INT64_MIN};
  size_t n = src->size < max_len ? src->size : max_len;
  memcpy(dst, src->data, n);
  int edits = 1 + (int)below(4);
  for (int e = 0; e < edits; e++) {
    switch (below(8)) {
    case 0: /* flip a bit */
      if (n) dst[below(n)] ^= (uint8_t)(1u << below(8));
      break;
    case 1: /* set a byte */
      if (n) dst[below(n)] = (uint8_t)rnd();
      break;
    case 2: { /* an interesting integer of 1, 2, 4 or 8 bytes */
      size_t w = (size_t)1 << below(4);
      if (n >= w) {
        int64_t v = interesting[below(sizeof interesting / sizeof interesting[0])];
        memcpy(dst + below(n - w + 1), &v, w);
      }
      break;
    }
    case 3: { /* add or subtract a small amount to a 4-byte field */
      if (n >= 4) {
        size_t at = below(n - 3);
        uint32_t v;
        memcpy(&v, dst + at, 4);
        v += (uint32_t)(below(33)) - 16u;
        memcpy(dst + at, &v, 4);
      }
      break;
    }
    case 4: { /* insert random bytes */
      size_t k = 1 + below(8);
      if (n + k <= max_len) {
        size_t at = below(n + 1);
        memmove(dst + at + k, dst + at, n - at);
        for (size_t i = 0; i < k; i++) dst[at + i] = (uint8_t)rnd();
        n += k;
      }
      break;
    }
    case 5: { /* erase bytes */
      if (n) {
        size_t at = below(n), k = 1 + below(n - at < 16 ? n - at : 16);
        memmove(dst + at, dst + at + k, n - at - k);
        n -= k;
      }
      break;
    }
    case 6: { /* copy a chunk inside the input */
      if (n >= 2) {
        size_t k = 1 + below(n / 2), from = below(n - k + 1), to = below(n - k + 1);
        memmove(dst + to, dst + from, k);
      }
      break;
    }
    default: { /* splice: the head of this input, the tail of another */
      const input *o = &c->v[below(c->n)];
      if (o->size) {
        size_t cut = below(n + 1), from = below(o->size), k = o->size - from;
        if (cut + k > max_len) k = max_len - cut;
        memcpy(dst + cut, o->data + from, k);
        n = cut + k;
      }
      break;
    }
    }
  }
  return n;
}

int main(int argc, char **argv) {
  uint64_t runs = 0, seed = 1;
  size_t max_len = 1 << 20;
  corpus c = {0};
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "-runs=", 6)) runs = strtoull(argv[i] + 6, NULL, 10);
    else if (!strncmp(argv[i], "-seed=", 6)) seed = strtoull(argv[i] + 6, NULL, 10);
    else if (!strncmp(argv[i], "-max_len=", 9)) max_len = strtoull(argv[i] + 9, NULL, 10);
    else if (argv[i][0] == '-') continue; /* other libFuzzer flags have no meaning here */
    else load_path(&c, argv[i], max_len);
  }
  const int verbose = getenv("SIMTVP_FUZZ_VERBOSE") != NULL;
  for (size_t i = 0; i < c.n; i++) {
    if (verbose) fprintf(stderr, "fuzz: %s\n", c.v[i].name);
    LLVMFuzzerTestOneInput(c.v[i].data, c.v[i].size);
  }
  if (runs && c.n) {
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    uint8_t *buf = malloc(max_len ? max_len : 1);
    for (uint64_t r = 0; r < runs; r++) {
      const input *src = &c.v[below(c.n)];
      size_t n = mutate(&c, src, buf, max_len);
      if (verbose) fprintf(stderr, "fuzz: mutation %llu of %s\n", (unsigned long long)r, src->name);
      /* a copy of exactly n bytes, so reads past the end are caught by the sanitizers */
      uint8_t *exact = malloc(n ? n : 1);
      memcpy(exact, buf, n);
      LLVMFuzzerTestOneInput(exact, n);
      free(exact);
    }
    free(buf);
  }
  printf("fuzz: %zu corpus inputs, %llu mutations (seed %llu): no crash\n", c.n, (unsigned long long)runs,
         (unsigned long long)seed);
  for (size_t i = 0; i < c.n; i++) {
    free(c.v[i].data);
    free(c.v[i].name);
  }
  free(c.v);
  return 0;
}
