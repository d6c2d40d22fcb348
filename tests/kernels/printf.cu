// printf — device-side printf with several conversions (%d %u %lld %x %c %s %f %e %g, width,
// precision, flags). The program captures its own stdout while the kernel runs (the device output
// is flushed at cudaDeviceSynchronize), compares the lines with what the host's printf makes of
// the same arguments (order between threads is free, so both sides are sorted), then echoes them.
// Usage: printf [blocks=2] [threads_per_block=4]
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernel_check.cuh"

#define LINE_FORMAT "b%d t%u: %5d|%-4u|%lld|%#x|%c|%s|%.3f|%.2e|%g\n"

__global__ void device_printf(int base, double scale) {
  const unsigned t = threadIdx.x;
  printf(LINE_FORMAT, (int)blockIdx.x, t, base - (int)t, t * 7, (long long)base << 33, 0xbeef + t,
         'a' + (int)t % 26, t % 2 ? "odd" : "even", scale * t, scale * 1000.0 * t, 0.5 + t);
}

static std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

int main(int argc, char **argv) {
  const int blocks = arg_int(argc, argv, 1, 2);
  const int threads = arg_int(argc, argv, 2, 4);
  const int base = 1234;
  const double scale = 0.125;

  // Expected output, made by the host's printf from the same arguments.
  std::string want_text;
  char line[256];
  for (int b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < (unsigned)threads; ++t) {
      std::snprintf(line, sizeof line, LINE_FORMAT, b, t, base - (int)t, t * 7, (long long)base << 33,
                    0xbeef + t, 'a' + (int)t % 26, t % 2 ? "odd" : "even", scale * t,
                    scale * 1000.0 * t, 0.5 + t);
      want_text += line;
    }

  // Redirect file descriptor 1 into a temporary file around the launch and the synchronisation.
  std::fflush(stdout);
  FILE *capture = std::tmpfile();
  int saved_stdout = dup(1);
  if (!capture || saved_stdout < 0 || dup2(fileno(capture), 1) < 0) {
    std::fprintf(stderr, "printf: cannot capture stdout\n");
    return 2;
  }
  device_printf<<<blocks, threads>>>(base, scale);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::fflush(stdout);
  dup2(saved_stdout, 1);
  close(saved_stdout);
  CHECK_CUDA(launch);
  CHECK_CUDA(sync);

  std::string got_text;
  std::rewind(capture);
  int c;
  while ((c = std::fgetc(capture)) != EOF) got_text += (char)c;
  std::fclose(capture);

  std::vector<std::string> got = split_lines(got_text), want = split_lines(want_text);
  std::fwrite(got_text.data(), 1, got_text.size(), stdout);  // show what the device printed
  std::vector<std::string> got_sorted = got, want_sorted = want;
  std::sort(got_sorted.begin(), got_sorted.end());
  std::sort(want_sorted.begin(), want_sorted.end());
  if (got_sorted == want_sorted)
    return verdict("printf", true, "%zu lines from %d blocks x %d threads", got.size(), blocks,
                   threads);
  for (size_t i = 0; i < want_sorted.size(); ++i)
    if (i >= got_sorted.size() || got_sorted[i] != want_sorted[i])
      return verdict("printf", false, "got %zu lines, want %zu; first difference: '%s' vs '%s'",
                     got.size(), want.size(), i < got_sorted.size() ? got_sorted[i].c_str() : "",
                     want_sorted[i].c_str());
  return verdict("printf", false, "got %zu lines, want %zu (extra: '%s')", got.size(), want.size(),
                 got_sorted[want_sorted.size()].c_str());
}
