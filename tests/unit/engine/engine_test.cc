// Dependency engine: ordering, parallelism, error propagation, deletion, and a randomized stress
// test comparing the threaded engine with the naive one. Also built with ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "braid/base/error.h"
#include "braid/engine/engine.h"

namespace braid::engine {
namespace {

using Vars = std::vector<VarHandle>;

void push(Engine& e, Fn fn, const Vars& reads, const Vars& writes, Context ctx = cpu()) {
  e.push(std::move(fn), ctx, reads, writes, 0, "test");
}

class EngineTest : public ::testing::TestWithParam<EngineType> {
 protected:
  std::unique_ptr<Engine> engine_ = create_engine(GetParam(), 3);
};

TEST_P(EngineTest, WritesThenReadsRunInPushOrder) {
  Engine& e = *engine_;
  VarHandle v = e.new_var();
  std::vector<int> log;  // only touched by ops that write v, or read it after those
  uint32_t value = 0;    // wraps around (defined for unsigned): the order still shows
  for (int i = 1; i <= 50; ++i)
    push(e,
         [&, i] {
           value = value * 3 + i;
           log.push_back(i);
         },
         {}, {v});
  uint32_t seen = 0;
  push(e, [&] { seen = value; }, {v}, {});
  e.wait_for_var(v);
  e.wait_for_all();
  uint32_t expected = 0;
  for (uint32_t i = 1; i <= 50; ++i) expected = expected * 3 + i;
  EXPECT_EQ(seen, expected);
  ASSERT_EQ(log.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(log[static_cast<size_t>(i)], i + 1);
  e.delete_var(nullptr, cpu(), v);
}

TEST(ThreadedEngine, ReadersOfOneVersionRunTogether) {
  auto engine = create_engine(EngineType::ThreadedPerDevice, 3);
  Engine& e = *engine;
  VarHandle v = e.new_var();
  std::mutex mu;
  std::condition_variable all_in;
  int inside = 0, max_inside = 0;
  for (int i = 0; i < 3; ++i)
    push(e,
         [&] {
           // Waits (bounded) for the other readers to arrive: they can only if reads overlap.
           std::unique_lock<std::mutex> lock(mu);
           max_inside = std::max(max_inside, ++inside);
           all_in.notify_all();
           all_in.wait_for(lock, std::chrono::seconds(10), [&] { return max_inside == 3; });
           --inside;
         },
         {v}, {});
  e.wait_for_all();
  EXPECT_EQ(max_inside, 3);
  e.delete_var(nullptr, cpu(), v);
}

TEST_P(EngineTest, ErrorIsKeptOnWrittenVarsAndRethrownOnce) {
  Engine& e = *engine_;
  VarHandle a = e.new_var(), b = e.new_var(), c = e.new_var();
  bool reader_ran = false;
  push(e, [] { throw Error("kernel exploded"); }, {}, {a});
  push(e, [&] { reader_ran = true; }, {a}, {b});  // skipped: its input is poisoned
  int independent = 0;
  push(e, [&] { independent = 7; }, {}, {c});
  try {
    e.wait_for_var(b);
    FAIL() << "wait_for_var should rethrow the error that reached b";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(), "kernel exploded");
  }
  EXPECT_FALSE(reader_ran);
  // Thrown once: the same error is not raised again by the other waits.
  EXPECT_NO_THROW(e.wait_for_var(a));
  EXPECT_NO_THROW(e.wait_for_all());
  e.wait_for_var(c);
  EXPECT_EQ(independent, 7);
  // The engine keeps running, and a successful write clears the variable.
  int after = 0;
  push(e, [&] { after = 1; }, {}, {a});
  e.wait_for_var(a);
  EXPECT_EQ(after, 1);
  for (VarHandle v : {a, b, c}) e.delete_var(nullptr, cpu(), v);
}

TEST_P(EngineTest, WaitForAllRethrowsAndClears) {
  Engine& e = *engine_;
  VarHandle a = e.new_var();
  push(e, [] { throw std::runtime_error("first"); }, {}, {a});
  EXPECT_THROW(e.wait_for_all(), std::runtime_error);
  EXPECT_NO_THROW(e.wait_for_all());
  EXPECT_NO_THROW(e.wait_for_var(a));
  e.delete_var(nullptr, cpu(), a);
}

// An error only on variables the program deleted (or overwrote) is gone: nothing can read it, and
// wait_for_all does not throw it (MXNet programs drop arrays of a failed step and wait later).
// An operation that writes nothing keeps its error for wait_for_all.
TEST_P(EngineTest, WaitForAllForgetsErrorsOfDeletedVariables) {
  Engine& e = *engine_;
  VarHandle dropped = e.new_var(), overwritten = e.new_var(), kept = e.new_var();
  push(e, [] { throw std::runtime_error("dropped"); }, {}, {dropped});
  push(e, [] { throw std::runtime_error("overwritten"); }, {}, {overwritten});
  push(e, [] {}, {}, {overwritten});
  e.delete_var(nullptr, cpu(), dropped);
  EXPECT_NO_THROW(e.wait_for_all());

  push(e, [] { throw std::runtime_error("kept"); }, {}, {kept});
  e.delete_var(nullptr, cpu(), overwritten);
  try {
    e.wait_for_all();
    FAIL() << "wait_for_all should throw the error still on a live variable";
  } catch (const std::runtime_error& err) {
    EXPECT_STREQ(err.what(), "kept");
  }
  push(e, [] { throw std::runtime_error("no outputs"); }, {kept}, {});
  EXPECT_THROW(e.wait_for_all(), std::runtime_error);
  e.delete_var(nullptr, cpu(), kept);
}

TEST_P(EngineTest, DeleteRunsAfterPendingUses) {
  Engine& e = *engine_;
  VarHandle v = e.new_var();
  std::atomic<int> uses{0};
  int uses_at_delete = -1;
  for (int i = 0; i < 20; ++i) push(e, [&] { ++uses; }, {v}, {});
  e.delete_var([&] { uses_at_delete = uses.load(); }, cpu(), v);
  e.wait_for_all();
  EXPECT_EQ(uses_at_delete, 20);
}

TEST_P(EngineTest, VarInReadsAndWritesCountsAsWrite) {
  Engine& e = *engine_;
  VarHandle v = e.new_var();
  int x = 1;
  for (int i = 0; i < 10; ++i) push(e, [&] { x *= 2; }, {v, v}, {v, v});
  e.wait_for_var(v);
  EXPECT_EQ(x, 1024);
  e.delete_var(nullptr, cpu(), v);
}

// Random ops over a few variables; each op folds the values it reads into the ones it writes.
// Any ordering violation changes the final values, which must equal the naive engine's.
std::vector<uint64_t> run_random_program(Engine& e, uint64_t seed, int num_vars, int num_ops) {
  std::mt19937_64 gen(seed);
  std::vector<uint64_t> values(static_cast<size_t>(num_vars));
  for (int i = 0; i < num_vars; ++i) values[static_cast<size_t>(i)] = static_cast<uint64_t>(i) + 1;
  Vars vars;
  for (int i = 0; i < num_vars; ++i) vars.push_back(e.new_var());
  for (int op = 0; op < num_ops; ++op) {
    std::vector<int> reads, writes;
    int nr = static_cast<int>(gen() % 4), nw = 1 + static_cast<int>(gen() % 2);
    for (int i = 0; i < nr; ++i) reads.push_back(static_cast<int>(gen() % static_cast<uint64_t>(num_vars)));
    for (int i = 0; i < nw; ++i) writes.push_back(static_cast<int>(gen() % static_cast<uint64_t>(num_vars)));
    Vars rv, wv;
    for (int r : reads) rv.push_back(vars[static_cast<size_t>(r)]);
    for (int w : writes) wv.push_back(vars[static_cast<size_t>(w)]);
    Context ctx = cpu(static_cast<int>(gen() % 2));
    auto fn = [&values, reads, writes, op] {
      uint64_t h = static_cast<uint64_t>(op) * 0x9E3779B97F4A7C15ull;
      for (int r : reads) h = (h ^ values[static_cast<size_t>(r)]) * 0x100000001B3ull;
      // Writes after reads; a var written twice in the list is still one write.
      for (int w : writes)
        values[static_cast<size_t>(w)] = (values[static_cast<size_t>(w)] + h) * 0xC2B2AE3D27D4EB4Full;
    };
    e.push(fn, ctx, rv, wv, static_cast<int>(gen() % 3), "random");
  }
  e.wait_for_all();
  for (VarHandle v : vars) e.delete_var(nullptr, cpu(), v);
  e.wait_for_all();
  return values;
}

// The most operations ever pushed but not finished, seen by a thread that pushes 300. Operation i
// waits (bounded) until the pusher has pushed `lag` more, so operations only finish behind the
// pusher: half the bound when there is one (the pusher is woken at that many pending), 32 when
// unbounded.
int64_t max_run_ahead(int64_t max_pending) {
  constexpr int kOps = 300;
  const int64_t lag = max_pending > 0 ? max_pending / 2 : 32;
  auto engine = create_engine(EngineType::ThreadedPerDevice, 1, max_pending);
  VarHandle v = engine->new_var();
  std::mutex mu;
  std::condition_variable progress;
  int64_t pushed = 0, done = 0, most = 0;
  bool stalled = false;
  for (int64_t i = 0; i < kOps; ++i) {
    push(*engine,
         [&, i] {
           std::unique_lock<std::mutex> lock(mu);
           if (!progress.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return pushed >= std::min<int64_t>(kOps, i + lag); }))
             stalled = true;
           ++done;
         },
         {}, {v});
    std::lock_guard<std::mutex> lock(mu);
    most = std::max(most, ++pushed - done);
    progress.notify_all();
  }
  engine->wait_for_all();
  EXPECT_EQ(done, kOps);
  EXPECT_FALSE(stalled) << "an operation waited 10 s for the pusher";
  engine->delete_var([] {}, cpu(), v);
  return most;
}

