// bfs — breadth-first search from vertex 0 of a fixed random graph in CSR form, level by level
// (one launch per level, the host reads a "changed" flag after each, as Harish and Narayanan's
// GPU BFS does):
//   bfs_level: one thread per vertex; a vertex on the current level visits its neighbours and gives
//              every unvisited one the next level (concurrent writers write the same value).
// The graph: N vertices, each with an edge to its successor (so everything is reachable) and 1 to
// 15 more to uniformly drawn vertices (8 on average), about 10 levels for N = 2^16. `launch` in the
// output is the level. The check compares every vertex's level with a host BFS.
#include "hwcorr.cuh"

#include <queue>

namespace {

constexpr int kThreads = 256;
constexpr int kUnvisited = -1;

__global__ void bfs_level(int n, const int *rowptr, const int *adj, int *level, int cur, int *changed,
                          hwc::stamp *st) {
  hwc::cta_begin(st);
  int v = blockIdx.x * kThreads + threadIdx.x;
  if (v < n && level[v] == cur) {
    for (int k = rowptr[v]; k < rowptr[v + 1]; k++) {
      int u = adj[k];
      if (level[u] == kUnvisited) {
        level[u] = cur + 1;
        *changed = 1;
      }
    }
  }
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "bfs", 1 << 16);
  const uint64_t n = b.size();
  if (n % kThreads != 0 || n > (1ull << 24)) {
    std::fprintf(stderr, "bfs: N must be a multiple of %d, at most 2^24 (got %llu)\n", kThreads, (unsigned long long)n);
    return 2;
  }
  const int ni = static_cast<int>(n);
  std::vector<int> rowptr(n + 1), adj;
  hwc::rng r(8);
  for (int v = 0; v < ni; v++) {
    rowptr[v] = static_cast<int>(adj.size());
    adj.push_back((v + 1) % ni);
    int extra = 1 + static_cast<int>(r.below(15));
    for (int k = 0; k < extra; k++) adj.push_back(static_cast<int>(r.below(ni)));
  }
  rowptr[n] = static_cast<int>(adj.size());
  std::vector<int> expect(n, kUnvisited);
  std::queue<int> q;
  expect[0] = 0;
  q.push(0);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int k = rowptr[v]; k < rowptr[v + 1]; k++)
      if (expect[adj[k]] == kUnvisited) expect[adj[k]] = expect[v] + 1, q.push(adj[k]);
  }
  hwc::dbuf<int> drow(n + 1), dadj(adj.size()), level(n), changed(1);
  drow.put(rowptr);
  dadj.put(adj);
  std::vector<int> start(n, kUnvisited);
  start[0] = 0;
  const unsigned grid = hwc::ceil_div(n, kThreads);
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    level.put(start);
    for (int cur = 0;; cur++) {
      changed.zero();
      b.timed("bfs_level", dim3(grid), dim3(kThreads), [&](hwc::stamp *s) {
        bfs_level<<<grid, kThreads>>>(ni, drow.p, dadj.p, level.p, cur, changed.p, s);
      });
      if (!changed.get()[0] || cur > ni) break;
    }
    std::vector<int> got = level.get();
    for (int v = 0; v < ni; v++)
      if (got[v] != expect[v]) {
        char why[160];
        std::snprintf(why, sizeof why, "repetition %d: level[%d] = %d, expected %d", rep, v, got[v], expect[v]);
        b.check(false, why);
        break;
      }
  }
  b.calibrate();
  return b.finish();
}
