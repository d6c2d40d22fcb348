/* fuzz_util — what the fuzz harnesses share: a check that aborts (so the fuzzer records the input)
 * when a contract is broken without a crash, e.g. an error without a message. */
#ifndef SIMTVP_FUZZ_UTIL_H
#define SIMTVP_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_require(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz: contract broken: %s\n", what);
    abort();
  }
}

#endif /* SIMTVP_FUZZ_UTIL_H */
