#pragma once
// Internal: the synchronous engine; push runs the operation before returning.
#include "var.h"

namespace braid::engine::detail {

class NaiveEngine final : public Engine {
 public:
  VarHandle new_var() override { return new Var(); }
  void push(Fn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes, int priority,
            const char* name, FnProperty property) override;
  void push_async(AsyncFn fn, Context ctx, std::span<const VarHandle> reads, std::span<const VarHandle> writes,
                  int priority, const char* name) override;
  void delete_var(Fn on_delete, Context ctx, VarHandle var) override;
  void wait_for_var(VarHandle var) override;
  void wait_for_all() override { errors_.rethrow_and_clear(); }
  EngineType type() const override { return EngineType::Naive; }

 private:
  ErrorList errors_;
};

}  // namespace braid::engine::detail