TEST(ThreadedEngine, PushWaitsWhenTooFarAhead) {
  EXPECT_LE(max_run_ahead(16), 16);
  EXPECT_GT(max_run_ahead(0), 16);  // unbounded: operations wait 32 pushes behind
}

TEST(ThreadedEngine, OperationsMayPushWhileThePusherIsThrottled) {
  auto engine = create_engine(EngineType::ThreadedPerDevice, 1, 4);
  VarHandle v = engine->new_var(), w = engine->new_var();
  std::atomic<int> inner{0};
  for (int i = 0; i < 50; ++i)
    push(*engine,
         [&] {  // pushes from an engine worker are never held back, so this cannot deadlock
           for (int k = 0; k < 8; ++k) push(*engine, [&] { inner.fetch_add(1); }, {}, {w});
         },
         {}, {v});
  engine->wait_for_all();
  EXPECT_EQ(inner.load(), 400);
  engine->delete_var([] {}, cpu(), v);
  engine->delete_var([] {}, cpu(), w);
}

// Waiting for a variable of cpu(1) must not need cpu(0)'s worker, busy here until released.
TEST(ThreadedEngine, AWaitNeedsNoOtherContextsWorker) {
  auto engine = create_engine(EngineType::ThreadedPerDevice, 1);
  VarHandle busy = engine->new_var(), v = engine->new_var();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> busy_done{false};
  push(
      *engine,
      [&] {
        released.wait_for(std::chrono::seconds(10));  // bounded: a regression fails, it does not hang
        busy_done = true;
      },
      {}, {busy}, cpu(0));
  int value = 0;
  push(
      *engine, [&] { value = 7; }, {}, {v}, cpu(1));
  engine->wait_for_var(v);
  EXPECT_EQ(value, 7);
  EXPECT_FALSE(busy_done.load()) << "the wait for cpu(1)'s variable waited for cpu(0)'s operation";
  release.set_value();
  engine->wait_for_all();
  engine->delete_var(nullptr, cpu(0), busy);
  engine->delete_var(nullptr, cpu(1), v);
}

