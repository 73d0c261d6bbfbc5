// The parameter server's control plane with real processes: a scheduler and servers started as
// `braid server`, workers as nodes inside this test. Registration and ranks, barriers, the end
// of the job, the secret handshake, and a dead node bringing the job down with its name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <thread>

#include "braid/base/error.h"
#include "dist/job.h"
#include "kvstore/ps/node.h"
#include "kvstore/ps/scheduler.h"

namespace braid::kv::ps {
namespace {

using test::Job;
using test::Process;
using test::read;

TEST(PsControl, NodesRegisterGetRanksBarrierAndTheJobEnds) {
  Job job(2, 3);
  auto scheduler = job.start("scheduler", 0);
  auto s0 = job.start("server", 0), s1 = job.start("server", 1);
  std::vector<std::future<std::pair<int, size_t>>> workers;
  for (int w = 0; w < 3; ++w)
    workers.push_back(std::async(std::launch::async, [&job] {
      Node node(job.worker_config());
      node.start(nullptr);
      node.barrier(kWorkerGroup);
      node.barrier(kWorkerGroup);
      const auto result = std::make_pair(node.rank(), node.servers().size());
      node.finish();
      return result;
    }));
  std::set<int> ranks;
  for (auto& w : workers) {
    ASSERT_EQ(w.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    auto [rank, servers] = w.get();
    ranks.insert(rank);
    EXPECT_EQ(servers, 2u);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(scheduler->wait(20), 0) << read(scheduler->log_path());
  EXPECT_EQ(s0->wait(20), 0) << read(s0->log_path());
  EXPECT_EQ(s1->wait(20), 0) << read(s1->log_path());
  EXPECT_NE(read(scheduler->log_path()).find("every worker finished"), std::string::npos);
}

// DMLC_PORT fixes the port a server listens on (for firewalls); a bad one is named.
TEST(PsControl, AServerListensOnDmlcPort) {
  const int server_port = test::free_port();
  Job job(1, 1, {{"PS_VERBOSE", "1"}});
  auto scheduler = job.start("scheduler", 0);
  auto env = job.env("server");
  env["DMLC_PORT"] = std::to_string(server_port);
  Process server({BRAID_BINARY_DIR "/bin/braid", "server"}, env, job.log_of("server", 0));
  Node node(job.worker_config());
  node.start(nullptr);
  node.finish();
  EXPECT_EQ(server.wait(20), 0) << read(job.log_of("server", 0));
  EXPECT_EQ(scheduler->wait(20), 0) << read(scheduler->log_path());
  EXPECT_NE(read(job.log_of("server", 0)).find("listening on tcp://127.0.0.1:" + std::to_string(server_port)),
            std::string::npos)
      << read(job.log_of("server", 0));

  env["DMLC_PORT"] = "70000";
  Process bad({BRAID_BINARY_DIR "/bin/braid", "server"}, env, job.dir + "/bad.log");
  EXPECT_NE(bad.wait(20).value_or(0), 0);
  EXPECT_NE(read(job.dir + "/bad.log").find("DMLC_PORT=70000 is not a TCP port"), std::string::npos)
      << read(job.dir + "/bad.log");
}

TEST(PsControl, ANodeWithoutTheSecretIsRefusedAndLogged) {
  Job job(1, 1, {{"BRAID_PS_SECRET", "s3cret"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  {
    Node stranger(job.worker_config(""));
    try {
      stranger.start(nullptr);
      FAIL() << "a node without the secret joined";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("does not know the job's secret"), std::string::npos) << e.what();
    }
  }
  {
    // A refusal it cannot check (it does not prove the node's secret) does not stop a node by
    // itself: it waits until its connect timeout, then says what it saw.
    Config config = job.worker_config("guess");
    config.connect_timeout_s = 2;
    Node liar(config);
    try {
      liar.start(nullptr);
      FAIL() << "a node with the wrong secret joined";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("A refusal came that does not prove the job's secret"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("does not know the job's secret"), std::string::npos) << e.what();
    }
  }
  Node worker(job.worker_config("s3cret"));
  worker.start(nullptr);
  EXPECT_EQ(worker.rank(), 0);
  worker.finish();
  EXPECT_EQ(scheduler->wait(20), 0);
  EXPECT_EQ(server->wait(20), 0);
  const std::string log = read(scheduler->log_path());
  EXPECT_NE(log.find("refused a worker at 127.0.0.1"), std::string::npos) << log;
}

TEST(PsControl, AKilledServerStopsTheJobWithItsNameWithinTheTimeout) {
  Job job(1, 1, {{"PS_HEARTBEAT_INTERVAL", "0.2"}, {"PS_HEARTBEAT_TIMEOUT", "2"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  // The worker node goes away right after its failure (else its watchdog ends this process).
  auto worker = std::make_unique<Node>(job.worker_config());
  worker->start(nullptr);
  server->kill_now();
  const auto killed = std::chrono::steady_clock::now();
  try {
    worker->wait_for_exit();
    FAIL() << "the job went on without its server";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("server 0 (127.0.0.1:"), std::string::npos) << e.what();
  }
  worker.reset();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count(), 2 + 5);
  EXPECT_EQ(scheduler->wait(10), 1);
}

TEST(PsControl, ADeadSchedulerIsNoticedByItsNodes) {
  Job job(1, 1, {{"PS_HEARTBEAT_INTERVAL", "0.2"}, {"PS_HEARTBEAT_TIMEOUT", "2"}, {"PS_VERBOSE", "1"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  auto worker = std::make_unique<Node>(job.worker_config());
  worker->start(nullptr);
  // Killed once the server too has the node table (it then connects to worker 0, node 9).
  for (int i = 0; i < 400 && read(server->log_path()).find("connected to node 9") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  scheduler->kill_now();
  try {
    worker->barrier(kWorkerGroup);
    FAIL() << "a barrier without a scheduler returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the scheduler at 127.0.0.1"), std::string::npos) << e.what();
  }
  worker.reset();
  EXPECT_EQ(server->wait(10), 1) << read(server->log_path());
}

}  // namespace
}  // namespace braid::kv::ps
