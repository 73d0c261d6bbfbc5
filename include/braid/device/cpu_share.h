// How many compute threads this process should run, given what else the machine is doing.
//
// OpenMP's threads wait for each other between parallel regions by spinning (libgomp's default).
// When other processes keep the cores busy, a spinning thread burns the time slice its peer needs
// to finish, and training slows several times over. So, unless the user chose (OMP_NUM_THREADS),
// Braid measures once how busy the process's cores are with other work; when some are, it runs as
// many threads as there are free cores, and when none is free, it makes OpenMP wait passively
// (programs restart themselves with OMP_WAIT_POLICY=PASSIVE, which OpenMP reads only at start,
// see adopt_wait_policy; the Python package sets it before OpenMP loads, see prepare_wait_policy)
// or, where that cannot be done, runs one thread. docs/performance.md, "Busy machines", has the
// measurements.
#pragma once

#include <cstdio>
#include <string>

namespace braid::cpu_share {

struct Share {
  int cores = 1;               ///< CPUs this process may run on (its affinity mask, a cgroup CPU quota)
  double busy = 0;             ///< of those, how many other processes kept busy when measured
  bool measured = false;       ///< false when OMP_NUM_THREADS was set (nothing measured)
  bool passive_waits = false;  ///< OMP_WAIT_POLICY=PASSIVE is in effect
  int threads = 1;             ///< compute threads for this process's kernels (0: OpenMP's own choice)

  /// One line for people: the cores, how busy, and the choice made.
  std::string summary() const;
};

/// The process's share, measured on the first call (some milliseconds of sampling /proc/stat's
/// runnable threads) unless OMP_NUM_THREADS is set.
const Share& current();

/// Prints current().summary() once per process ("braid: ..." on out); later calls print nothing.
/// Kernels announce on stderr when the cores are busy; programs may announce first, anywhere.
void announce(std::FILE* out);

/// Busy cores are those at least half used by other processes.
bool is_busy(const Share& share);

/// For a program that cannot restart (a Python interpreter), before OpenMP starts in it: when
/// neither OMP_NUM_THREADS nor OMP_WAIT_POLICY is set, measures, and when other processes keep
/// every core busy and no OpenMP runtime is loaded in the process yet, sets OMP_WAIT_POLICY=PASSIVE
/// for the one that will load. Returns the cores found busy, or -1 when nothing was measured; give
/// it to use_measurement() in the code that runs the kernels (a copy of this one, elsewhere).
double prepare_wait_policy();

/// Makes current() use a measurement made earlier in this process (prepare_wait_policy).
void use_measurement(double busy);

/// For a program's main(): when neither OMP_NUM_THREADS nor OMP_WAIT_POLICY is set and other
/// processes keep every core busy, runs the program again (execv of /proc/self/exe with argv) with
/// OMP_WAIT_POLICY=PASSIVE and the measurement passed on in BRAID_CPU_BUSY; returns otherwise
/// (and when the restart fails). BRAID_CPU_SHARE=0 turns the measurement off.
void adopt_wait_policy(char** argv);

}  // namespace braid::cpu_share
