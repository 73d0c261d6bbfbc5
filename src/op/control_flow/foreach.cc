// _foreach (mx.sym.contrib.foreach as a graph node, MXNet's attributes): runs its subgraph, the
// loop body, once per slice along axis 0 of its data inputs, carrying states from step to step.
//
//   inputs: data (len(in_data_locs)), initial states (len(in_state_locs)), the body's other
//   inputs (len(remain_locs)); *_locs say which input of the body each one feeds.
//   body outputs: num_out_data step outputs, then the new states.
//   outputs: each step output stacked on a new axis 0, then the final states.
//
// Runs on the pushing thread (a host op): each step is the body's CachedOp. Its gradient
// re-runs the loop under autograd and differentiates that, so every operator of the body needs
// a gradient.
#include <string>

#include "braid/autograd/autograd.h"
#include "braid/base/np_shape.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "control_flow.h"
#include "op/op_util.h"
#include "subgraph_runner.h"

namespace braid::op::detail {
namespace {

constexpr const char* kForeach = "_foreach";

struct ForeachParam {
  SubgraphRunner body;
  int64_t num_outputs = 0, num_out_data = 0;
  std::vector<size_t> data_at, state_at, free_at;  // the body input each node input feeds

  size_t num_data() const { return data_at.size(); }
  size_t num_states() const { return state_at.size(); }
  size_t num_inputs() const { return data_at.size() + state_at.size() + free_at.size(); }
  /// The body input node input k feeds.
  size_t body_input(size_t k) const {
    if (k < num_data()) return data_at[k];
    if (k < num_data() + num_states()) return state_at[k - num_data()];
    return free_at[k - num_data() - num_states()];
  }
};

ForeachParam parse_foreach(const AttrMap& attrs) {
  ParamReader rd(attrs, kForeach);
  ForeachParam p;
  p.body = read_subgraph(rd, 0, kForeach);
  const size_t body_inputs = p.body.inputs().size();
  const auto num_args = rd.get<int64_t>("num_args");
  p.num_outputs = rd.get<int64_t>("num_outputs");
  p.num_out_data = rd.get<int64_t>("num_out_data");
  p.data_at = read_locations(rd, "in_data_locs", body_inputs, kForeach);
  p.state_at = read_locations(rd, "in_state_locs", body_inputs, kForeach);
  p.free_at = read_locations(rd, "remain_locs", body_inputs, kForeach);
  rd.finish();
  BRAID_CHECK(p.num_data() > 0, "operator ", kForeach, ": the loop needs at least one data input");
  BRAID_CHECK(static_cast<size_t>(num_args) == p.num_inputs() + 1 && p.num_inputs() == body_inputs, "operator ",
              kForeach, ": num_args=", num_args, " with ", p.num_data(), " data, ", p.num_states(), " state and ",
              p.free_at.size(), " other inputs for a body of ", body_inputs, " inputs");
  BRAID_CHECK(p.num_out_data >= 0 && p.num_outputs == p.num_out_data + static_cast<int64_t>(p.num_states()) &&
                  p.body.num_outputs() == static_cast<size_t>(p.num_outputs),
              "operator ", kForeach, ": num_outputs=", p.num_outputs, ", num_out_data=", p.num_out_data, " and ",
              p.num_states(), " states for a body of ", p.body.num_outputs(), " outputs");
  return p;
}

// One step of a data input: a 1-d array's steps are (1,)-shaped in MXNet 1.x (as its NDArray.At),
// 0-d with NumPy shape semantics.
Shape without_steps(const Shape& s) {
  if (s.ndim() == 1 && !np_shape()) return Shape{1};
  std::vector<int64_t> dims(s.dims().begin() + 1, s.dims().end());
  return Shape(dims);
}

NDArray step_of(const NDArray& data, int64_t t) {
  return data.ndim() == 1 && !np_shape() ? data.slice(t, t + 1) : data.at(t);
}

bool infer_foreach_shape(const ForeachParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  int64_t steps = unknown_dim();
  for (size_t k = 0; k < p.num_data(); ++k) {
    if (!in[k].known()) continue;
    BRAID_CHECK(in[k].ndim() >= 1, "operator ", kForeach, ": data input ", k, " has no axis to loop over");
    if (!dim_known(in[k][0])) continue;
    BRAID_CHECK(!dim_known(steps) || steps == in[k][0], "operator ", kForeach, ": the data inputs differ in length (",
                steps, " and ", in[k][0], ")");
    steps = in[k][0];
  }
  std::vector<Shape> feed(p.num_inputs());
  for (size_t k = 0; k < p.num_inputs(); ++k)
    if (in[k].known()) feed[p.body_input(k)] = k < p.num_data() ? without_steps(in[k]) : in[k];
  const auto body = p.body.infer_shape(feed);
  for (size_t k = 0; k < p.num_inputs(); ++k) {
    const Shape& inferred = body.inputs[p.body_input(k)];
    if (!inferred.known() || (k < p.num_data() && in[k].known())) continue;  // a known data input gave its step
    merge_shape(in[k], k >= p.num_data() ? inferred : with_leading_axis(steps, inferred), kForeach, cat("input ", k));
  }
  for (size_t j = 0; j < out.size(); ++j) {
    const Shape& step = body.outputs[j];
    if (!step.known()) continue;
    if (j < static_cast<size_t>(p.num_out_data)) {
      merge_shape(out[j], with_leading_axis(steps, step), kForeach, cat("output ", j));  // steps may be unknown
    } else {
      merge_shape(out[j], step, kForeach, cat("state output ", j));
      merge_shape(in[p.num_data() + j - static_cast<size_t>(p.num_out_data)], step, kForeach, "a state input");
    }
  }
  return all_known(in) && all_known(out);
}

void infer_foreach_type(const ForeachParam& p, std::vector<DType>& in, std::vector<DType>& out) {
  std::vector<DType> feed(p.num_inputs(), kDTypeUnknown);
  for (size_t k = 0; k < p.num_inputs(); ++k) feed[p.body_input(k)] = in[k];
  const auto body = p.body.infer_type(feed);
  for (size_t k = 0; k < p.num_inputs(); ++k)
    if (in[k] == kDTypeUnknown) in[k] = body.inputs[p.body_input(k)];
  for (size_t j = 0; j < out.size(); ++j)
    if (out[j] == kDTypeUnknown) out[j] = body.outputs[j];
}

// The loop, as operator calls on `in`: the stacked step outputs and the final states.
std::vector<NDArray> unroll(const ForeachParam& p, const std::vector<NDArray>& in) {
  const int64_t steps = in[0].shape()[0];
  std::vector<NDArray> feed(p.num_inputs());
  for (size_t k = p.num_data(); k < p.num_inputs(); ++k) feed[p.body_input(k)] = in[k];
  const auto outputs = static_cast<size_t>(p.num_out_data);
  std::vector<std::vector<NDArray>> step_outputs(outputs);
  for (int64_t t = 0; t < steps; ++t) {
    for (size_t k = 0; k < p.num_data(); ++k) feed[p.data_at[k]] = step_of(in[k], t);
    std::vector<NDArray> result = p.body.run(feed);
    for (size_t j = 0; j < outputs; ++j) step_outputs[j].push_back(result[j]);
    for (size_t s = 0; s < p.num_states(); ++s) feed[p.state_at[s]] = result[outputs + s];
  }
  std::vector<NDArray> results;
  for (auto& steps_of_one : step_outputs) results.push_back(nd::stack(steps_of_one, 0));
  for (size_t s = 0; s < p.num_states(); ++s) results.push_back(feed[p.state_at[s]]);
  return results;
}

}  // namespace

void register_foreach_op(Registry& r) {
  OpDef d;
  d.name = kForeach;
  d.doc = "Runs its subgraph once per slice of its data along axis 0, carrying states (mx.sym.contrib.foreach).";
  d.parse = [](const AttrMap& attrs) { return std::any(parse_foreach(attrs)); };
  d.list_arguments = [](const std::any& pa) { return numbered_inputs(param<ForeachParam>(pa).num_inputs()); };
  d.num_outputs = [](const std::any& pa) { return static_cast<int>(param<ForeachParam>(pa).num_outputs); };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_foreach_shape(param<ForeachParam>(pa), in, out);
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_foreach_type(param<ForeachParam>(pa), in, out);
  };
  d.host.forward = [](const std::any& pa, bool training, const std::vector<NDArray>& in,
                      const std::vector<NDArray>& out, const std::vector<NDArray>&) {
    autograd::PauseScope pause(training);
    const std::vector<NDArray> results = unroll(param<ForeachParam>(pa), in);
    write_outputs(results, out);
  };
  d.host.backward = [](const std::any& pa, bool training, const std::vector<OpReq>& req,
                       const std::vector<NDArray>& out_grads, const std::vector<NDArray>& in,
                       const std::vector<NDArray>&, const std::vector<NDArray>& in_grads, const std::vector<NDArray>&) {
    backward_by_rerunning(in, out_grads, in_grads, req, training,
                          [&pa](const std::vector<NDArray>& x) { return unroll(param<ForeachParam>(pa), x); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
