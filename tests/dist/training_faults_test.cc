// A parameter-server job training LeNet (braid train --kvstore dist_sync) whose worker or server
// is killed: every other process stops within PS_HEARTBEAT_TIMEOUT + 5 s with an error naming
// the dead node, instead of hanging as MXNet's jobs did. The processes are started one by one
// (no launcher), so that only the heartbeats can tell them.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "dist/job.h"

namespace braid::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kTimeoutS = 3;

bool wait_for_text(const std::string& path, const std::string& text, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (read(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

struct TrainingJob {
  Job job{1, 2, {{"PS_HEARTBEAT_INTERVAL", "0.5"}, {"PS_HEARTBEAT_TIMEOUT", std::to_string(kTimeoutS)}}};
  std::unique_ptr<Process> scheduler = job.start("scheduler", 0), server = job.start("server", 0);
  std::vector<std::unique_ptr<Process>> workers;

  TrainingJob() {
    for (int w = 0; w < 2; ++w)
      workers.push_back(job.start_worker({BRAID_BINARY_DIR "/bin/braid", "train", "--kvstore", "dist_sync", "--epochs",
                                          "50", "--limit", "2000", "--test-limit", "100"},
                                         w));
    for (int w = 0; w < 2; ++w)  // training: each worker has ended its first epoch
      EXPECT_TRUE(wait_for_text(job.log_of("worker", w), "test acc", 60)) << read(job.log_of("worker", w));
  }
};

// Waits for `p` to stop within the bound; it must fail, and its log name the dead node.
void expect_stopped(Process& p, const std::string& log, const std::string& dead, Clock::time_point killed_at) {
  const auto status = p.wait(kTimeoutS + 5 + 5);
  const double after = std::chrono::duration<double>(Clock::now() - killed_at).count();
  ASSERT_TRUE(status.has_value()) << "still running " << after << " s after the kill:\n" << read(log);
  EXPECT_NE(*status, 0) << read(log);
  EXPECT_LE(after, kTimeoutS + 5) << read(log);
  EXPECT_NE(read(log).find(dead), std::string::npos) << "the log does not name " << dead << ":\n" << read(log);
}

TEST(TrainingFaults, AKilledWorkerStopsTheJobNamingIt) {
  TrainingJob t;
  t.workers[1]->kill_now();
  const auto killed_at = Clock::now();
  t.workers[1]->wait(5);
  expect_stopped(*t.workers[0], t.job.log_of("worker", 0), "sent nothing for", killed_at);
  expect_stopped(*t.server, t.job.log_of("server", 0), "sent nothing for", killed_at);
  expect_stopped(*t.scheduler, t.job.log_of("scheduler", 0), "sent nothing for", killed_at);
  EXPECT_NE(read(t.job.log_of("worker", 0)).find("worker "), std::string::npos);
}

TEST(TrainingFaults, AKilledServerStopsTheJobNamingIt) {
  TrainingJob t;
  t.server->kill_now();
  const auto killed_at = Clock::now();
  t.server->wait(5);
  for (int w = 0; w < 2; ++w) expect_stopped(*t.workers[w], t.job.log_of("worker", w), "server 0", killed_at);
  expect_stopped(*t.scheduler, t.job.log_of("scheduler", 0), "server 0", killed_at);
}

}  // namespace
}  // namespace braid::test
