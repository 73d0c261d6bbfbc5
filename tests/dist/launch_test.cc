// braid launch with real processes: a job's output forwarded with role prefixes, a failing or
// killed worker stopping every process with a non-zero status, the ssh launcher (through a
// stand-in ssh that runs the remote command here), and braid train's checkpoints resuming a
// killed distributed job to the same weights as a job that was never stopped.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "braid/io/params.h"
#include "dist/job.h"

namespace braid::test {
namespace {

using Clock = std::chrono::steady_clock;
const std::string kBraid = BRAID_BINARY_DIR "/bin/braid";
const std::string kKvWorker = BRAID_BINARY_DIR "/tests/braid_dist_kv_worker";

// A fresh folder `name` of this test's.
std::string temp_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(::testing::TempDir()) / (std::string("braid_launch_") + info->name()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The processes whose environment holds `entry` ("DMLC_PS_ROOT_PORT=1234"): those of one job.
std::vector<pid_t> processes_with(const std::string& entry) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  while (dirent* d = proc ? readdir(proc) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(d->d_name));
    if (pid <= 0 || pid == getpid()) continue;
    std::string env = read("/proc/" + std::string(d->d_name) + "/environ");
    for (size_t at = 0; at < env.size();) {
      const size_t end = env.find('\0', at);
      if (env.compare(at, (end == std::string::npos ? env.size() : end) - at, entry) == 0) out.push_back(pid);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  if (proc) closedir(proc);
  return out;
}

struct Launch {
  explicit Launch(const std::string& name = "job") : dir(temp_dir(name)) {}
  std::string dir;
  int port = free_port();
  std::unique_ptr<Process> launcher;

  void start(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {kBraid, "launch"};
    argv.insert(argv.end(), args.begin(), args.end());
    env["DMLC_PS_ROOT_PORT"] = std::to_string(port);
    launcher = std::make_unique<Process>(argv, env, dir + "/launch.log");
  }
  std::string output() const { return read(dir + "/launch.log"); }
  std::vector<pid_t> job_processes() const { return processes_with("DMLC_PS_ROOT_PORT=" + std::to_string(port)); }
  // Waits until `text` shows in the output; false after `seconds`.
  bool wait_for_output(const std::string& text, double seconds) const {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < until) {
      if (output().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST(Launch, RunsTheJobAndForwardsEachProcesssOutputWithItsRole) {
  Launch l;
  l.start({"-n", "2", "-s", "2", "--", kKvWorker, "dist_sync", "sync_optimizer", l.dir});
  ASSERT_EQ(l.launcher->wait(90), std::optional<int>(0)) << l.output();
  const std::string out = l.output();
  // The launcher's worker i asks for rank i (BRAID_PS_RANK).
  for (const char* line :
       {"[worker 0] worker 0 of 2: ok", "[worker 1] worker 1 of 2: ok", "[scheduler] every worker finished",
        "[server 0] load: ", "[server 1] load: ", "braid launch: the job finished"})
    EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;
  EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
  EXPECT_TRUE(l.job_processes().empty());
}

// mpirun's command line (which any local user can read) names the secret; its value reaches mpirun
// through the environment.
TEST(Launch, TheMpiLauncherKeepsTheSecretOffTheCommandLine) {
  Launch l;
  l.start({"--dry-run", "-n", "2", "-s", "1", "--launcher", "mpi", "--", "true"},
          {{"BRAID_PS_SECRET", "not-on-the-command-line"}});
  ASSERT_EQ(l.launcher->wait(30), std::optional<int>(0)) << l.output();
  const std::string out = l.output();
  for (const char* role : {"servers: BRAID_PS_SECRET=<secret> mpirun ", "workers: BRAID_PS_SECRET=<secret> mpirun "})
    EXPECT_NE(out.find(role), std::string::npos) << role << " in\n" << out;
  EXPECT_NE(out.find(" -x BRAID_PS_SECRET "), std::string::npos) << out;
  EXPECT_EQ(out.find("-x BRAID_PS_SECRET="), std::string::npos) << out;
}

TEST(Launch, TheMpiLauncherStartsServersAndWorkersThroughMpirun) {
  Launch l;
  l.start({"-n", "2", "-s", "2", "--launcher", "mpi", "--", kKvWorker, "dist_sync", "sync", l.dir});
  ASSERT_EQ(l.launcher->wait(90), std::optional<int>(0)) << l.output();
  const std::string out = l.output();
  // mpirun's --tag-output: [job,rank] on each line of the servers' and workers' output.
  // Under mpirun a node asks for its MPI rank.
  for (const char* line : {"[workers] [1,0]<stdout>:worker 0 of 2: ok", "[workers] [1,1]<stdout>:worker 1 of 2: ok",
                           "<stderr>:[server 0] load:", "<stderr>:[server 1] load:"})
    EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;
  EXPECT_TRUE(l.job_processes().empty());
}

TEST(Launch, AFailingWorkerStopsEveryProcessWithItsStatus) {
  Launch l;
  // The first worker to start fails; the other would run for a minute.
  l.start({"-n", "2", "-s", "1", "--", "sh", "-c",
           "if mkdir '" + l.dir + "/first' 2>/dev/null; then sleep 0.5; exit 3; else sleep 60; fi"});
  const auto started = Clock::now();
  EXPECT_EQ(l.launcher->wait(30), std::optional<int>(3)) << l.output();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - started).count(), 15);
  EXPECT_NE(l.output().find("exited with status 3; stopping the job"), std::string::npos) << l.output();
  EXPECT_TRUE(l.job_processes().empty()) << "processes of the job still run";
}

TEST(Launch, CtrlCStopsEveryProcess) {
  Launch l;
  l.start({"-n", "2", "-s", "1", "--", "sleep", "60"});
  ASSERT_TRUE(l.wait_for_output("[scheduler] waiting for", 20)) << l.output();
  kill(l.launcher->pid(), SIGINT);
  EXPECT_EQ(l.launcher->wait(20), std::optional<int>(130)) << l.output();
  EXPECT_TRUE(l.job_processes().empty()) << "processes of the job still run";
}

TEST(Launch, TheSshLauncherRunsServersAndWorkersOnTheHostsInTheSyncedFolder) {
  Launch l;
  // Stand-ins for ssh and rsync that note their arguments and act here: ssh runs its last
  // argument (the remote command) with sh, rsync copies SRC/ into the DST/ after "host:".
  const std::string ssh = l.dir + "/ssh", rsync = l.dir + "/rsync", dst = l.dir + "/remote";
  std::ofstream(ssh) << "#!/bin/sh\necho \"$@\" >> '" << l.dir
                     << "/ssh.calls'\nfor last; do :; done\nexec sh -c \"$last\"\n";
  std::ofstream(rsync)
      << "#!/bin/sh\nfor a; do src=$dst; dst=$a; done\nmkdir -p \"${dst#*:}\" && cp -r \"$src\". \"${dst#*:}\"\n";
  std::filesystem::permissions(ssh, std::filesystem::perms::owner_all);
  std::filesystem::permissions(rsync, std::filesystem::perms::owner_all);
  std::ofstream(l.dir + "/hosts") << "# two machines\nnode-a\nnode-b:2222\n";
  std::filesystem::create_directories(l.dir + "/project");
  std::ofstream(l.dir + "/project/marker") << "synced";
  // The workers check that they run in the synced copy of the launcher's folder.
  const std::string worker =
      "test -f marker && pwd | grep -q /remote && exec " + kKvWorker + " dist_sync sync " + l.dir;
  auto argv =
      std::vector<std::string>{kBraid,           "launch",         "-n", "2",  "-s", "2",  "--launcher", "ssh", "-H",
                               l.dir + "/hosts", "--sync-dst-dir", dst,  "--", "sh", "-c", worker};
  std::vector<std::string> in_project = {"/bin/sh", "-c", "cd '" + l.dir + "/project' && exec \"$0\" \"$@\""};
  in_project.insert(in_project.end(), argv.begin(), argv.end());
  l.launcher =
      std::make_unique<Process>(in_project,
                                std::map<std::string, std::string>{{"BRAID_SSH", ssh},
                                                                   {"BRAID_RSYNC", rsync},
                                                                   {"DMLC_INTERFACE", "lo"},
                                                                   {"DMLC_PS_ROOT_PORT", std::to_string(l.port)}},
                                l.dir + "/launch.log");
  ASSERT_EQ(l.launcher->wait(90), std::optional<int>(0)) << l.output();
  EXPECT_TRUE(std::filesystem::exists(dst + "/marker"));
  const std::string calls = read(l.dir + "/ssh.calls");
  // Round robin: server 0 and worker 0 on node-a, server 1 and worker 1 on node-b (port 2222).
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 4) << calls;
  EXPECT_NE(calls.find("-p 2222 node-b"), std::string::npos) << calls;
  EXPECT_NE(calls.find("node-a cd "), std::string::npos) << calls;
  EXPECT_NE(calls.find("DMLC_ROLE=server"), std::string::npos) << calls;
  // The secret travels on ssh's standard input, not on any command line.
  EXPECT_EQ(calls.find("BRAID_PS_SECRET="), std::string::npos) << calls;
  EXPECT_NE(calls.find("IFS= read -r BRAID_PS_SECRET && export BRAID_PS_SECRET"), std::string::npos) << calls;
}

// braid train under braid launch, 2 workers with dist_sync, 3 epochs of 10 batches each.
std::vector<std::string> training(const std::string& dir, const std::vector<std::string>& more) {
  std::vector<std::string> argv = {
      "-n",         "2", "-s",      "1",    "--",           kBraid, "train",        "--kvstore", "dist_sync",
      "--epochs",   "3", "--limit", "1280", "--test-limit", "500",  "--batch-size", "64",        "--checkpoint",
      dir + "/ckpt"};
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

TEST(Launch, AKilledTrainingJobResumesFromItsCheckpointToTheSameWeights) {
  Launch whole("whole");
  whole.start(training(whole.dir, {"--save", whole.dir + "/final"}));
  ASSERT_EQ(whole.launcher->wait(120), std::optional<int>(0)) << whole.output();

  Launch killed("killed");
  killed.start(training(killed.dir, {"--checkpoint-every", "4", "--save", killed.dir + "/final"}));
  // Kill a worker once a checkpoint of the second epoch is committed: the launcher stops the job.
  const auto until = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < until && read(killed.dir + "/ckpt.json").find("\"epoch\":2") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string index = read(killed.dir + "/ckpt.json");
  ASSERT_NE(index.find("\"epoch\":2"), std::string::npos) << killed.output();
  const std::vector<pid_t> job = killed.job_processes();
  for (pid_t pid : processes_with("DMLC_ROLE=worker"))
    if (std::count(job.begin(), job.end(), pid)) {
      kill(pid, SIGKILL);
      break;
    }
  EXPECT_NE(killed.launcher->wait(30), std::optional<int>(0)) << killed.output();
  EXPECT_FALSE(std::filesystem::exists(killed.dir + "/final.params"));

  Launch resumed("resumed");
  resumed.start(training(killed.dir, {"--checkpoint-every", "4", "--resume", "--save", resumed.dir + "/final"}));
  ASSERT_EQ(resumed.launcher->wait(120), std::optional<int>(0)) << resumed.output();
  EXPECT_NE(resumed.output().find("resuming from " + killed.dir + "/ckpt.json: epoch "), std::string::npos)
      << resumed.output();
  // Weights, momentum, update counts and the data order all came back: the same final weights.
  io::NamedArrays a = io::load(whole.dir + "/final.params"), b = io::load(resumed.dir + "/final.params");
  ASSERT_EQ(a.names, b.names);
  for (size_t i = 0; i < a.names.size(); ++i)
    EXPECT_EQ(a.arrays[i].to_vector<float>(), b.arrays[i].to_vector<float>()) << a.names[i];
}

// Each worker's --profile trace holds its steps; braid profile steps breaks them down, each step
// one pushpull per parameter carrying the parameters' bytes both ways.
TEST(Launch, EachWorkerProfilesItsStepsAndBraidProfileBreaksThemDown) {
  Launch job("profile");
  const std::string trace = job.dir + "/trace.json";
  job.start({"-n", "2", "-s", "1", "--", kBraid, "train", "--kvstore", "dist_sync", "--epochs", "1", "--limit", "1280",
             "--test-limit", "200", "--batch-size", "64", "--profile", trace});
  ASSERT_EQ(job.launcher->wait(120), std::optional<int>(0)) << job.output();
  const std::string out = job.output();
  // The server's summary: "load: 8 keys, B bytes stored".
  const size_t stored = out.find(" bytes stored");
  ASSERT_NE(stored, std::string::npos) << out;
  const double value_bytes = std::stod(out.substr(out.rfind(' ', stored - 1) + 1));
  Process steps({kBraid, "profile", "steps", trace, trace + ".worker1"}, {}, job.dir + "/steps.txt");
  ASSERT_EQ(steps.wait(60), std::optional<int>(0)) << read(job.dir + "/steps.txt");
  const std::string table = read(job.dir + "/steps.txt");
  for (const std::string& file : {trace, trace + ".worker1"}) {
    const size_t at = table.find(file + ": 10 steps, ");  // 640 images per worker
    ASSERT_NE(at, std::string::npos) << table;
    const std::string part = table.substr(at, table.find("\n/", at) - at);
    char kb[32];
    std::snprintf(kb, sizeof kb, "%.1f KB per step", 2 * value_bytes / 1024);
    EXPECT_NE(part.find(std::string("kvstore pushpull: 8.0 per step, ") + kb), std::string::npos) << part;
    double shares = 0;
    for (size_t pct = part.find('%'); pct != std::string::npos; pct = part.find('%', pct + 1))
      shares += std::stod(part.substr(part.rfind(' ', pct) + 1, pct));
    EXPECT_NEAR(shares, 100.0, 0.2) << part;
  }
}

}  // namespace
}  // namespace braid::test
