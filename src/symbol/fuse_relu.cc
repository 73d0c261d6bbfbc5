// Relu fusion: a relu whose input is output 0 of an op that can apply it itself (a convolution,
// OpDef::fuse_output_relu), and that nothing else reads, disappears into that op: the op writes
// the relu's output directly (oneDNN applies the relu as it stores the convolution's result).
// When the relu's output is in turn read only by an op that can take the relu's gradient in its
// own backward (max pooling, OpDef::fuse_input_relu_grad), that op does so and the producer's
// backward receives the gradient before the relu. Either way one pass over the activation is
// saved in forward, and with the second fold one in backward too.
#include <map>

#include "exec_plan.h"

namespace braid::symbol::detail {
namespace {

bool is_relu(const Step& s) {
  if (!s.def || s.inputs.size() != 1 || s.outputs.size() != 1) return false;
  if (s.def->name == "relu") return true;
  auto act = s.attrs.find("act_type");
  return s.def->name == "Activation" && act != s.attrs.end() && act->second == "relu";
}

}  // namespace

void fuse_relu(Plan& plan) {
  std::map<uint32_t, int> readers;  // value -> steps reading it, and 2 for a symbol output
  std::map<uint32_t, size_t> producer, reader;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    for (uint32_t v : plan.steps[i].inputs) {
      ++readers[v];
      reader[v] = i;
    }
    for (uint32_t v : plan.steps[i].outputs) producer[v] = i;
  }
  for (uint32_t v : plan.outputs) readers[v] += 2;

  std::vector<bool> removed(plan.steps.size(), false);
  for (size_t r = 0; r < plan.steps.size(); ++r) {
    const Step& relu = plan.steps[r];
    if (!is_relu(relu) || !relu.ctx.is_cpu_family()) continue;  // the GPU kernels take no fused relu
    const uint32_t in = relu.inputs[0], out = relu.outputs[0];
    auto from = producer.find(in);
    if (from == producer.end() || readers[in] != 1) continue;
    Step& p = plan.steps[from->second];
    if (!p.def || !p.def->fuse_output_relu || p.outputs[0] != in || p.ctx != relu.ctx) continue;
    bool grad_before_relu = false;
    if (readers[out] == 1) {
      Step& q = plan.steps[reader.at(out)];
      if (q.def && q.def->fuse_input_relu_grad && q.inputs[0] == out && q.ctx == relu.ctx) {
        std::any folded = q.def->fuse_input_relu_grad(q.param);
        if (folded.has_value()) {
          q.param = std::move(folded);
          grad_before_relu = true;
        }
      }
    }
    p.param = p.def->fuse_output_relu(p.param, grad_before_relu);
    p.outputs[0] = out;
    p.name += "+" + relu.name;
    producer[out] = from->second;
    removed[r] = true;
    ++plan.stats.fused_relus;
  }
  std::vector<Step> kept;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(plan.steps[i]));
  plan.steps = std::move(kept);
}

}  // namespace braid::symbol::detail
