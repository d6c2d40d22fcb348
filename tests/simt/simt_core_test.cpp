// SIMT core behaviour beyond timing.
#include "simt_test_util.h"

using namespace simttest;