// A GPU's copies have a queue (and a worker, with its own stream) apart from its kernels: a copy
// runs while a kernel of the same GPU is still busy. The operations here only run host code, so
// the test needs no GPU.
TEST(ThreadedEngine, AGpusCopiesDoNotWaitForItsKernels) {
  auto engine = create_engine(EngineType::ThreadedPerDevice, 1);
  VarHandle busy = engine->new_var(), copied = engine->new_var(), next = engine->new_var();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> kernel_done{false};
  push(
      *engine,
      [&] {
        released.wait_for(std::chrono::seconds(10));  // bounded: a regression fails, it does not hang
        kernel_done = true;
      },
      {}, {busy}, gpu(0));
  int value = 0;
  engine->push([&] { value = 7; }, gpu(0), {}, std::span<const VarHandle>(&copied, 1), 0, "copy", FnProperty::Copy);
  engine->wait_for_var(copied);
  EXPECT_EQ(value, 7);
  EXPECT_FALSE(kernel_done.load()) << "the copy waited for the GPU's running kernel";
  // Kernels of one GPU still run one after another, in order.
  int order = 0;
  push(
      *engine, [&] { order = kernel_done ? 1 : -1; }, {}, {next}, gpu(0));
  release.set_value();
  engine->wait_for_all();
  EXPECT_EQ(order, 1);
  for (VarHandle v : {busy, copied, next}) engine->delete_var(nullptr, gpu(0), v);
}

