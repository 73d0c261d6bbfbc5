// braid launch --launcher slurm against a real single-node Slurm (Debian's slurm-wlm): the test
// writes a slurm.conf for this machine (auth/none, ports and state folder of its own), starts
// slurmctld and slurmd, and runs braid launch under salloc: a parameter-server job (srun starts the
// servers and the workers) and an allreduce job (srun starts MPI ranks through PMIx), each training
// to its end. It cancels what is left of its jobs and stops the daemons it started, by PID.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "dist/job.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
const std::string kBraidProgram = BRAID_BINARY_DIR "/bin/braid";

// The output of a shell command.
std::string shell_output(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

class SingleNodeSlurm {
 public:
  SingleNodeSlurm() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) / (std::string("braid_slurm_") + info->name())).string();
    fs::remove_all(dir_);
    for (const char* sub : {"state", "spool"}) fs::create_directories(dir_ + "/" + sub);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const passwd* user = getpwuid(geteuid());
    conf_ = dir_ + "/slurm.conf";
    std::ofstream(conf_) << "ClusterName=braidtest\n"
                         << "SlurmctldHost=" << host << "(127.0.0.1)\n"
                         << "SlurmctldPort=" << free_port() << "\nSlurmdPort=" << free_port() << "\n"
                         << "AuthType=auth/none\nCredType=cred/none\n"
                         << "SlurmUser=" << user->pw_name << "\nSlurmdUser=" << user->pw_name << "\n"
                         << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
                         << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
                         << "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nMpiDefault=none\n"
                         << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\n"
                         << "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n"
                         << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=" << sysconf(_SC_NPROCESSORS_ONLN)
                         << " RealMemory=1000 State=UNKNOWN\n"
                         << "PartitionName=main Nodes=" << host << " Default=YES MaxTime=INFINITE State=UP\n";
    env_ = {{"SLURM_CONF", conf_}};
    controller_ = std::make_unique<Process>(std::vector<std::string>{"/usr/sbin/slurmctld", "-D", "-i", "-f", conf_},
                                            env_, dir_ + "/slurmctld.log");
    node_ = std::make_unique<Process>(std::vector<std::string>{"/usr/sbin/slurmd", "-D", "-N", host, "-f", conf_}, env_,
                                      dir_ + "/slurmd.log");
  }

  ~SingleNodeSlurm() {
    // The jobs of this private cluster (its own configuration) that a failed test left running.
    shell_output(shell_env() + "scancel --full --signal=KILL --user=" + std::to_string(geteuid()) + " 2>/dev/null");
    wait_until(
        "no job left", [&] { return shell_output(shell_env() + "squeue -h 2>/dev/null").empty(); }, 20);
  }  // then the daemons are killed (~Process)

  // Waits (60 s at most) until the node is idle, ready for jobs.
  bool ready() const {
    return wait_until(
        "the node idle", [&] { return shell_output(shell_env() + "sinfo -h -o %T 2>&1") == "idle\n"; }, 60);
  }

  // `argv` under salloc (an allocation of `tasks` tasks), its output in `log`.
  std::unique_ptr<Process> salloc(int tasks, const std::vector<std::string>& argv, const std::string& log) const {
    std::vector<std::string> all = {"/usr/bin/salloc", "--ntasks=" + std::to_string(tasks), "--time=10"};
    all.insert(all.end(), argv.begin(), argv.end());
    return std::make_unique<Process>(all, env_, dir_ + "/" + log);
  }

  std::string log(const std::string& name) const { return read(dir_ + "/" + name); }
  std::string daemon_logs() const { return log("slurmctld.log") + log("slurmd.log"); }

 private:
  std::string shell_env() const { return "SLURM_CONF='" + conf_ + "' "; }

  template <class Done>
  static bool wait_until(const char*, Done done, double seconds) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (Clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }

  std::string dir_, conf_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Process> controller_, node_;
};

const std::vector<std::string> kTraining = {kBraidProgram, "train",   "--model", "mlp",          "--epochs",
                                            "1",           "--limit", "1280",    "--test-limit", "500"};

std::vector<std::string> slurm_launch_argv(const std::vector<std::string>& options, const std::string& kvstore) {
  std::vector<std::string> argv = {kBraidProgram, "launch", "--launcher", "slurm"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), kTraining.begin(), kTraining.end());
  argv.insert(argv.end(), {"--kvstore", kvstore});
  return argv;
}

// A one-node Slurm started for the test runs braid launch --launcher slurm OPTIONS -- braid train
// --kvstore KVSTORE under salloc; returns its output after checking that both workers trained.
std::string train_two_workers_under_slurm(const std::vector<std::string>& options, const std::string& kvstore) {
  EXPECT_TRUE(fs::exists("/usr/sbin/slurmctld")) << "needs Debian's slurm-wlm (scripts/install-deps.sh installs it)";
  SingleNodeSlurm slurm;
  EXPECT_TRUE(slurm.ready()) << slurm.daemon_logs();
  auto job = slurm.salloc(2, slurm_launch_argv(options, kvstore), "job.log");
  const std::string out = job->wait(240) == std::optional<int>(0) ? slurm.log("job.log") : "";
  EXPECT_FALSE(out.empty()) << slurm.log("job.log") << slurm.daemon_logs();
  for (const char* line : {"[workers] 0: worker 0 of 2: a shard of 640 training images",
                           "[workers] 1: worker 1 of 2: a shard of 640 training images", "[workers] 0: test accuracy",
                           "[workers] 1: test accuracy", " (slurm)\n", "braid launch: the job finished"})
    EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;
  return out;
}

TEST(SlurmLaunch, SrunStartsTheServersAndWorkersOfAParameterServerJob) {
  const std::string out = train_two_workers_under_slurm({"-n", "2", "-s", "2"}, "dist_sync");
  for (const char* server : {"[servers] 0: [server 0] load:", "[servers] 1: [server 1] load:"})
    EXPECT_NE(out.find(server), std::string::npos) << server << " in\n" << out;  // each asked for its SLURM_PROCID
}

TEST(SlurmLaunch, SrunStartsTheMpiRanksOfAnAllreduceJob) {
  train_two_workers_under_slurm({"-n", "2", "-s", "0"}, "horovod");
}

TEST(SlurmLaunch, OutsideAnAllocationItSaysHowToGetOne) {
  const std::string out = shell_output("env -u SLURM_JOB_ID '" + kBraidProgram +
                                       "' launch --launcher slurm -n 2 -s 1 -- true 2>&1; echo \"exit $?\"");
  EXPECT_NE(out.find("--launcher slurm runs inside a Slurm allocation"), std::string::npos) << out;
  EXPECT_NE(out.find("salloc"), std::string::npos) << out;
  EXPECT_NE(out.find("exit 2"), std::string::npos) << out;
}

}  // namespace
}  // namespace braid::test
