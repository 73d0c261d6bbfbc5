// braid launch: MXNet's tools/launch.py. Starts a parameter-server job's scheduler, servers
// (`braid server`) and workers (the COMMAND) with the DMLC_* environment, on this machine
// (local), on the hosts of a hostfile over ssh, through mpirun, or through srun inside a Slurm
// allocation; forwards their output
// prefixed with role and rank (supervisor.h), and stops them all at the first failure or Ctrl-C.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/kvstore/ps.h"
#include "commands.h"
#include "supervisor.h"

extern char** environ;

namespace braid::cli {
namespace {

struct Host {
  std::string name;
  std::string port;  // ssh port; empty: the default
};

std::vector<Host> read_hostfile(const std::string& path) {
  std::istringstream in(io::read_file(path, io::kMaxTextFileBytes));
  std::vector<Host> hosts;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    const auto begin = line.find_first_not_of(" \t\r"), end = line.find_last_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    line = line.substr(begin, end - begin + 1);
    const auto colon = line.find(':');
    hosts.push_back({line.substr(0, colon), colon == std::string::npos ? "" : line.substr(colon + 1)});
  }
  BRAID_CHECK(!hosts.empty(), "braid launch: the hostfile '", path,
              "' names no host (one per line, HOST or HOST:SSH_PORT)");
  return hosts;
}

// A word for a POSIX shell, quoted when needed.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join_quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::string own_binary() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  BRAID_CHECK(n > 0, "braid launch: cannot find its own executable (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

int free_port(const std::string& host) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  socklen_t len = sizeof a;
  const bool ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (fd >= 0) close(fd);
  BRAID_CHECK(ok, "braid launch: cannot find a free port on ", host, " for the scheduler; set DMLC_PS_ROOT_PORT");
  return ntohs(a.sin_port);
}

constexpr const char* kSecretVariable = "BRAID_PS_SECRET";

std::string random_secret() {
  std::random_device rd;
  std::string s;
  for (int i = 0; i < 32; ++i) s += "0123456789abcdef"[rd() % 16];
  return s;
}

// The user's secret (BRAID_PS_SECRET or BRAID_PS_SECRET_FILE), else a fresh one for this job.
std::string job_secret_or_random() {
  const std::string secret = kv::job_secret();
  return secret.empty() ? random_secret() : secret;
}

// Runs `argv` to its end; throws if it fails.
void run_to_end(const std::vector<std::string>& argv) {
  std::vector<std::string> args = argv;
  std::vector<char*> p;
  for (auto& a : args) p.push_back(a.data());
  p.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, p[0], nullptr, nullptr, p.data(), environ);
  BRAID_CHECK(rc == 0, "braid launch: cannot run ", argv[0], ": ", std::strerror(rc));
  int st = 0;
  waitpid(pid, &st, 0);
  BRAID_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "braid launch: '", join_quoted(argv), "' failed");
}

// Where and how the job runs.
struct Job {
  const LaunchOptions& o;
  int servers;
  std::string root_uri, braid, workdir;
  int root_port = 0;
  std::map<std::string, std::string> common;  // every process's environment
  std::vector<Host> hosts;

