// Compute threads on a busy machine (braid/device/cpu_share.h): with every core kept busy by
// other processes, braid train restarts with passive OpenMP waits and says so once; a user's
// OMP_NUM_THREADS is left alone, silently. (A Python program's choice: python/tests/test_cpu_share.py.)
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/cli_runner.h"

namespace braid::test {
namespace {

// One spinning child process per core this test may use, killed by PID when the scope ends.
class BusyCores {
 public:
  BusyCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    for (int i = 0; i < CPU_COUNT(&set); ++i) {
      const pid_t pid = fork();
      if (pid == 0)
        for (volatile unsigned long spin = 0;; spin = spin + 1) {
        }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~BusyCores() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;

  // Waits (10 s at most) until every child has been on a CPU: its user time has ticked.
  bool all_running() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (pid_t pid : pids_) {
      while (user_ticks(pid) == 0) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
      }
    }
    return !pids_.empty();
  }

 private:
  static long user_ticks(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int i = 0; i < 12 && fields >> field;) ++i;  // state ... utime is the 12th after the name
    return std::atol(field.c_str());
  }

  std::vector<pid_t> pids_;
};

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const char* kNoChoice = "unset OMP_NUM_THREADS OMP_WAIT_POLICY BRAID_CPU_SHARE; ";
const char* kTinyTraining = "train --model mlp --epochs 1 --limit 640 --test-limit 200 --batch-size 64";

TEST(BusyMachine, TrainWaitsPassivelyAndSaysSoOnce) {
  BusyCores busy;
  ASSERT_TRUE(busy.all_running());
  const CliResult r = braid_cli(kTinyTraining, kNoChoice);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(r.out + r.err, "braid: "), 1) << r.out << r.err;
  EXPECT_NE(r.out.find("busy with other processes: OpenMP waits passively"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test accuracy"), std::string::npos) << r.out;
}

TEST(BusyMachine, ThreadsTheUserSetAreKept) {
  BusyCores busy;
  ASSERT_TRUE(busy.all_running());
  const CliResult r = braid_cli(kTinyTraining, std::string(kNoChoice) + "export OMP_NUM_THREADS=1; ");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("braid: "), std::string::npos) << r.out;  // the user chose: nothing to say
  EXPECT_EQ(r.err.find("braid: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("test accuracy"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace braid::test
