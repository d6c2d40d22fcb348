// init_test.cc — a platform that cannot be built (a configuration file that does not exist): the
// first call that needs the device reports cudaErrorNoDevice naming the file, later calls repeat
// it, and calls that need no device still work. Alone in its binary: the failure is per process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cudart_api.h"

TEST(CudartInit, UnbuildablePlatformIsNoDeviceNamingTheCause) {
  setenv("SIMTVP_CONFIG", "/no/such/simtvp.config", 1);
  int count = 7;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count, 0);
  EXPECT_NE(err.find("/no/such/simtvp.config"), std::string::npos) << err;
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorNoDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNoDevice);
  int v = 0;
  EXPECT_EQ(cudaRuntimeGetVersion(&v), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorNoDevice), "cudaErrorNoDevice");
}