  explicit Job(const LaunchOptions& opts) : o(opts), servers(opts.servers < 0 ? opts.workers : opts.servers) {
    BRAID_CHECK(o.workers > 0 && (servers > 0 || o.launcher == "mpi" || o.launcher == "slurm"),
                "braid launch: give at least one worker (-n) and one server (-s); -s 0 (an allreduce job without "
                "parameter servers) needs --launcher mpi or slurm");
    BRAID_CHECK(!o.command.empty(),
                "braid launch: give the workers' command, e.g. braid launch -n 2 -s 1 -- braid "
                "train --kvstore dist_sync");
    BRAID_CHECK(o.launcher == "local" || o.launcher == "ssh" || o.launcher == "mpi" || o.launcher == "slurm",
                "braid launch: unknown launcher '", o.launcher, "'; valid: local, ssh, mpi, slurm");
    BRAID_CHECK(o.launcher != "slurm" || env_str({"SLURM_JOB_ID"}),
                "braid launch: --launcher slurm runs inside a Slurm allocation, where srun can start the job's "
                "processes (SLURM_JOB_ID is not set): run it in an sbatch script or under salloc, e.g. salloc -N 2 "
                "braid launch --launcher slurm -n 2 -s 2 -- COMMAND");
    BRAID_CHECK(o.launcher != "slurm" || o.hostfile.empty(),
                "braid launch: --launcher slurm uses the allocation's nodes; -H is for ssh and mpi");
    BRAID_CHECK(o.launcher != "ssh" || !o.hostfile.empty(), "braid launch: --launcher ssh needs -H HOSTFILE");
    BRAID_CHECK(o.sync_dst_dir.empty() || o.launcher == "ssh",
                "braid launch: --sync-dst-dir copies the working "
                "folder to the hosts of --launcher ssh");
    if (!o.hostfile.empty()) hosts = read_hostfile(o.hostfile);
    const bool one_machine = o.launcher == "local" || (o.launcher == "mpi" && hosts.empty()) ||
                             (o.launcher == "slurm" && env_int({"SLURM_JOB_NUM_NODES", "SLURM_NNODES"}, 1) == 1);
    root_uri = env_str({"DMLC_PS_ROOT_URI"}).value_or(one_machine ? "127.0.0.1" : kv::host_address());
    const auto port = env_str({"DMLC_PS_ROOT_PORT"});
    root_port = port ? std::stoi(*port) : free_port(root_uri);
    braid = own_binary();
    char cwd[4096];
    workdir = !o.sync_dst_dir.empty() ? o.sync_dst_dir : getcwd(cwd, sizeof cwd) ? cwd : ".";
    common = {{"DMLC_PS_ROOT_URI", root_uri},
              {"DMLC_PS_ROOT_PORT", std::to_string(root_port)},
              {"DMLC_NUM_SERVER", std::to_string(servers)},
              {"DMLC_NUM_WORKER", std::to_string(o.workers)},
              {kSecretVariable, job_secret_or_random()}};
    if (one_machine) common["DMLC_NODE_HOST"] = "127.0.0.1";  // nothing listens beyond the loopback
    for (const auto& kv : o.env) {
      const auto sep = kv.find_first_of("=:");
      BRAID_CHECK(sep != std::string::npos && sep > 0, "braid launch: --env '", kv, "' is not NAME=VALUE");
      common[kv.substr(0, sep)] = kv.substr(sep + 1);
    }
    // On one machine the workers share its cores: OpenMP teams of all the cores each would spin
    // against one another (2 workers on 2 cores trained 4x slower than with a core each).
    const bool threads_chosen = env_str({"OMP_NUM_THREADS"}) || common.count("OMP_NUM_THREADS");
    if (one_machine && !threads_chosen)
      worker_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / o.workers);
    // Slurm's cores per task (sbatch --cpus-per-task), as OpenMP jobs under Slurm use them.
    if (o.launcher == "slurm" && !threads_chosen && env_int({"SLURM_CPUS_PER_TASK"}, 0) > 0)
      worker_threads = static_cast<int>(env_int({"SLURM_CPUS_PER_TASK"}, 1));
  }

  int worker_threads = 0;  // OMP_NUM_THREADS set for each worker (servers: 1); 0: left alone

  // `rank` >= 0: the rank the node asks the scheduler for, so that "worker 1" is rank 1.
  std::map<std::string, std::string> env(const char* role, int rank = -1) const {
    auto e = common;
    e["DMLC_ROLE"] = role;
    if (rank >= 0) e["BRAID_PS_RANK"] = std::to_string(rank);
    if (worker_threads > 0) e["OMP_NUM_THREADS"] = std::string(role) == "worker" ? std::to_string(worker_threads) : "1";
    return e;
  }

  // `argv` run on `host` through ssh, in the working folder, with the job's environment
  // and the variables of this process that configure Braid and MXNet. The secret travels on
  // ssh's standard input, never on a command line (which every user of both hosts can read).
  ProcessSpec over_ssh(const std::string& name, const Host& host, const char* role, int rank,
                       const std::vector<std::string>& argv) const {
    std::vector<std::string> remote = {"env"};
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      for (const char* prefix : {"DMLC_", "PS_", "BRAID_", "MXNET_", "OMP_"})
        if (kv.rfind(prefix, 0) == 0 && !common.count(kv.substr(0, kv.find('=')))) remote.push_back(kv);
    }
    for (const auto& [k, v] : env(role, rank))
      if (k != kSecretVariable) remote.push_back(k + "=" + v);
    remote.insert(remote.end(), argv.begin(), argv.end());
    ProcessSpec p{name, ssh_prefix(host), {}, std::string(role) != "scheduler"};
    p.argv.push_back(host.name);
    p.argv.push_back("cd " + shell_quote(workdir) + " && IFS= read -r " + kSecretVariable + " && export " +
                     kSecretVariable + " && exec " + join_quoted(remote));
    p.input = common.at(kSecretVariable) + "\n";
    return p;
  }

  std::vector<std::string> ssh_prefix(const Host& host) const {
    std::vector<std::string> argv = {env_str({"BRAID_SSH"}).value_or("ssh"), "-o", "StrictHostKeyChecking=accept-new",
                                     "-o", "BatchMode=yes"};
    if (!host.port.empty()) argv.insert(argv.end(), {"-p", host.port});
    return argv;
  }

  std::vector<std::string> mpirun(int np, const char* role, const std::vector<std::string>& argv) const {
    // --bind-to none: a rank's OpenMP threads may use every core (OpenMPI binds 1-2 ranks to one core each)
    std::vector<std::string> m = {"mpirun", "--oversubscribe", "--bind-to", "none", "--tag-output",
                                  "-np",    std::to_string(np)};
    if (geteuid() == 0) m.push_back("--allow-run-as-root");
    if (!o.hostfile.empty()) m.insert(m.end(), {"--hostfile", o.hostfile});
    // The secret by name only: mpirun passes on its own environment's value (mpi_process).
    for (const auto& [k, v] : env(role)) m.insert(m.end(), {"-x", k == kSecretVariable ? k : k + "=" + v});
    m.insert(m.end(), argv.begin(), argv.end());
    return m;
  }

  // mpirun, with the job's secret in its environment only.
  ProcessSpec mpi_process(const std::string& name, int np, const char* role, const std::vector<std::string>& argv,
                          bool essential) const {
    return {name, mpirun(np, role, argv), {{kSecretVariable, common.at(kSecretVariable)}}, essential};
  }

  // srun: one job step of `ntasks` tasks over the allocation's nodes, beside the other steps
  // (--overlap: the steps share the allocation; --overcommit: more tasks than its CPUs); the
  // environment, secret included, passes through srun's (--export=ALL), never its command line.
  // Each task asks for its rank within the step (SLURM_PROCID). `mpi`: the tasks are MPI ranks.
  ProcessSpec srun_process(const std::string& name, int ntasks, const char* role, const std::vector<std::string>& argv,
                           bool essential, bool mpi = false) const {
    std::vector<std::string> s = {env_str({"BRAID_SRUN"}).value_or("srun"),
                                  "--ntasks=" + std::to_string(ntasks),
                                  "--overlap",
                                  "--overcommit",
                                  "--kill-on-bad-exit=1",
                                  "--export=ALL",
                                  "--label"};
    if (mpi) s.push_back("--mpi=pmix");
    s.insert(s.end(), argv.begin(), argv.end());
    return {name, s, env(role), essential};
  }

  // What a server runs: a Python command itself, as MXNet's launcher runs every role's (importing
  // mxnet runs the server, which can then rebuild the optimizers the script's modules define);
  // `braid server` for any other program (a C++ program's optimizers are all Braid's own).
  std::vector<std::string> server_command() const {
    const std::string& program = o.command.front();
    const std::string name = program.substr(program.rfind('/') + 1);
    const bool python = name.rfind("python", 0) == 0 || (name.size() > 3 && name.ends_with(".py"));
    return python ? o.command : std::vector<std::string>{braid, "server"};
  }

  std::vector<ProcessSpec> plan() const {
    std::vector<ProcessSpec> out;
    if (servers == 0 && o.launcher == "slurm")  // MPI ranks through srun and PMIx (kvstore horovod)
      return {srun_process("workers", o.workers, "worker", o.command, true, true)};
    if (servers == 0)  // an MPI job without parameter servers (kvstore horovod): the workers only
      return {mpi_process("workers", o.workers, "worker", o.command, true)};
    // The scheduler runs here in every launcher (as in MXNet): the others reach it at root_uri.
    out.push_back({"scheduler", {braid, "server"}, env("scheduler"), false});
    if (o.launcher == "local") {
      for (int s = 0; s < servers; ++s) out.push_back({cat("server ", s), server_command(), env("server", s), false});
      for (int w = 0; w < o.workers; ++w) out.push_back({cat("worker ", w), o.command, env("worker", w), true});
    } else if (o.launcher == "ssh") {
      // Servers and workers go round the hosts, as launch.py's ssh launcher.
      for (int s = 0; s < servers; ++s)
        out.push_back(
            over_ssh(cat("server ", s), hosts[static_cast<size_t>(s) % hosts.size()], "server", s, server_command()));
      for (int w = 0; w < o.workers; ++w)
        out.push_back(
            over_ssh(cat("worker ", w), hosts[static_cast<size_t>(w) % hosts.size()], "worker", w, o.command));
    } else if (o.launcher == "slurm") {
      out.push_back(srun_process("servers", servers, "server", server_command(), false));
      out.push_back(srun_process("workers", o.workers, "worker", o.command, true));
    } else {
      out.push_back(mpi_process("servers", servers, "server", server_command(), false));
      out.push_back(mpi_process("workers", o.workers, "worker", o.command, true));
    }
    return out;
  }

  // --sync-dst-dir: the working folder's contents copied to every host first.
  void sync_folders() const {
    std::set<std::string> done;
    char cwd[4096];
    const std::string here = getcwd(cwd, sizeof cwd) ? cwd : ".";
    for (const Host& h : hosts) {
      if (!done.insert(h.name).second) continue;
      std::cout << "braid launch: copying " << here << " to " << h.name << ":" << o.sync_dst_dir << std::endl;
      run_to_end({env_str({"BRAID_RSYNC"}).value_or("rsync"), "-az", "-e", join_quoted(ssh_prefix(h)), here + "/",
                  h.name + ":" + o.sync_dst_dir + "/"});
    }
  }
};

}  // namespace

