// Memory planning: every planned value (intermediate result or gradient) gets a slot. Walking
// the plan's timeline (forward steps, then the backward steps in reverse), a value takes a free
// slot when it is first written and gives it back after its last read, so values whose lifetimes
// do not overlap share memory. An element-wise step whose input dies at that step writes over
// it (in place). Forward results live until the backward steps that read them (per op's
// backward_reads). The symbol's outputs keep slots of their own: the caller reads them.
#include <algorithm>
#include <map>
#include <set>

#include "exec_plan.h"

namespace braid::symbol::detail {
namespace {

struct Life {
  int first = INT32_MAX;
  int last = -1;
  void touch(int t) {
    first = std::min(first, t);
    last = std::max(last, t);
  }
};

bool inplace_kind(const Step& s) {
  return s.def && s.def->elementwise && s.inputs.size() == 1 && s.outputs.size() == 1;
}

class Planner {
 public:
  Planner(Plan& plan, bool reuse) : plan_(plan), reuse_(reuse) {}

  void run() {
    lifetimes();
    const int end = static_cast<int>(2 * plan_.steps.size() + 1);
    for (int t = 0; t <= end; ++t) {
      for (uint32_t v : defined_at_[t]) allocate(v, t);
      for (uint32_t v : dying_at_[t])
        if (!pinned_.count(v) && !moved_.count(v)) release(v);
    }
    for (const Slot& s : plan_.slots) plan_.stats.planned_bytes += s.elements * dtype_size(s.dtype);
  }

 private:
  bool planned(uint32_t v) const { return v != kNoValue && plan_.values[v].kind == Value::Kind::Planned; }
  int backward_time(size_t step) const { return static_cast<int>(2 * plan_.steps.size() - step); }

  void lifetimes() {
    const int n = static_cast<int>(plan_.steps.size());
    auto touch = [&](uint32_t v, int t) {
      if (planned(v)) life_[v].touch(t);
    };
    for (int i = 0; i < n; ++i) {
      const Step& s = plan_.steps[static_cast<size_t>(i)];
      for (uint32_t v : s.outputs) touch(v, i);
      for (uint32_t v : s.inputs) touch(v, i);
      if (!s.backward) continue;
      int tb = backward_time(static_cast<size_t>(i));
      op::BackwardReads reads = s.def ? s.def->backward_reads(s.param) : op::BackwardReads{};
      for (const auto* list : {&s.out_grads, &s.in_grads})
        for (uint32_t v : *list) touch(v, tb);
      for (size_t k = 0; k < s.inputs.size(); ++k)
        if (reads.inputs || k >= s.num_args) touch(s.inputs[k], tb);
      if (reads.outputs) {
        for (uint32_t v : s.outputs) touch(v, tb);
      } else {
        for (size_t k = s.num_visible; k < s.outputs.size(); ++k) touch(s.outputs[k], tb);  // hidden: kept
      }
    }
    for (uint32_t v : plan_.head_grads) touch(v, n);
    for (uint32_t v : plan_.zero_grads) touch(v, n);
    for (uint32_t v : plan_.outputs)
      if (planned(v)) pinned_.insert(v);
    for (const auto& [v, life] : life_) {
      defined_at_[life.first].push_back(v);
      dying_at_[life.last].push_back(v);
      plan_.stats.unplanned_bytes += plan_.values[v].shape.size() * dtype_size(plan_.values[v].dtype);
    }
  }

  /// The step running at time t with the value it may overwrite for value v, if any.
  uint32_t inplace_source(uint32_t v, int t) const {
    const int n = static_cast<int>(plan_.steps.size());
    if (t < n) {
      const Step& s = plan_.steps[static_cast<size_t>(t)];
      if (inplace_kind(s) && s.outputs[0] == v) return s.inputs[0];
    } else if (t > n) {
      const Step& s = plan_.steps[static_cast<size_t>(2 * n - t)];
      if (inplace_kind(s) && s.backward && s.in_grads[0] == v && s.in_grad_req[0] == op::OpReq::Write)
        return s.out_grads[0];
    }
    return kNoValue;
  }

  void allocate(uint32_t v, int t) {
    Value& val = plan_.values[v];
    const int64_t need = val.shape.size();
    uint32_t src = reuse_ ? inplace_source(v, t) : kNoValue;
    if (planned(src) && !pinned_.count(src) && !moved_.count(src) && life_[src].last == t && !pinned_.count(v) &&
        plan_.values[src].shape.size() == need && plan_.values[src].dtype == val.dtype &&
        plan_.values[src].ctx == val.ctx) {
      val.index = plan_.values[src].index;  // written over its input, which dies here
      moved_.insert(src);
      ++plan_.stats.inplace_ops;
      return;
    }
    val.index = reuse_ && !pinned_.count(v) ? take_free(val, need) : -1;
    if (val.index < 0) {
      plan_.slots.push_back(Slot{need, val.dtype, val.ctx});
      val.index = static_cast<int>(plan_.slots.size() - 1);
    }
  }

  /// The smallest free slot that fits, else the largest free one, grown; -1 when none is free.
  int take_free(const Value& val, int64_t need) {
    auto& pool = free_[{val.dtype, val.ctx.str()}];
    if (pool.empty()) return -1;
    auto fit = std::find_if(pool.begin(), pool.end(), [&](const auto& p) { return p.first >= need; });
    if (fit == pool.end()) fit = std::prev(pool.end());
    int slot = fit->second;
    pool.erase(fit);
    Slot& s = plan_.slots[static_cast<size_t>(slot)];
    s.elements = std::max(s.elements, need);
    return slot;
  }

  void release(uint32_t v) {
    const Value& val = plan_.values[v];
    if (!reuse_) return;
    const Slot& s = plan_.slots[static_cast<size_t>(val.index)];
    free_[{val.dtype, val.ctx.str()}].insert({s.elements, val.index});
  }

  Plan& plan_;
  bool reuse_;
  std::map<uint32_t, Life> life_;
  std::map<int, std::vector<uint32_t>> defined_at_, dying_at_;
  std::set<uint32_t> pinned_, moved_;
  std::map<std::pair<DType, std::string>, std::set<std::pair<int64_t, int>>> free_;  // (elements, slot)
};

}  // namespace

void plan_memory(Plan& plan, bool reuse) { Planner(plan, reuse).run(); }

}  // namespace braid::symbol::detail
