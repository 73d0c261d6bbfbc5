// CPU contexts share the cores: a kernel runs with the process's OpenMP threads divided by the
// CPU contexts used so far (in a fresh process, so that no other test has used a context yet), with
// the measurement of other processes' load turned off.
#include <gtest/gtest.h>

#include <omp.h>
#include <cstdlib>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"

namespace braid::nd {
namespace {

// An operator whose output is the OpenMP thread count its kernel ran with.
void register_thread_probe() {
  op::OpDef d;
  d.name = "_test_omp_threads";
  d.list_arguments = [](const std::any&) { return std::vector<std::string>{"data"}; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    out[0] = in[0];
    return true;
  };
  d.cpu.forward = [](const op::OpContext&, const std::any&, const op::ForwardArgs& a) {
    a.outputs[0].ptr<float>()[0] = static_cast<float>(omp_get_max_threads());
  };
  op::Registry::get().add(std::move(d));
}

int threads_of_a_kernel_on(Context ctx) {
  return static_cast<int>(invoke1("_test_omp_threads", {zeros(Shape{1}, ctx)}).to_vector<float>()[0]);
}

// Exit code 0 when every expectation holds, else the number of the first that failed.
void share_the_cores() {
  setenv("BRAID_CPU_SHARE", "0", 1);  // OpenMP's threads whatever else the machine runs (cpu_share.h)
  register_thread_probe();
  const char* env = std::getenv("OMP_NUM_THREADS");
  const int total = env ? std::atoi(env) : omp_get_num_procs();
  if (threads_of_a_kernel_on(cpu(0)) != total || kernel_threads(cpu(0)) != total) std::exit(1);
  if (threads_of_a_kernel_on(cpu(1)) != std::max(1, total / 2)) std::exit(2);
  if (threads_of_a_kernel_on(cpu(0)) != std::max(1, total / 2)) std::exit(3);
  threads_of_a_kernel_on(cpu(5));
  if (kernel_threads(cpu(0)) != std::max(1, total / 3)) std::exit(4);
  std::exit(0);
}

TEST(KernelThreads, CpuContextsShareTheCores) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(share_the_cores(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace braid::nd