CLI::App* add_launch_command(CLI::App& app, LaunchOptions& o) {
  auto* l = app.add_subcommand("launch",
                               "start a distributed job (MXNet's tools/launch.py): a scheduler, servers and "
                               "workers running COMMAND with the DMLC_* environment");
  l->add_option("-n,--num-workers", o.workers, "number of workers")->required()->check(kPositive);
  l->add_option("-s,--num-servers", o.servers,
                "number of servers (default: as many as workers; 0 with --launcher mpi or slurm: "
                "no parameter servers, for kvstore horovod)")
      ->check(kNonNegative);
  l->add_option("--launcher", o.launcher,
                "local, ssh, mpi, or slurm (inside an sbatch or salloc allocation: srun starts servers and workers)")
      ->capture_default_str();
  l->add_option("-H,--hostfile", o.hostfile, "hosts for ssh and mpi, one per line (HOST or HOST:SSH_PORT for ssh)");
  l->add_option("--env", o.env, "NAME=VALUE (or NAME:VALUE) for every process; repeatable")->allow_extra_args(false);
  l->add_option("--sync-dst-dir", o.sync_dst_dir, "ssh: copy the working folder there on every host first (rsync)");
  l->add_flag("--dry-run", o.dry_run, "print the processes that would start, and start none");
  l->prefix_command();  // the first word that is not an option starts the workers' COMMAND
  l->footer("COMMAND: the workers' command line, after the options (or after --)");
  return l;
}

