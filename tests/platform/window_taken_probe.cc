// window_taken_probe — a program whose own memory sits inside the GPU's generic-address windows
// before libsimtvp loads (as AddressSanitizer's allocator sometimes does): it maps a page there,
// then loads libsimtvp.so with dlopen and opens the platform. The platform cannot reserve the whole
// windows: it must reserve the gaps around the page and say so on stderr; the probe then prints how
// many reservations (---p mappings) it finds inside the windows (platform_host_tests reads both).
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
  unsigned gaps = 0;
  if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
      unsigned long long lo = 0, hi = 0;
      char perms[8] = {};
      if (std::sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && lo < FUNC_WINDOW_HI && hi > FUNC_WINDOW_LO &&
          std::string(perms) == "---p")
        gaps++;
    }
    std::fclose(maps);
  }
  std::fprintf(stderr, "window_taken_probe: gaps reserved: %u\n", gaps);
  close(h);
  return 0;
}
