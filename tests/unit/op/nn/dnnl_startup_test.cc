// oneDNN's global state is created during static initialisation (dnnl_util.cc), by running one
// small primitive on the main thread. It must run on one OpenMP thread: a parallel region there
// would give the main thread OpenMP workers of its own, and with more OpenMP threads than cores
// libgomp stops spinning between parallel regions, so that every region of the engine's kernels
// waits for its threads to be woken. Nothing else starts a thread before main either.
#include <gtest/gtest.h>

#include <omp.h>
#include <cstdlib>
#include <filesystem>

namespace braid::op {
namespace {

int threads_of_this_process() {
  int n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

void exit_with_thread_count() { std::exit(threads_of_this_process()); }

TEST(DnnlStartup, StaticInitialisationStartsNoThreads) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: only static initialisation ran
  // OpenBLAS, which started a worker per core when it was linked, is opened only by the first
  // float64 product (src/op/common/openblas.h).
  EXPECT_EXIT(exit_with_thread_count(), ::testing::ExitedWithCode(1), "");
}

TEST(DnnlStartup, StaticInitialisationKeepsTheNumberOfOpenMPThreads) {
  const char* env = std::getenv("OMP_NUM_THREADS");
  EXPECT_EQ(omp_get_max_threads(), env ? std::atoi(env) : omp_get_num_procs());
}

}  // namespace
}  // namespace braid::op
