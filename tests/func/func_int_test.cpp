#include "func_test_util.h"
