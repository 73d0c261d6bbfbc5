#pragma once
// EngineGate: holds back the engine operations that use an array until the test opens it, so that
// a test can destroy whatever pushed them (an executor, a module, a block, a store) while they
// are certainly still queued, and then check what they compute.
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "braid/engine/engine.h"
#include "braid/ndarray/ndarray.h"

namespace braid::test {

class EngineGate {
 public:
  /// Pushes an asynchronous operation that writes `array` and ends at open(), or after `deadline`
  /// (then timed_out() is true: something waited for the gated work before the test opened the
  /// gate). It holds no worker, so other work goes on. The naive engine runs operations as they
  /// are pushed: there the gate holds nothing.
  explicit EngineGate(const NDArray& array, std::chrono::seconds deadline = std::chrono::seconds(60))
      : state_(std::make_shared<State>()) {
    if (engine::Engine::get().type() == engine::EngineType::Naive) return;
    const engine::VarHandle writes[] = {array.var()};
    auto started = std::make_shared<std::promise<engine::Done>>();
    std::future<engine::Done> done = started->get_future();
    engine::Engine::get().push_async([started](engine::Done d) { started->set_value(std::move(d)); }, array.ctx(), {},
                                     writes, 0, "test gate");
    releaser_ = std::thread([state = state_, deadline, done = std::move(done)]() mutable {
      std::unique_lock<std::mutex> lock(state->mu);
      if (!state->cv.wait_for(lock, deadline, [&] { return state->open; })) state->timed_out = true;
      lock.unlock();
      done.get()(nullptr);
    });
  }
  EngineGate(const EngineGate&) = delete;
  EngineGate& operator=(const EngineGate&) = delete;
  ~EngineGate() {
    open();
    if (releaser_.joinable()) releaser_.join();
  }

  void open() {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->open = true;
    }
    state_->cv.notify_all();
  }
  /// Whether the gate gave up waiting (meaningful once the gated work is done).
  bool timed_out() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->timed_out;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    bool timed_out = false;
  };
  std::shared_ptr<State> state_;
  std::thread releaser_;
};

}  // namespace braid::test
