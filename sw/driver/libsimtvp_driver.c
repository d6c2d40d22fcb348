/* libsimtvp-driver.so — the register-level driver for a customer's CPU model as a shared library
 * (target simtvp_driver_shared, exported as simtvp::driver; sw/driver/CMakeLists.txt). The code
 * comes whole from the static driver and diagnostics libraries and, as they need it, the PTX front
 * end and the program-image writer; libsimtvp-driver.map exports drv_* and the diagnostics. */
#include "simtvp_version.h"

/* The version this library was built as, for `strings` and debuggers. */
const char simtvp_driver_library_version[] = "libsimtvp-driver " SIMTVP_VERSION_STRING;
