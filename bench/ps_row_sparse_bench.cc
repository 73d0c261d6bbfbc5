// row_sparse_pull of 1% of the rows of a 1,000,000 x 64 float32 embedding (256 MB) against a
// dense pull of the same key, through a parameter-server job on 127.0.0.1 (a scheduler and two
// servers started as `braid server` processes, this process the one worker, dist_sync). Both are
// timed in alternation, round by round; the bytes are the worker's counts of what it sent and
// received. Target (issue 26): >= 50x fewer bytes and >= 20x less time than the dense pull.
//
//   ps_row_sparse_bench [ROUNDS] [ROWS] [WIDTH] [PERCENT]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_processes.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "kvstore/ps/dist_store.h"

namespace {

using namespace braid;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  const int64_t rows = argc > 2 ? std::atoll(argv[2]) : 1000000, width = argc > 3 ? std::atoll(argv[3]) : 64;
  const double percent = argc > 4 ? std::atof(argv[4]) : 1.0;
  const int port = 24000 + getpid() % 1000;
  std::vector<pid_t> processes;
  for (const char* role : {"scheduler", "server", "server"})
    processes.push_back(bench::spawn({bench::self_dir() + "/braid", "server"}, bench::ps_job_env(port, role, 2, 1)));
  bench::become_ps_worker(port, 2, 1);

  const auto k = static_cast<int64_t>(static_cast<double>(rows) * percent / 100.0);
  std::printf("one %lld x %lld float32 key on 2 servers, 1 worker on 127.0.0.1; median of %d rounds\n",
              static_cast<long long>(rows), static_cast<long long>(width), rounds);
  {
    auto store = kv::create("dist_sync");
    store->init(0, nd::zeros(Shape{rows, width}));
    NDArray dense = nd::zeros(Shape{rows, width});
    NDArray sparse_out = sparse::zeros(StorageType::RowSparse, Shape{rows, width});
    std::mt19937_64 random(42);
    std::vector<double> dense_s, sparse_s;
    uint64_t dense_bytes = 0, sparse_bytes = 0;
    for (int r = -1; r < rounds; ++r) {  // one round of warm-up
      std::set<int64_t> chosen;
      while (static_cast<int64_t>(chosen.size()) < k) chosen.insert(static_cast<int64_t>(random() % rows));
      const std::vector<int64_t> ids(chosen.begin(), chosen.end());
      const NDArray row_ids = nd::array(ids, Shape{k}, cpu(), DType::Int64);
      row_ids.wait_to_read();

      auto before = kv::ps::worker_traffic(*store);
      auto t0 = Clock::now();
      store->pull(0, {dense});
      dense.wait_to_read();
      const double d = seconds_since(t0);
      auto after = kv::ps::worker_traffic(*store);
      dense_bytes = (after.sent - before.sent) + (after.received - before.received);

      before = after;
      t0 = Clock::now();
      store->row_sparse_pull(0, {sparse_out}, {row_ids});
      sparse_out.wait_to_read();
      const double s = seconds_since(t0);
      after = kv::ps::worker_traffic(*store);
      sparse_bytes = (after.sent - before.sent) + (after.received - before.received);
      if (r >= 0) {
        dense_s.push_back(d);
        sparse_s.push_back(s);
      }
    }
    const double d = bench::median(dense_s), s = bench::median(sparse_s);
    std::printf("%-28s %14s %12s\n", "", "bytes", "ms");
    std::printf("%-28s %14llu %12.2f\n", "pull (dense)", static_cast<unsigned long long>(dense_bytes), d * 1e3);
    std::printf("row_sparse_pull of %-9lld %14llu %12.2f\n", static_cast<long long>(k),
                static_cast<unsigned long long>(sparse_bytes), s * 1e3);
    std::printf("dense / row_sparse: %.1fx the bytes, %.1fx the time\n",
                static_cast<double>(dense_bytes) / static_cast<double>(sparse_bytes), d / s);
  }  // the store's end finishes the job: the scheduler and servers exit
  int failed = 0;
  for (pid_t p : processes) {
    int status = 0;
    waitpid(p, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed ? 1 : 0;
}