int launch(LaunchOptions o, std::vector<std::string> command) {
  o.command = std::move(command);
  Job job(o);
  const std::vector<ProcessSpec> plan = job.plan();
  std::cout << "braid launch: " << job.servers << " server(s) and " << o.workers << " worker(s), scheduler at "
            << job.root_uri << ":" << job.root_port << " (" << o.launcher << ")" << std::endl;
  if (job.worker_threads > 0)
    std::cout << "braid launch: OMP_NUM_THREADS=" << job.worker_threads << " for each worker, 1 for the servers ("
              << std::thread::hardware_concurrency() << " cores here; set OMP_NUM_THREADS to choose)" << std::endl;
  if (o.dry_run) {
    const std::string& secret = job.common.at(kSecretVariable);
    for (const ProcessSpec& p : plan) {
      std::string line = p.name + ":";
      for (const auto& [k, v] : p.env) line += " " + k + "=" + v;
      line += " " + join_quoted(p.argv);
      for (size_t at; (at = line.find(secret)) != std::string::npos;) line.replace(at, secret.size(), "<secret>");
      std::cout << line << "\n";
    }
    return 0;
  }
  if (!o.sync_dst_dir.empty()) job.sync_folders();
  Supervisor supervisor;
  for (const ProcessSpec& p : plan) supervisor.start(p);
  const int status = supervisor.run();
  std::cout << "braid launch: " << (status == 0 ? "the job finished" : cat("the job failed (status ", status, ")"))
            << std::endl;
  return status;
}

}  // namespace braid::cli
