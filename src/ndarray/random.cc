#include "braid/ndarray/random.h"

#include <map>
#include <mutex>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"
#include "random_state.h"

namespace braid::nd {
namespace detail {
namespace {

struct RandomStates {
  std::mutex mu;
  uint64_t seed = 0;
  std::map<Context, RandomState> states;
};

RandomStates& states() {
  static RandomStates* s = new RandomStates();  // never destroyed: used by engine ops at exit
  return *s;
}

// Each context gets its own stream derived from the global seed.
uint64_t context_seed(uint64_t seed, Context ctx) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ctx.dev_type) * 1000003ull +
         static_cast<uint64_t>(ctx.dev_id);
}

}  // namespace

RandomState& random_state(Context ctx) {
  RandomStates& s = states();
  std::lock_guard<std::mutex> lock(s.mu);
  auto [it, fresh] = s.states.try_emplace(ctx);
  if (fresh) {
    it->second.generator.seed(context_seed(s.seed, ctx));
    it->second.var = engine::Engine::get().new_var();
  }
  return it->second;
}

}  // namespace detail

void seed(uint64_t seed) {
  auto& s = detail::states();
  std::lock_guard<std::mutex> lock(s.mu);
  s.seed = seed;
  for (auto& [ctx, state] : s.states) {
    engine::VarHandle v = state.var;
    auto* gen = &state.generator;
    uint64_t cs = detail::context_seed(seed, ctx);
    engine::Engine::get().push([gen, cs] { gen->seed(cs); }, ctx, {},
                               std::span<const engine::VarHandle>(&v, 1), 0, "random_seed");
  }
}

namespace {
op::AttrMap sample_attrs(const Shape& shape, Context ctx, DType dtype) {
  return {{"shape", shape.str()}, {"ctx", ctx.str()}, {"dtype", dtype_name(dtype)}};
}
}  // namespace

NDArray random_uniform(double low, double high, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["low"] = op::format_number(low);
  a["high"] = op::format_number(high);
  return invoke1("_random_uniform", {}, a);
}

NDArray random_normal(double loc, double scale, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["loc"] = op::format_number(loc);
  a["scale"] = op::format_number(scale);
  return invoke1("_random_normal", {}, a);
}

NDArray random_randint(int64_t low, int64_t high, const Shape& shape, Context ctx, DType dtype) {
  auto a = sample_attrs(shape, ctx, dtype);
  a["low"] = op::format_number(low);
  a["high"] = op::format_number(high);
  return invoke1("_random_randint", {}, a);
}

}  // namespace braid::nd
