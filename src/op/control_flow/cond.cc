// _cond (mx.sym.contrib.cond as a graph node, MXNet's attributes): runs its then subgraph when its
// cond subgraph gives a nonzero scalar, else its else subgraph; both give outputs of the same shapes.
//
//   inputs: whatever the subgraphs read; cond_input_locs, then_input_locs and else_input_locs say
//   which node input feeds each input of each subgraph.
//
// A host op: cond's result is read on the pushing thread; the gradient re-runs the chosen branch
// under autograd (backward_by_rerunning).
#include <string>

#include "braid/autograd/autograd.h"
#include "control_flow.h"
#include "op/op_util.h"
#include "subgraph_runner.h"

namespace braid::op::detail {
namespace {

constexpr const char* kCond = "_cond";

struct CondParam {
  SubgraphRunner cond, then_branch, else_branch;
  int64_t num_inputs = 0, num_outputs = 0;
  std::vector<size_t> cond_inputs, then_inputs, else_inputs;  // per subgraph input: the node input feeding it
};

CondParam parse_cond(const AttrMap& attrs) {
  ParamReader rd(attrs, kCond);
  CondParam p;
  p.cond = read_subgraph(rd, 0, kCond);
  p.then_branch = read_subgraph(rd, 1, kCond);
  p.else_branch = read_subgraph(rd, 2, kCond);
  p.num_inputs = rd.get<int64_t>("num_args") - 3;
  p.num_outputs = rd.get<int64_t>("num_outputs");
  BRAID_CHECK(p.num_inputs >= 0, "operator ", kCond, ": num_args must count the three subgraphs and the inputs");
  const auto inputs = static_cast<size_t>(p.num_inputs);
  p.cond_inputs = read_locations(rd, "cond_input_locs", inputs, kCond);
  p.then_inputs = read_locations(rd, "then_input_locs", inputs, kCond);
  p.else_inputs = read_locations(rd, "else_input_locs", inputs, kCond);
  rd.finish();
  BRAID_CHECK(p.cond_inputs.size() == p.cond.inputs().size() && p.then_inputs.size() == p.then_branch.inputs().size() &&
                  p.else_inputs.size() == p.else_branch.inputs().size(),
              "operator ", kCond, ": each *_input_locs must have one entry per input of its subgraph");
  BRAID_CHECK(p.cond.num_outputs() == 1, "operator ", kCond, ": cond must have one output, a scalar");
  BRAID_CHECK(p.then_branch.num_outputs() == static_cast<size_t>(p.num_outputs) &&
                  p.else_branch.num_outputs() == static_cast<size_t>(p.num_outputs),
              "operator ", kCond, ": num_outputs=", p.num_outputs, " but the branches have ",
              p.then_branch.num_outputs(), " and ", p.else_branch.num_outputs());
  return p;
}

bool infer_cond_shape(const CondParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  for (const auto& [branch, at] : {std::pair{&p.then_branch, &p.then_inputs}, {&p.else_branch, &p.else_inputs}}) {
    const auto inferred = branch->infer_shape(gather(in, *at));
    for (size_t i = 0; i < at->size(); ++i)
      if (inferred.inputs[i].known()) merge_shape(in[(*at)[i]], inferred.inputs[i], kCond, cat("input ", i));
    for (size_t j = 0; j < out.size(); ++j)
      if (inferred.outputs[j].known()) merge_shape(out[j], inferred.outputs[j], kCond, cat("output ", j));
  }
  return all_known(in) && all_known(out);
}

void infer_cond_type(const CondParam& p, std::vector<DType>& in, std::vector<DType>& out) {
  for (const auto& [branch, at] : {std::pair{&p.then_branch, &p.then_inputs}, {&p.else_branch, &p.else_inputs}}) {
    const auto inferred = branch->infer_type(gather(in, *at));
    for (size_t i = 0; i < at->size(); ++i)
      if (in[(*at)[i]] == kDTypeUnknown) in[(*at)[i]] = inferred.inputs[i];
    for (size_t j = 0; j < out.size(); ++j)
      if (out[j] == kDTypeUnknown) out[j] = inferred.outputs[j];
  }
}

std::vector<NDArray> run_branch(const CondParam& p, const std::vector<NDArray>& in) {
  const bool then = is_true(p.cond.run(gather(in, p.cond_inputs))[0], kCond);
  return then ? p.then_branch.run(gather(in, p.then_inputs)) : p.else_branch.run(gather(in, p.else_inputs));
}

}  // namespace

void register_cond_op(Registry& r) {
  OpDef d;
  d.name = kCond;
  d.doc = "Runs its then subgraph when its cond subgraph holds, else its else subgraph (mx.sym.contrib.cond).";
  d.parse = [](const AttrMap& attrs) { return std::any(parse_cond(attrs)); };
  d.list_arguments = [](const std::any& pa) {
    return numbered_inputs(static_cast<size_t>(param<CondParam>(pa).num_inputs));
  };
  d.num_outputs = [](const std::any& pa) { return static_cast<int>(param<CondParam>(pa).num_outputs); };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_cond_shape(param<CondParam>(pa), in, out);
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_cond_type(param<CondParam>(pa), in, out);
  };
  d.host.forward = [](const std::any& pa, bool training, const std::vector<NDArray>& in,
                      const std::vector<NDArray>& out, const std::vector<NDArray>&) {
    autograd::PauseScope pause(training);
    const std::vector<NDArray> results = run_branch(param<CondParam>(pa), in);
    write_outputs(results, out);
  };
  d.host.backward = [](const std::any& pa, bool training, const std::vector<OpReq>& req,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& in,
                       const std::vector<NDArray>&, const std::vector<NDArray>& in_grads, const std::vector<NDArray>&) {
    backward_by_rerunning(in, out_grads, in_grads, req, training,
                          [&pa](const std::vector<NDArray>& x) { return run_branch(param<CondParam>(pa), x); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
