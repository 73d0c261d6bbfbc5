// Automatic mixed precision: the casts nd::invoke applies before each operator (amp.h).
#include "braid/ndarray/amp.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"

namespace braid::amp {
namespace {

enum class Cast { None, Target, Float32, Widest };

struct Setting {
  DType target = DType::Float16;
  std::map<std::string, Cast> by_op;
  std::map<std::string, std::pair<std::string, std::set<std::string>>> conditional_fp32;
};

std::atomic<bool> g_active{false};
std::mutex g_mutex;
std::shared_ptr<const Setting> g_setting;

std::shared_ptr<const Setting> setting() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_setting;
}

// The dtypes AMP converts between; float64 and integers are left alone, as in MXNet.
bool amp_float(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

Cast cast_for(const Setting& s, const std::string& op, const op::AttrMap& attrs) {
  if (auto it = s.conditional_fp32.find(op); it != s.conditional_fp32.end()) {
    auto value = attrs.find(it->second.first);
    if (value != attrs.end() && it->second.second.count(value->second)) return Cast::Float32;
  }
  auto it = s.by_op.find(op);
  return it == s.by_op.end() ? Cast::None : it->second;
}

NDArray cast_to(const NDArray& x, DType to) { return nd::invoke1("amp_cast", {x}, {{"dtype", dtype_name(to)}}); }

}  // namespace

void init(DType target, const OpLists& lists) {
  BRAID_CHECK(target == DType::Float16 || target == DType::BFloat16, "AMP: target dtype ", dtype_name(target),
              " is not supported; use float16 or bfloat16");
  auto s = std::make_shared<Setting>();
  s->target = target;
  const op::Registry& registry = op::Registry::get();
  auto add = [&](const std::vector<std::string>& ops, Cast cast) {
    for (const std::string& op : ops)  // by canonical name; the first list naming an op decides
      if (const op::OpDef* def = registry.find_or_null(op)) s->by_op.emplace(def->name, cast);
  };
  add(lists.target_dtype_ops, Cast::Target);
  add(lists.fp32_ops, Cast::Float32);
  add(lists.widest_type_casts, Cast::Widest);
  for (const auto& [op, attr, values] : lists.conditional_fp32_ops)
    if (const op::OpDef* def = registry.find_or_null(op))
      s->conditional_fp32[def->name] = {attr, std::set<std::string>(values.begin(), values.end())};
  std::lock_guard<std::mutex> lock(g_mutex);
  g_setting = std::move(s);
  g_active = true;
}

void reset() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active = false;
  g_setting.reset();
}

bool active() { return g_active.load(std::memory_order_relaxed); }

DType target_dtype() {
  auto s = setting();
  BRAID_CHECK(s != nullptr, "AMP is not initialized; call amp::init (mx.contrib.amp.init()) first");
  return s->target;
}

std::vector<NDArray> cast_inputs(const op::OpDef& def, const op::AttrMap& attrs, const std::vector<NDArray>& inputs,
                                 size_t nargs) {
  auto s = setting();
  if (!s) return inputs;
  const Cast cast = cast_for(*s, def.name, attrs);
  if (cast == Cast::None) return inputs;
  nargs = std::min(nargs, inputs.size());
  DType to = cast == Cast::Target ? s->target : DType::Float32;
  if (cast == Cast::Widest) {  // float32 if any input is (or float16 meets bfloat16), else theirs
    std::set<DType> seen;
    for (size_t i = 0; i < nargs; ++i)
      if (amp_float(inputs[i].dtype())) seen.insert(inputs[i].dtype());
    if (seen.size() < 2) return inputs;
    to = DType::Float32;
  }
  std::vector<NDArray> out = inputs;
  for (size_t i = 0; i < nargs; ++i)
    if (amp_float(inputs[i].dtype()) && inputs[i].dtype() != to) out[i] = cast_to(inputs[i], to);
  return out;
}

}  // namespace braid::amp
