// The dist_* KVStore types with real processes: a scheduler and S servers (`braid server`) and W
// workers (programs/kv_worker.cc, which checks the values the way MXNet's nightly
// dist_sync_kvstore.py does). A test passes when every process exits 0.
#include <gtest/gtest.h>

#include <tuple>

#include "dist/job.h"

namespace braid::test {
namespace {

struct Case {
  std::string type, scenario;
  int workers, servers;
  std::string bound = "";  // MXNET_KVSTORE_BIGARRAY_BOUND, if set
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.type << " " << c.scenario << " W=" << c.workers << " S=" << c.servers
      << (c.bound.empty() ? "" : " bound=" + c.bound);
}

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return c.type + "_" + c.scenario + "_W" + std::to_string(c.workers) + "_S" + std::to_string(c.servers) +
         (c.bound.empty() ? "" : "_bound" + c.bound);
}

class DistKVStore : public ::testing::TestWithParam<Case> {};

TEST_P(DistKVStore, EveryWorkerSeesTheExpectedValues) {
  const Case& c = GetParam();
  std::map<std::string, std::string> env = {{"PS_HEARTBEAT_INTERVAL", "0.5"}, {"PS_HEARTBEAT_TIMEOUT", "10"}};
  if (!c.bound.empty()) env["MXNET_KVSTORE_BIGARRAY_BOUND"] = c.bound;
  Job job(c.servers, c.workers, env);
  auto scheduler = job.start("scheduler", 0);
  std::vector<std::unique_ptr<Process>> servers, workers;
  for (int s = 0; s < c.servers; ++s) servers.push_back(job.start("server", s));
  for (int w = 0; w < c.workers; ++w)
    workers.push_back(
        job.start_worker({BRAID_BINARY_DIR "/tests/braid_dist_kv_worker", c.type, c.scenario, job.dir}, w));
  for (int w = 0; w < c.workers; ++w) {
    const auto status = workers[static_cast<size_t>(w)]->wait(90);
    EXPECT_EQ(status, std::optional<int>(0)) << "worker " << w << ":\n" << read(job.log_of("worker", w));
  }
  EXPECT_EQ(scheduler->wait(15), std::optional<int>(0)) << read(job.log_of("scheduler", 0));
  for (int s = 0; s < c.servers; ++s) {
    EXPECT_EQ(servers[static_cast<size_t>(s)]->wait(15), std::optional<int>(0)) << read(job.log_of("server", s));
    // Each server logs its load at the end (keys, bytes, requests).
    EXPECT_NE(read(job.log_of("server", s)).find("load: "), std::string::npos);
  }
}

// As MXNet's launch.py runs it: one program for every role. In the scheduler's and the servers'
// processes kv::create runs the role until the job ends, then exits the process with its status.
TEST(DistKVStoreRoles, TheWorkersProgramRunsTheSchedulerAndServersToo) {
  Job job(2, 2);
  const std::vector<std::string> program = {BRAID_BINARY_DIR "/tests/braid_dist_kv_worker", "dist_sync", "sync",
                                            job.dir};
  Process scheduler(program, job.env("scheduler"), job.log_of("scheduler", 0));
  Process s0(program, job.env("server"), job.log_of("server", 0)),
      s1(program, job.env("server"), job.log_of("server", 1));
  Process w0(program, job.env("worker"), job.log_of("worker", 0)),
      w1(program, job.env("worker"), job.log_of("worker", 1));
  EXPECT_EQ(w0.wait(60), std::optional<int>(0)) << read(job.log_of("worker", 0));
  EXPECT_EQ(w1.wait(60), std::optional<int>(0)) << read(job.log_of("worker", 1));
  for (auto* p : {&scheduler, &s0, &s1}) EXPECT_EQ(p->wait(15), std::optional<int>(0)) << read(p->log_path());
  // The servers never reached the worker's checks: kv::create did not return there.
  EXPECT_EQ(read(job.log_of("server", 0)).find(" of 2: ok"), std::string::npos) << read(job.log_of("server", 0));
  EXPECT_NE(read(job.log_of("server", 0)).find("load: "), std::string::npos);
}

// mod::Module over dist_sync (its own store, rescale over every worker's batch, worker 0's
// initial weights pulled by all) ends with the weights of one Module on the global batches.
TEST(DistModule, FitOverDistSyncEqualsOneModuleOnTheGlobalBatches) {
  Job job(2, 2);
  auto scheduler = job.start("scheduler", 0);
  auto s0 = job.start("server", 0), s1 = job.start("server", 1);
  std::vector<std::unique_ptr<Process>> workers;
  for (int w = 0; w < 2; ++w) {
    auto env = job.env("worker");
    env["BRAID_PS_RANK"] = std::to_string(w);
    workers.push_back(std::make_unique<Process>(
        std::vector<std::string>{BRAID_BINARY_DIR "/tests/braid_dist_kv_worker", "dist_sync", "module", job.dir}, env,
        job.log_of("worker", w)));
  }
  for (int w = 0; w < 2; ++w)
    EXPECT_EQ(workers[static_cast<size_t>(w)]->wait(90), std::optional<int>(0)) << read(job.log_of("worker", w));
  EXPECT_EQ(scheduler->wait(15), std::optional<int>(0)) << read(job.log_of("scheduler", 0));
}

INSTANTIATE_TEST_SUITE_P(Sync, DistKVStore,
                         ::testing::Values(Case{"dist_sync", "sync", 2, 1}, Case{"dist_sync", "sync", 3, 2},
                                           Case{"dist_sync", "sync", 4, 3}, Case{"dist_sync", "sync_optimizer", 2, 1},
                                           Case{"dist_sync", "sync_optimizer", 3, 2},
                                           Case{"dist_sync", "sync_optimizer", 4, 3},
                                           Case{"dist_sync_device", "sync", 2, 2}, Case{"dist", "sync_optimizer", 2, 1},
                                           Case{"dist_sync", "server_error", 2, 2}, Case{"dist_sync", "uneven", 3, 2},
                                           // every key split, even the 6-element ones, over 3 servers
                                           Case{"dist_sync", "sync_optimizer", 2, 3, "4"}),
                         name_of);
INSTANTIATE_TEST_SUITE_P(Async, DistKVStore,
                         ::testing::Values(Case{"dist_async", "async", 2, 1}, Case{"dist_async", "async", 3, 2}),
                         name_of);
INSTANTIATE_TEST_SUITE_P(Compression, DistKVStore,
                         ::testing::Values(Case{"dist_sync", "compression", 2, 1},
                                           Case{"dist_sync", "compression", 3, 2}),
                         name_of);
INSTANTIATE_TEST_SUITE_P(OptimizerStates, DistKVStore,
                         ::testing::Values(Case{"dist_sync", "states", 2, 2}, Case{"dist_sync", "states", 3, 3},
                                           Case{"dist_sync", "states", 2, 2, "5"}),
                         name_of);

}  // namespace
}  // namespace braid::test
