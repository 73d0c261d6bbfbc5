#include "naive_engine.h"

#include <condition_variable>
#include <memory>
#include <mutex>

namespace braid::engine::detail {

void NaiveEngine::push(Fn fn, Context, std::span<const VarHandle> reads, std::span<const VarHandle> writes, int,
                       const char*, FnProperty) {
  std::vector<Var*> r, w;
  normalize_deps(reads, writes, r, w);
  execute(fn, r, w, /*always_run=*/false, errors_);
}

void NaiveEngine::push_async(AsyncFn fn, Context, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                             int, const char*) {
  std::vector<Var*> r, w;
  normalize_deps(reads, writes, r, w);
  ErrorRef error = inherited_error(r);
  if (!error) {
    struct State {  // shared: `done` may be called again after this returns
      std::mutex mu;
      std::condition_variable cv;
      bool finished = false;
      std::exception_ptr outcome;
    };
    auto state = std::make_shared<State>();
    Done done = [state](std::exception_ptr e) {
      std::lock_guard<std::mutex> lock(state->mu);
      if (state->finished) return;  // a second call is ignored
      state->outcome = std::move(e);
      state->finished = true;
      state->cv.notify_all();
    };
    try {
      fn(done);
    } catch (...) {
      done(std::current_exception());
    }
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] { return state->finished; });
    // Moved out, so that the last holder of `done`, maybe another thread, has no share of it.
    if (state->outcome) error = errors_.add(std::move(state->outcome), w.empty());
  }
  mark_writes(w, error);
}

void NaiveEngine::delete_var(Fn on_delete, Context, VarHandle var) {
  if (on_delete) on_delete();
  delete var;
}

void NaiveEngine::wait_for_var(VarHandle var) {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(var->mu);
    e = var->live_error();
    if (e) *var->error = nullptr;
  }
  if (e) std::rethrow_exception(e);
}

}  // namespace braid::engine::detail
