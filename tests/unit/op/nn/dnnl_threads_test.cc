// oneDNN fixes the size of a primitive's OpenMP team when the primitive is made, so Braid's
// primitive cache keeps one per thread count. Once a second CPU context runs kernels, each
// context's kernels get half the cores (nd::kernel_threads); a convolution made while cpu(0) had
// both must not run on cpu(1) with a team of two (four threads on two cores, spinning at each
// other's barriers).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"

namespace braid {
namespace {

int threads_of_this_process() {
  int n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

NDArray convolution(Context ctx) {
  NDArray x = nd::ones(Shape({8, 3, 16, 16}), ctx), w = nd::ones(Shape({4, 3, 3, 3}), ctx),
          b = nd::zeros(Shape({4}), ctx);
  NDArray y = nd::invoke1("Convolution", {x, w, b}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}});
  y.wait_to_read();
  return y;
}

// Exits with the number of threads the convolution on cpu(1) added: its context's worker, and
// an OpenMP team member if it ran on two threads.
void exit_with_threads_added_by_a_second_context() {
  convolution(cpu(0));                           // made with both threads: cpu(0) is the only context yet
  nd::zeros(Shape({1}), cpu(1)).wait_to_read();  // cpu(1) counts from now on: one thread each
  const int before = threads_of_this_process();
  convolution(cpu(1));
  std::exit(threads_of_this_process() - before);
}

TEST(DnnlThreads, APrimitiveRunsWithTheTeamItWasMadeFor) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process with OMP_NUM_THREADS=2
  const char* env = std::getenv("OMP_NUM_THREADS");
  const std::string saved = env ? env : "";
  setenv("OMP_NUM_THREADS", "2", 1);
  EXPECT_EXIT(exit_with_threads_added_by_a_second_context(), ::testing::ExitedWithCode(0), "");
  if (env)
    setenv("OMP_NUM_THREADS", saved.c_str(), 1);
  else
    unsetenv("OMP_NUM_THREADS");
}

}  // namespace
}  // namespace braid
