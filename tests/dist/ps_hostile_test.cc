// The parameter server under attack from outside the job (a host that reaches its ports but does
// not know the secret): forged control and data frames, a registration flood, a job that never
// forms, and a failing job. No single frame may crash a node, stop or end the job, or leak
// descriptors; every role exits with a status, never by a signal.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <zmq.hpp>

#include "braid/base/error.h"
#include "dist/job.h"
#include "kvstore/ps/message.h"
#include "kvstore/ps/node.h"
#include "kvstore/ps/nodes.h"
#include "kvstore/ps/scheduler.h"

namespace braid::kv::ps {
namespace {

using test::Job;
using test::read;

// Waits until `text` shows `count` times in the file at `path` (woken by inotify each time the
// file is written); false after `seconds`.
bool wait_for_log(const std::string& path, const std::string& text, int count, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  const int watch = inotify_init1(IN_CLOEXEC);
  const bool watching = watch >= 0 && inotify_add_watch(watch, path.c_str(), IN_MODIFY) >= 0;
  bool found_all = false;
  for (;;) {
    const std::string log = read(path);
    int found = 0;
    for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++found;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if ((found_all = found >= count) || left.count() <= 0 || !watching) break;
    pollfd changed{watch, POLLIN, 0};
    if (poll(&changed, 1, static_cast<int>(left.count())) > 0) {
      char events[4096];
      (void)::read(watch, events, sizeof events);
    }
  }
  if (watch >= 0) close(watch);
  return found_all;
}

// The address a node logs with PS_VERBOSE=1 ("listening on tcp://127.0.0.1:PORT").
std::string listening_address(const std::string& log_path) {
  EXPECT_TRUE(wait_for_log(log_path, "listening on tcp://", 1, 30)) << read(log_path);
  const std::string log = read(log_path);
  const auto at = log.find("listening on tcp://") + 13;
  return log.substr(at, log.find('\n', at) - at);
}

// A frame an outsider can make: any header, a made-up MAC.
std::string forged(Command c, int sender, int recipient, int flags = 0, const std::string& body = "") {
  Message m;
  m.head.command = static_cast<uint16_t>(c);
  m.head.sender = sender;
  m.head.recipient = recipient;
  m.head.flags = flags;
  m.head.sequence = 1u << 30;
  std::memset(m.head.tag, 0x5a, sizeof m.head.tag);
  m.body = body;
  return encode_first_frame(m);
}

struct Outsider {
  zmq::context_t context;
  zmq::socket_t socket{context, zmq::socket_type::dealer};
  explicit Outsider(const std::string& address) {
    socket.set(zmq::sockopt::linger, 1000);
    socket.connect(address);
  }
  void send(const std::string& frame) { socket.send(zmq::buffer(frame), zmq::send_flags::none); }
};

int open_descriptors(pid_t pid) {
  int n = 0;
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (readdir(d)) ++n;
    closedir(d);
  }
  return n;
}

// Every frame that once aborted the scheduler or a server, stopped the job or ended it early is
// dropped, logged, and the job finishes as if nothing happened.
TEST(PsHostile, ForgedFramesFromOutsideTheJobChangeNothing) {
  Job job(1, 2, {{"BRAID_PS_SECRET", "s3cret"}, {"PS_VERBOSE", "1"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  const std::string server_address = listening_address(server->log_path());
  std::vector<std::unique_ptr<Node>> workers;
  std::vector<std::future<void>> started;
  for (int w = 0; w < 2; ++w) workers.push_back(std::make_unique<Node>(job.worker_config("s3cret")));
  for (auto& w : workers) started.push_back(std::async(std::launch::async, [&w] { w->start(nullptr); }));
  for (auto& s : started) ASSERT_EQ(s.wait_for(std::chrono::seconds(60)), std::future_status::ready);

  Outsider to_scheduler("tcp://127.0.0.1:" + std::to_string(job.port));
  to_scheduler.send(forged(Command::kBarrier, 4242, kSchedulerId, 4));  // once: std::terminate
  to_scheduler.send(forged(Command::kBarrier, 9, kSchedulerId, 4));
  to_scheduler.send(forged(Command::kAbort, 9, kSchedulerId, 0, "forged"));  // once: stopped the job
  to_scheduler.send(forged(Command::kFinished, 9, kSchedulerId));            // twice: ended it
  to_scheduler.send(forged(Command::kFinished, 11, kSchedulerId));
  Outsider to_server(server_address);
  to_server.send(forged(Command::kPull, 8, 8));  // the server's own id: once aborted it
  to_server.send(forged(Command::kExit, kSchedulerId, 8));
  to_server.send(forged(Command::kAbort, kSchedulerId, 8, 0, "forged"));
  ASSERT_TRUE(wait_for_log(scheduler->log_path(), "its MAC is wrong", 5, 30)) << read(scheduler->log_path());
  ASSERT_TRUE(wait_for_log(server->log_path(), "its MAC is wrong", 3, 30)) << read(server->log_path());

  std::vector<std::future<void>> finished;
  for (auto& w : workers)
    finished.push_back(std::async(std::launch::async, [&w] {
      w->barrier(kWorkerGroup);
      w->finish();
    }));
  for (auto& f : finished) {
    ASSERT_EQ(f.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    EXPECT_NO_THROW(f.get());
  }
  EXPECT_EQ(scheduler->wait(20), std::optional<int>(0)) << read(scheduler->log_path());
  EXPECT_EQ(server->wait(20), std::optional<int>(0)) << read(server->log_path());
  EXPECT_NE(read(scheduler->log_path()).find("every worker finished"), std::string::npos);
}

// Registrations that do not prove the secret get no socket of their own (refusals are
// rate-limited), so a flood neither exhausts descriptors nor locks the real nodes out.
TEST(PsHostile, ARegistrationFloodCostsNoDescriptorsAndTheJobStillForms) {
  Job job(1, 1, {{"BRAID_PS_SECRET", "s3cret"}});
  auto scheduler = job.start("scheduler", 0);
  ASSERT_TRUE(wait_for_log(scheduler->log_path(), "waiting for", 1, 30));
  const int before = open_descriptors(scheduler->pid());
  std::atomic<int> most{before};
  std::mutex watch_mu;
  std::condition_variable job_over;
  bool done = false;
  std::thread watch([&] {  // the most descriptors the scheduler held while under the flood, every 5 ms
    std::unique_lock<std::mutex> lock(watch_mu);
    do {
      most = std::max(most.load(), open_descriptors(scheduler->pid()));
    } while (!job_over.wait_for(lock, std::chrono::milliseconds(5), [&] { return done; }));
  });
  Outsider outsider("tcp://127.0.0.1:" + std::to_string(job.port));
  const int silent_port = test::free_port();  // nobody listens: the refusals wait there
  for (int i = 0; i < 1000; ++i)
    outsider.send(forged(Command::kRegister, -1, kSchedulerId, 0,
                         cat("worker 127.0.0.1 ", silent_port, " -1 nonce", i, " not-a-proof")));
  auto server = job.start("server", 0);
  Node worker(job.worker_config("s3cret"));
  worker.start(nullptr);
  worker.finish();
  EXPECT_EQ(scheduler->wait(20), std::optional<int>(0)) << read(scheduler->log_path());
  {
    std::lock_guard<std::mutex> lock(watch_mu);
    done = true;
  }
  job_over.notify_all();
  watch.join();
  EXPECT_EQ(server->wait(20), std::optional<int>(0));
  EXPECT_LT(most.load(), before + 100) << "descriptors: " << before << " before the flood, at most " << most;
  const std::string log = read(scheduler->log_path());
  EXPECT_NE(
      log.find("refused a worker at 127.0.0.1:" + std::to_string(silent_port) + ": it does not know the job's secret"),
      std::string::npos)
      << log;
}

TEST(PsHostile, ASchedulerWhoseNodesNeverComeGivesUpAtItsConnectTimeout) {
  Job job(1, 1, {{"BRAID_PS_CONNECT_TIMEOUT", "1"}});
  auto scheduler = job.start("scheduler", 0);
  EXPECT_EQ(scheduler->wait(30), std::optional<int>(1)) << read(scheduler->log_path());
  EXPECT_NE(read(scheduler->log_path()).find("only 0 of the job's 2 nodes registered within 1 s"), std::string::npos)
      << read(scheduler->log_path());
}

// A worker that fails stops the job: the scheduler and the server exit with status 1 and say why.
TEST(PsHostile, AfterAJobFailureEveryRoleExitsWithStatusOne) {
  Job job(1, 1, {{"BRAID_PS_SECRET", "s3cret"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  {
    Node worker(job.worker_config("s3cret"));
    worker.start(nullptr);
    worker.fail("the data ran out");
  }
  EXPECT_EQ(scheduler->wait(20), std::optional<int>(1)) << read(scheduler->log_path());
  EXPECT_EQ(server->wait(20), std::optional<int>(1)) << read(server->log_path());
  EXPECT_NE(read(server->log_path()).find("worker 0 (127.0.0.1:"), std::string::npos) << read(server->log_path());
  EXPECT_NE(read(server->log_path()).find("failed: the data ran out"), std::string::npos) << read(server->log_path());
}

}  // namespace
}  // namespace braid::kv::ps
