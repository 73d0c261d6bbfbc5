#include "braid/device/cpu_share.h"

#include <dirent.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "braid/base/ascii.h"
#include "braid/base/env.h"

namespace braid::cpu_share {
namespace {

constexpr int kSamples = 9;
constexpr long kSampleGapNs = 2'000'000;
constexpr double kBusyCores = 0.5;  // other processes' use of the cores from which Braid adapts
double g_inherited_busy = -1;       // the measurement a restarted program got from its first run

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) cpus.push_back(i);
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

// The cgroup v2 CPU quota (cpu.max "QUOTA PERIOD") in cores; 0 when there is none.
double cgroup_quota() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  std::ifstream max("/sys/fs/cgroup" + path + "/cpu.max");
  std::string quota;
  double period = 0;
  if (!(max >> quota >> period) || quota == "max" || period <= 0) return 0;
  return std::atof(quota.c_str()) / period;
}

// Runnable threads on the machine now (/proc/stat's procs_running).
int procs_running() {
  std::ifstream stat("/proc/stat");
  std::string key;
  long long value = 0;
  while (stat >> key) {
    if (key == "procs_running" && stat >> value) return static_cast<int>(value);
    stat.ignore(1 << 20, '\n');
  }
  return 1;
}

// This process's threads that are running or runnable now.
int own_running() {
  int running = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* task = readdir(tasks)) {
      if (task->d_name[0] == '.') continue;
      std::ifstream stat(std::string("/proc/self/task/") + task->d_name + "/stat");
      std::string line;
      std::getline(stat, line);
      const size_t name_end = line.rfind(')');  // the state follows "(name) "
      if (name_end != std::string::npos && name_end + 2 < line.size() && line[name_end + 2] == 'R') ++running;
    }
    closedir(tasks);
  }
  return std::max(1, running);  // at least the thread asking
}

// Cores kept busy by other processes: the runnable threads of the machine not this process's,
// the median of a few samples (a process that only starts or ends meanwhile does not count; the
// CPUs' own accounting moves in 10 ms ticks: too slow to ask); where this process may use only
// some of the CPUs, its share of them.
double measure_busy(const std::vector<int>& cpus) {
  std::vector<int> others(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    if (i > 0) {
      const timespec gap{0, kSampleGapNs};
      nanosleep(&gap, nullptr);
    }
    others[i] = std::max(0, procs_running() - own_running());
  }
  std::nth_element(others.begin(), others.begin() + kSamples / 2, others.end());
  const double online = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const double ours = static_cast<double>(cpus.size());
  return std::clamp(others[kSamples / 2] * std::min(1.0, ours / online), 0.0, ours);
}

int usable_cores(const std::vector<int>& cpus) {
  int cores = static_cast<int>(cpus.size());
  if (const double quota = cgroup_quota(); quota > 0)
    cores = std::max(1, std::min(cores, static_cast<int>(std::ceil(quota))));
  return cores;
}

// The threads that fit in the cores other processes leave free (0 when less than one is free).
int free_cores(int cores, double busy) { return std::max(0, static_cast<int>(std::lround(cores - busy))); }

// The user chose (OMP_NUM_THREADS, OMP_WAIT_POLICY) or turned the measurement off: nothing to adopt.
bool threads_chosen_elsewhere() {
  return env_str({"OMP_NUM_THREADS"}) || env_str({"OMP_WAIT_POLICY"}) || env_str({"BRAID_CPU_SHARE"}) == "0";
}

bool wait_policy_passive() {
  const auto policy = env_str({"OMP_WAIT_POLICY"});
  if (!policy) return false;
  return to_lower(*policy) == "passive";
}

Share measure() {
  Share s;
  const std::vector<int> cpus = allowed_cpus();
  s.cores = usable_cores(cpus);
  s.passive_waits = wait_policy_passive();
  if (env_str({"OMP_NUM_THREADS"}) || env_str({"BRAID_CPU_SHARE"}) == "0") {
    s.threads = 0;
    return s;
  }
  s.measured = true;
  s.busy = g_inherited_busy >= 0 ? g_inherited_busy : measure_busy(cpus);
  // Measured (bench/busy_machine.py, 2 cores): with a core left free, as many threads as free
  // cores, spinning, train fastest; with none, all the cores waiting passively (OpenMP's spinning
  // threads would take the time slices their peers need), else one thread.
  if (!is_busy(s))
    s.threads = 0;
  else if (free_cores(s.cores, s.busy) > 0)
    s.threads = free_cores(s.cores, s.busy);
  else
    s.threads = s.passive_waits ? s.cores : 1;
  return s;
}

// Whether an OpenMP runtime is already mapped into this process (it has read OMP_WAIT_POLICY).
bool openmp_loaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    for (const char* runtime : {"libgomp", "libomp", "libiomp"})
      if (line.find(runtime) != std::string::npos) return true;
  return false;
}

}  // namespace

bool is_busy(const Share& share) { return share.measured && share.busy >= kBusyCores; }

std::string Share::summary() const {
  std::ostringstream out;
  out.precision(2);
  if (!measured) {
    const auto chosen = env_str({"OMP_NUM_THREADS"});
    out << (chosen ? "OMP_NUM_THREADS=" + *chosen + " compute threads" : "BRAID_CPU_SHARE=0: OpenMP's own threads");
    return out.str();
  }
  out << cores << (cores == 1 ? " core" : " cores");
  if (!is_busy(*this)) {
    out << ", idle: " << cores << " compute thread" << (cores == 1 ? "" : "s");
    return out.str();
  }
  out << ", " << busy << " of them busy with other processes: ";
  if (passive_waits) out << "OpenMP waits passively, ";
  out << threads << " compute thread" << (threads == 1 ? "" : "s")
      << " (set OMP_NUM_THREADS and OMP_WAIT_POLICY to choose)";
  return out.str();
}

const Share& current() {
  static const Share share = measure();
  return share;
}

void announce(std::FILE* out) {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  std::fprintf(out, "braid: %s\n", current().summary().c_str());
  std::fflush(out);
}

double prepare_wait_policy() {
  if (threads_chosen_elsewhere()) return -1;
  const std::vector<int> cpus = allowed_cpus();
  const double busy = measure_busy(cpus);
  if (busy >= kBusyCores && free_cores(usable_cores(cpus), busy) == 0 && !openmp_loaded())
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  return busy;
}

void use_measurement(double busy) {
  if (busy >= 0) g_inherited_busy = busy;
}

void adopt_wait_policy(char** argv) {
  if (const auto inherited = env_str({"BRAID_CPU_BUSY"})) {  // the restarted program
    g_inherited_busy = std::max(0.0, std::atof(inherited->c_str()));
    unsetenv("BRAID_CPU_BUSY");  // not for this program's own children
    return;
  }
  if (threads_chosen_elsewhere()) return;
  const std::vector<int> cpus = allowed_cpus();
  const double busy = measure_busy(cpus);
  g_inherited_busy = busy;
  if (busy < kBusyCores || free_cores(usable_cores(cpus), busy) > 0) return;
  char value[32];
  std::snprintf(value, sizeof(value), "%.3f", busy);
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  setenv("BRAID_CPU_BUSY", value, 1);
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // the restart failed: go on with fewer threads instead
  unsetenv("BRAID_CPU_BUSY");
}

}  // namespace braid::cpu_share
