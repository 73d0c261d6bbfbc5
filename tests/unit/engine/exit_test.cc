// Exiting while operations of the process-wide engine still run: the main thread's exit drains
// the engine before any static object goes, including those that operations create lazily (as
// oneDNN creates its JIT kernels inside the first operation that needs them).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "braid/engine/engine.h"

namespace braid::engine {
namespace {

std::atomic<bool> g_state_alive{false};  // outside the object: stores in a destructor may be elided

struct LazyLibraryState {
  LazyLibraryState() { g_state_alive = true; }
  ~LazyLibraryState() { g_state_alive = false; }
};

// Creates a static on first run, as a library would, then keeps using it for a while.
void operation_using_lazy_state(std::atomic<bool>& started) {
  static LazyLibraryState state;
  (void)state;
  started = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (!g_state_alive) {
    std::fputs("the operation outlived the static state it uses\n", stderr);
    _exit(3);
  }
}

void exit_while_an_operation_runs() {
  static std::atomic<bool> started{false};
  Engine& e = Engine::get();
  VarHandle v = e.new_var();
  e.push([] { operation_using_lazy_state(started); }, cpu(), {}, std::span<const VarHandle>(&v, 1), 0, "lazy");
  while (!started) std::this_thread::yield();
  std::exit(0);
}

TEST(EngineExit, ExitWaitsForRunningOperationsBeforeDestroyingStatics) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process, with the engine's threads
  EXPECT_EXIT(exit_while_an_operation_runs(), ::testing::ExitedWithCode(0), "");
}

std::atomic<bool> g_exiting{false};

// What an array's storage does when its last reference goes: deletes its variable on the engine.
struct ArrayStorage {
  VarHandle var = Engine::get().new_var();
  ~ArrayStorage() {
    Engine::get().delete_var([] {}, cpu(), var);
  }
};

// An asynchronous operation calls `done` and then, while the process exits, releases the last
// reference to an array: its deletion is scheduled on the engine that is stopping its threads.
void exit_while_an_async_closure_frees_an_array() {
  alarm(30);  // a deadlock at exit ends the process with SIGALRM
  Engine& e = Engine::get();
  std::atexit([] { g_exiting = true; });  // runs before the engine (made earlier) is destroyed
  VarHandle v = e.new_var();
  {
    auto held = std::make_shared<ArrayStorage>();
    e.push_async(
        [held](Done done) {
          done(nullptr);
          // The closure (and `held`) goes when this returns, once the process is exiting: while
          // the exiting thread stops the executors, or just before.
          while (!g_exiting) std::this_thread::yield();
        },
        cpu(), {}, std::span<const VarHandle>(&v, 1), 0, "async holding an array");
  }
  e.wait_for_var(v);
  std::exit(0);
}

TEST(EngineExit, AnArrayFreedByAnAsyncOperationAtExitIsDeletedWithoutDeadlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_while_an_async_closure_frees_an_array(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace braid::engine
