// simtvp_compare — `simtvp compare`: one program under several fidelity assignments, kernel by
// kernel (simtvp_compare.cc).
#ifndef SIMTVP_PLATFORM_SIMTVP_COMPARE_H
#define SIMTVP_PLATFORM_SIMTVP_COMPARE_H

#include <string>

// argv[0] is "compare"; without a program it compares default_program (the bundled sample).
// Returns the exit status.
int simtvp_compare_main(int argc, char **argv, const std::string &default_program);

#endif  // SIMTVP_PLATFORM_SIMTVP_COMPARE_H
