/* simtvp-options — prints the option reference, checks option files, dumps the effective
 * configuration. docs/configuration.md is `simtvp-options --markdown`.
 *
 *   simtvp-options --markdown [-o FILE]        the reference of every registered option
 *   simtvp-options [--strict] --check FILE...  load FILEs in order; report problems; exit 1 on error
 *   simtvp-options [--strict] --dump FILE...   load FILEs, print the effective configuration
 *   Options after "--" are command-line overrides (-name value ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gpu_config.h"

static void print_msg(void *ctx, simtvp_severity severity, const char *message) {
  (void)ctx;
  fprintf(stderr, "%s: %s\n", severity == SIMTVP_WARNING ? "warning" : "note", message);
}

static int usage(void) {
  fprintf(stderr,
          "usage: simtvp-options --markdown [-o FILE]\n"
          "       simtvp-options [--strict] (--check|--dump) FILE... [-- -option value ...]\n");
  return 2;
}

int main(int argc, char **argv) {
  enum { NONE, MARKDOWN, CHECK, DUMP } mode = NONE;
  int strict = 0, first_file = 0, n_files = 0, overrides = argc;
  const char *output = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--markdown") == 0) mode = MARKDOWN;
    else if (strcmp(argv[i], "--check") == 0) mode = CHECK;
    else if (strcmp(argv[i], "--dump") == 0) mode = DUMP;
    else if (strcmp(argv[i], "--strict") == 0) strict = 1;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) output = argv[++i];
    else if (strcmp(argv[i], "--") == 0) {
      overrides = i + 1;
      break;
    } else if (argv[i][0] == '-' && argv[i][1] == '-') return usage();
    else {
      if (!n_files) first_file = i;
      else if (first_file + n_files != i) return usage();
      n_files++;
    }
  }
  if (mode == NONE || (mode != MARKDOWN && n_files == 0)) return usage();

  simtvp_msg_port port = {NULL, print_msg};
  config_registry *r = config_registry_create(mode == MARKDOWN ? NULL : &port);
  gpu_config *cfg = calloc(1, sizeof *cfg);
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  int rc = 0;
  if (!r || !cfg) {
    fprintf(stderr, "out of memory\n");
    rc = 1;
    goto done;
  }
  config_registry_set_strict(r, strict);
  simtvp_status st = gpu_config_register(r, cfg, &diag);
  if (st == SIMTVP_OK && mode == MARKDOWN) {
    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out) {
      fprintf(stderr, "cannot write %s\n", output);
      rc = 1;
      goto done;
    }
    config_registry_write_markdown(r, out);
    if (output && fclose(out) != 0) {
      fprintf(stderr, "error writing %s\n", output);
      rc = 1;
    }
    goto done;
  }
  for (int i = 0; st == SIMTVP_OK && i < n_files; i++)
    st = config_registry_load_file(r, argv[first_file + i], &diag);
  if (st == SIMTVP_OK && overrides < argc)
    st = config_registry_parse_args(r, argc - overrides, (const char *const *)argv + overrides,
                                    &diag);
  if (st == SIMTVP_OK) st = gpu_config_finalize(cfg, r, &diag);
  if (st != SIMTVP_OK) {
    fprintf(stderr, "error: %s\n", diag.message);
    rc = 1;
    goto done;
  }
  if (mode == DUMP) config_registry_dump(r, stdout);
  fprintf(stderr, "%u unknown option(s), %u accepted-but-not-modelled option(s); %u cores, %u channels\n",
          config_registry_unknown_count(r), config_registry_not_modelled_count(r),
          cfg->derived.n_cores, cfg->mem.n_channels);
done:
  free(cfg);
  config_registry_destroy(r);
  return rc;
}
