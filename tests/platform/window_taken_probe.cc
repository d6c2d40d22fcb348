// window_taken_probe — a program whose own memory sits inside the GPU's generic-address windows
// before libsimtvp loads (as AddressSanitizer's allocator sometimes does): it maps a page there,
// then loads libsimtvp.so with dlopen and opens the platform. The platform cannot reserve the whole
// windows: it must reserve the gaps around the page and say so on stderr; the probe then prints how
// many bytes of the windows nothing maps (platform_host_tests reads both: the answer must be 0).
// Exit 0 when opened, 77 when the page could not be placed first, 1 on any other failure.
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdio>
#include <string>

#include "func.h"
#include "simtvp_host.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: window_taken_probe LIBSIMTVP\n");
    return 1;
  }
  void *want = reinterpret_cast<void *>(FUNC_WINDOW_LO + 0x10000);
  void *p = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != want) return 77;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "window_taken_probe: %s\n", dlerror());
    return 1;
  }
  using open_fn = simtvp_host *(*)(const simtvp_host_options *, simtvp_diag *);
  using close_fn = void (*)(simtvp_host *);
  auto open = reinterpret_cast<open_fn>(dlsym(lib, "simtvp_host_open"));
  auto close = reinterpret_cast<close_fn>(dlsym(lib, "simtvp_host_close"));
  if (!open || !close) return 1;
  const char *overrides[] = {"-simt_model", "func"};
  simtvp_host_options o = {};
  o.overrides = overrides;
  o.n_overrides = 2;
  o.quiet = false;
  simtvp_diag d{};
  simtvp_host *h = open(&o, &d);
  if (!h) {
    std::fprintf(stderr, "window_taken_probe: %s\n", d.message);
    return 1;
  }
  // What matters is that no later host mapping can land inside the windows: every page of them is
  // mapped by something (the page above, other mappings already there, the platform's gap
  // reservations). Count the bytes nothing covers (/proc/self/maps lists mappings in address order).
  unsigned long long covered_to = FUNC_WINDOW_LO, uncovered = 0;
  if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
      unsigned long long lo = 0, hi = 0;
      if (std::sscanf(line, "%llx-%llx", &lo, &hi) != 2 || hi <= covered_to || lo >= FUNC_WINDOW_HI) continue;
      if (lo > covered_to) uncovered += lo - covered_to;
      covered_to = hi < FUNC_WINDOW_HI ? hi : FUNC_WINDOW_HI;
    }
    std::fclose(maps);
  } else {
    return 1;
  }
  if (covered_to < FUNC_WINDOW_HI) uncovered += FUNC_WINDOW_HI - covered_to;
  std::fprintf(stderr, "window_taken_probe: window bytes left unmapped: %llu\n", uncovered);
  if (uncovered) /* say what is there, for the test's failure message */
    if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, maps)) {
        unsigned long long lo = 0, hi = 0;
        if (std::sscanf(line, "%llx-%llx", &lo, &hi) == 2 && hi > FUNC_WINDOW_LO && lo < FUNC_WINDOW_HI)
          std::fprintf(stderr, "  %s", line);
      }
      std::fclose(maps);
    }
  close(h);
  return 0;
}
