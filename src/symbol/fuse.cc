// Fusion: a chain of element-wise steps, each the only reader of the one before, becomes one
// step that runs the whole chain over cache-sized blocks, so the intermediate results never go
// to memory (run_state.cc runs it).
#include <map>

#include "exec_plan.h"

namespace braid::symbol::detail {
namespace {

// Fused chains run block by block through host scratch memory: CPU steps only.
bool fusable(const Step& s, const Plan& plan) {
  if (!s.ctx.is_cpu_family() || !s.def || !s.def->elementwise || s.def->needs_rng || s.inputs.size() != 1 ||
      s.outputs.size() != 1)
    return false;
  return plan.values[s.inputs[0]].dtype == plan.values[s.outputs[0]].dtype;
}

}  // namespace

void fuse_elementwise(Plan& plan) {
  std::map<uint32_t, int> readers;  // value -> steps and outputs reading it
  std::map<uint32_t, size_t> reader_step;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    for (uint32_t v : plan.steps[i].inputs) {
      ++readers[v];
      reader_step[v] = i;
    }
  for (uint32_t v : plan.outputs) readers[v] += 2;  // an output is never fused away

  std::vector<bool> absorbed(plan.steps.size(), false);
  std::vector<Step> fused_at(plan.steps.size());  // the fused step replacing step i, if any
  std::vector<bool> has_fused(plan.steps.size(), false);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (absorbed[i] || !fusable(plan.steps[i], plan)) continue;
    std::vector<size_t> chain = {i};
    for (;;) {
      const Step& last = plan.steps[chain.back()];
      uint32_t out = last.outputs[0];
      if (readers[out] != 1) break;
      size_t next = reader_step[out];
      const Step& n = plan.steps[next];
      if (!fusable(n, plan) || n.ctx != last.ctx) break;
      chain.push_back(next);
    }
    if (chain.size() < 2) continue;
    Step f;
    f.name = "fused(";
    std::vector<FusedOp> ops;
    for (size_t k : chain) {
      const Step& s = plan.steps[k];
      ops.push_back(FusedOp{s.def, s.param});
      f.name += (k == chain.front() ? "" : ", ") + s.name;
      absorbed[k] = true;
    }
    f.name += ")";
    f.chain = std::make_shared<const std::vector<FusedOp>>(std::move(ops));
    f.ctx = plan.steps[i].ctx;
    f.inputs = plan.steps[i].inputs;
    f.num_args = 1;
    f.outputs = plan.steps[chain.back()].outputs;
    plan.stats.fused_ops += static_cast<int>(chain.size());
    fused_at[chain.back()] = std::move(f);  // where every input of the chain is ready
    has_fused[chain.back()] = true;
  }
  std::vector<Step> steps;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (has_fused[i]) {
      steps.push_back(std::move(fused_at[i]));
    } else if (!absorbed[i]) {
      steps.push_back(std::move(plan.steps[i]));
    }
  }
  plan.steps = std::move(steps);
}

}  // namespace braid::symbol::detail
