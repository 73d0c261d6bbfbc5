#include "naive_engine.h"

#include <condition_variable>

namespace braid::engine::detail {

void NaiveEngine::push(Fn fn, Context, std::span<const VarHandle> reads,
                       std::span<const VarHandle> writes, int, const char*) {
  std::vector<Var*> r, w;
  normalize_deps(reads, writes, r, w);
  execute(fn, r, w, /*always_run=*/false, errors_);
}

void NaiveEngine::push_async(AsyncFn fn, Context, std::span<const VarHandle> reads,
                             std::span<const VarHandle> writes, int, const char*) {
  std::vector<Var*> r, w;
  normalize_deps(reads, writes, r, w);
  ErrorRef error = inherited_error(r);
  if (!error) {
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    std::exception_ptr outcome;
    auto done = [&](std::exception_ptr e) {
      std::lock_guard<std::mutex> lock(mu);
      if (finished) return;  // a second call is ignored
      outcome = std::move(e);
      finished = true;
      cv.notify_all();
    };
    try {
      fn(done);
    } catch (...) {
      done(std::current_exception());
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished; });
    if (outcome) error = errors_.add(outcome);
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
