// _while_loop (mx.sym.contrib.while_loop as a graph node, MXNet's attributes): while its cond
// subgraph gives a nonzero scalar and fewer than max_iterations steps ran, runs its func
// subgraph, which returns step outputs and the new loop variables.
//
//   inputs: the loop variables and whatever else the subgraphs read; cond_input_locs and
//   func_input_locs say which node input feeds each subgraph input; func_var_locs which func
//   input is loop variable i (the new value of variable i replaces that node input).
//   outputs: num_out_data step outputs stacked on a new axis 0 and padded with zeros to
//   max_iterations rows, then the final loop variables.
//
// A host op: cond's result is read on the pushing thread before each step; the gradient re-runs
// the loop under autograd (backward_by_rerunning).
#include <string>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/matrix.h"
#include "control_flow.h"
#include "op/op_util.h"
#include "subgraph_runner.h"

namespace braid::op::detail {
namespace {

constexpr const char* kWhileLoop = "_while_loop";

struct WhileLoopParam {
  SubgraphRunner cond, func;
  int64_t num_inputs = 0, num_outputs = 0, num_out_data = 0, max_iterations = 0;
  std::vector<size_t> cond_inputs, func_inputs;  // per subgraph input: the node input feeding it
  std::vector<size_t> var_inputs;                // per loop variable: the node input it updates
};

WhileLoopParam parse_while_loop(const AttrMap& attrs) {
  ParamReader rd(attrs, kWhileLoop);
  WhileLoopParam p;
  p.cond = read_subgraph(rd, 0, kWhileLoop);
  p.func = read_subgraph(rd, 1, kWhileLoop);
  p.num_inputs = rd.get<int64_t>("num_args") - 2;
  p.num_outputs = rd.get<int64_t>("num_outputs");
  p.num_out_data = rd.get<int64_t>("num_out_data");
  p.max_iterations = rd.get<int64_t>("max_iterations");
  BRAID_CHECK(p.num_inputs >= 1, "operator ", kWhileLoop, ": num_args must count the two subgraphs and the inputs");
  const auto inputs = static_cast<size_t>(p.num_inputs);
  p.cond_inputs = read_locations(rd, "cond_input_locs", inputs, kWhileLoop);
  p.func_inputs = read_locations(rd, "func_input_locs", inputs, kWhileLoop);
  const std::vector<size_t> var_locs = read_locations(rd, "func_var_locs", p.func_inputs.size(), kWhileLoop);
  rd.finish();
  for (size_t at : var_locs) p.var_inputs.push_back(p.func_inputs[at]);
  BRAID_CHECK(p.cond_inputs.size() == p.cond.inputs().size() && p.func_inputs.size() == p.func.inputs().size(),
              "operator ", kWhileLoop, ": cond_input_locs and func_input_locs must have one entry per input of ",
              "their subgraph (", p.cond.inputs().size(), " and ", p.func.inputs().size(), ")");
  BRAID_CHECK(p.cond.num_outputs() == 1, "operator ", kWhileLoop, ": cond must have one output, a scalar");
  BRAID_CHECK(p.max_iterations >= 0 && p.num_out_data >= 0 &&
                  p.num_outputs == p.num_out_data + static_cast<int64_t>(p.var_inputs.size()) &&
                  p.func.num_outputs() == static_cast<size_t>(p.num_outputs),
              "operator ", kWhileLoop, ": num_outputs=", p.num_outputs, ", num_out_data=", p.num_out_data, " and ",
              p.var_inputs.size(), " loop variables for a func of ", p.func.num_outputs(), " outputs");
  return p;
}

bool infer_while_loop_shape(const WhileLoopParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  const auto body = p.func.infer_shape(gather(in, p.func_inputs));
  for (size_t i = 0; i < p.func_inputs.size(); ++i)
    if (body.inputs[i].known()) merge_shape(in[p.func_inputs[i]], body.inputs[i], kWhileLoop, cat("input ", i));
  for (size_t j = 0; j < out.size(); ++j) {
    const Shape& step = body.outputs[j];
    if (!step.known()) continue;
    if (j < static_cast<size_t>(p.num_out_data)) {
      merge_shape(out[j], with_leading_axis(p.max_iterations, step), kWhileLoop, cat("output ", j));
    } else {
      merge_shape(out[j], step, kWhileLoop, cat("loop variable output ", j));
      merge_shape(in[p.var_inputs[j - static_cast<size_t>(p.num_out_data)]], step, kWhileLoop, "a loop variable");
    }
  }
  return all_known(in) && all_known(out);
}

void infer_while_loop_type(const WhileLoopParam& p, std::vector<DType>& in, std::vector<DType>& out) {
  const auto body = p.func.infer_type(gather(in, p.func_inputs));
  for (size_t i = 0; i < p.func_inputs.size(); ++i)
    if (in[p.func_inputs[i]] == kDTypeUnknown) in[p.func_inputs[i]] = body.inputs[i];
  for (size_t j = 0; j < out.size(); ++j)
    if (out[j] == kDTypeUnknown) out[j] = body.outputs[j];
}

// The loop, as operator calls on `values` (the node inputs); the node outputs `out` give the
// padding its shapes and dtypes.
std::vector<NDArray> unroll(const WhileLoopParam& p, std::vector<NDArray> values, const std::vector<NDArray>& out) {
  const auto outputs = static_cast<size_t>(p.num_out_data);
  std::vector<std::vector<NDArray>> step_outputs(outputs);
  int64_t steps = 0;
  while (steps < p.max_iterations && is_true(p.cond.run(gather(values, p.cond_inputs))[0], kWhileLoop)) {
    std::vector<NDArray> result = p.func.run(gather(values, p.func_inputs));
    for (size_t j = 0; j < outputs; ++j) step_outputs[j].push_back(result[j]);
    for (size_t i = 0; i < p.var_inputs.size(); ++i) values[p.var_inputs[i]] = result[outputs + i];
    ++steps;
  }
  std::vector<NDArray> results;
  const Context ctx = values[0].ctx();
  for (size_t j = 0; j < outputs; ++j) {
    const Shape& full = out[j].shape();
    std::vector<int64_t> pad_dims = full.dims();
    pad_dims[0] = p.max_iterations - steps;
    NDArray pad = nd::zeros(Shape(pad_dims), ctx, out[j].dtype());
    results.push_back(steps == 0                  ? pad
                      : steps == p.max_iterations ? nd::stack(step_outputs[j], 0)
                                                  : nd::concat({nd::stack(step_outputs[j], 0), pad}, 0));
  }
  for (size_t at : p.var_inputs) results.push_back(values[at]);
  return results;
}

}  // namespace

void register_while_loop_op(Registry& r) {
  OpDef d;
  d.name = kWhileLoop;
  d.doc = "Runs its func subgraph while its cond subgraph holds, up to max_iterations (mx.sym.contrib.while_loop).";
  d.parse = [](const AttrMap& attrs) { return std::any(parse_while_loop(attrs)); };
  d.list_arguments = [](const std::any& pa) {
    return numbered_inputs(static_cast<size_t>(param<WhileLoopParam>(pa).num_inputs));
  };
  d.num_outputs = [](const std::any& pa) { return static_cast<int>(param<WhileLoopParam>(pa).num_outputs); };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_while_loop_shape(param<WhileLoopParam>(pa), in, out);
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_while_loop_type(param<WhileLoopParam>(pa), in, out);
  };
  d.host.forward = [](const std::any& pa, bool training, const std::vector<NDArray>& in,
                      const std::vector<NDArray>& out, const std::vector<NDArray>&) {
    autograd::PauseScope pause(training);
    const std::vector<NDArray> results = unroll(param<WhileLoopParam>(pa), in, out);
    write_outputs(results, out);
  };
  d.host.backward = [](const std::any& pa, bool training, const std::vector<OpReq>& req,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& in,
                       const std::vector<NDArray>& out, const std::vector<NDArray>& in_grads,
                       const std::vector<NDArray>&) {
    backward_by_rerunning(in, out_grads, in_grads, req, training, [&pa, &out](const std::vector<NDArray>& x) {
      return unroll(param<WhileLoopParam>(pa), x, out);
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