TEST(EngineStress, ThreadedMatchesNaiveOnRandomPrograms) {
#ifdef BRAID_UNDER_TSAN
  const int programs = 6, ops = 600;
#else
  const int programs = 20, ops = 3000;
#endif
  for (int p = 0; p < programs; ++p) {
    auto naive = create_engine(EngineType::Naive);
    auto threaded = create_engine(EngineType::ThreadedPerDevice, 4);
    uint64_t seed = 1000 + static_cast<uint64_t>(p);
    int num_vars = 3 + p % 10;
    EXPECT_EQ(run_random_program(*naive, seed, num_vars, ops), run_random_program(*threaded, seed, num_vars, ops))
        << "program seed " << seed;
  }
}

TEST(EngineSelection, NamesAndErrors) {
  EXPECT_EQ(engine_type_from_name("NaiveEngine"), EngineType::Naive);
  EXPECT_EQ(engine_type_from_name("ThreadedEnginePerDevice"), EngineType::ThreadedPerDevice);
  EXPECT_EQ(engine_type_from_name("ThreadedEngine"), EngineType::ThreadedPerDevice);
  try {
    engine_type_from_name("Turbo");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NaiveEngine"), std::string::npos);
  }
}

// An asynchronous operation holds its variables until another thread calls done: what reads its
// output waits for that; its error reaches the readers like a kernel's; one whose input failed is
// skipped without starting.
TEST_P(EngineTest, AsyncOperationsFinishWhenDoneIsCalled) {
  Engine& e = *engine_;
  VarHandle out = e.new_var(), failed = e.new_var(), after = e.new_var(), last = e.new_var();
  int value = 0, seen = -1;
  std::mutex mu;
  std::vector<std::thread> finishers;  // started by operations that may run at once
  std::promise<void> pushed_reader;
  std::shared_future<void> reader_pushed = pushed_reader.get_future().share();
  e.push_async(
      [&](Done done) {
        std::lock_guard<std::mutex> lock(mu);
        // The threaded engine's finisher waits until the reader is pushed (the naive engine's
        // push_async returns only once done is called).
        finishers.emplace_back([&value, &reader_pushed, done, naive = GetParam() == EngineType::Naive] {
          if (!naive) reader_pushed.wait_for(std::chrono::seconds(10));
          value = 42;
          done(nullptr);
          done(nullptr);  // ignored
        });
      },
      cpu(), {}, std::vector<VarHandle>{out}, 0, "test async");
  push(e, [&] { seen = value; }, {out}, {after});
  pushed_reader.set_value();
  e.wait_for_var(after);
  EXPECT_EQ(seen, 42);

  e.push_async(
      [&](Done done) {
        std::lock_guard<std::mutex> lock(mu);
        finishers.emplace_back([done] { done(std::make_exception_ptr(Error("peer went away"))); });
      },
      cpu(), {}, std::vector<VarHandle>{failed}, 0, "test async");
  bool started = false, reader_ran = false;
  e.push_async(
      [&](Done done) {
        started = true;
        done(nullptr);
      },
      cpu(), std::vector<VarHandle>{failed}, std::vector<VarHandle>{after}, 0, "test async");
  push(e, [&] { reader_ran = true; }, {after}, {last});
  // The thread that failed is joined before its error is read: libstdc++'s exception_ptr counts
  // references with atomics ThreadSanitizer does not see.
  for (bool both = false; !both; std::this_thread::yield()) {
    std::lock_guard<std::mutex> lock(mu);
    both = finishers.size() == 2;
  }
  finishers[1].join();
  try {
    e.wait_for_var(last);
    FAIL() << "the error of the async operation should reach what reads its output";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(), "peer went away");
  }
  EXPECT_FALSE(started);
  EXPECT_FALSE(reader_ran);
  e.push_async([](Done) { throw Error("could not start"); }, cpu(), {}, std::vector<VarHandle>{out}, 0, "test async");
  EXPECT_THROW(e.wait_for_var(out), Error);
  e.wait_for_all();
  finishers[0].join();
  for (VarHandle v : {out, failed, after, last}) e.delete_var(nullptr, cpu(), v);
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineTest, ::testing::Values(EngineType::Naive, EngineType::ThreadedPerDevice),
                         [](const auto& info) {
                           return info.param == EngineType::Naive ? std::string("Naive") : std::string("Threaded");
                         });

}  // namespace
}  // namespace braid::engine
