#include "naive_engine.h"

namespace braid::engine::detail {

void NaiveEngine::push(Fn fn, Context, std::span<const VarHandle> reads,
                       std::span<const VarHandle> writes, int, const char*) {
  std::vector<Var*> r, w;
  normalize_deps(reads, writes, r, w);
  execute(fn, r, w, /*always_run=*/false, errors_);
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
