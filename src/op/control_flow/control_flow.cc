#include "control_flow.h"

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "imperative/tape.h"

namespace braid::op::detail {
namespace {

bool has_gradient(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}

}  // namespace

void register_control_flow_ops(Registry& r) {
  register_foreach_op(r);
  register_while_loop_op(r);
  register_cond_op(r);
}

std::vector<std::string> numbered_inputs(size_t n) {
  std::vector<std::string> names;
  for (size_t k = 0; k < n; ++k) names.push_back(cat("data", k));
  return names;
}

void write_outputs(const std::vector<NDArray>& results, const std::vector<NDArray>& out) {
  for (size_t j = 0; j < out.size(); ++j)
    if (out[j].shape().size() > 0) results[j].copyto(out[j]);
}

Shape with_leading_axis(int64_t length, const Shape& step) {
  std::vector<int64_t> dims{length};
  for (int i = 0; i < step.ndim(); ++i) dims.push_back(step[i]);
  return Shape(dims);
}

bool is_true(const NDArray& condition, const char* op) {
  BRAID_CHECK(condition.shape().size() == 1, "operator ", op, ": the condition must be one value; got shape ",
              condition.shape());
  return condition.scalar<double>() != 0;
}

void backward_by_rerunning(const std::vector<NDArray>& in, const std::vector<NDArray>& out_grads,
                           const std::vector<NDArray>& in_grads, const std::vector<OpReq>& req, bool training,
                           const std::function<std::vector<NDArray>(const std::vector<NDArray>&)>& forward) {
  std::vector<NDArray> copies, variables;
  std::vector<size_t> variable_of;
  for (size_t k = 0; k < in.size(); ++k) {
    NDArray x = in[k].detach();
    if (req[k] != OpReq::Null && has_gradient(x.dtype())) {
      x = in[k].copy();  // a variable of this backward only
      x.attach_grad();
      variable_of.push_back(k);
      variables.push_back(x);
    }
    copies.push_back(x);
  }
  if (variables.empty()) return;
  std::vector<NDArray> outputs;
  {
    autograd::RecordScope record(training);
    outputs = forward(copies);
  }
  // Outputs that depend on no input (a loop that ran no step pads with zeros) have no gradient.
  std::vector<NDArray> heads, head_grads;
  for (size_t j = 0; j < outputs.size(); ++j)
    if (imperative::needs_grad(outputs[j])) {
      heads.push_back(outputs[j]);
      head_grads.push_back(out_grads[j]);
    }
  if (heads.empty()) {
    for (size_t k : variable_of)
      if (req[k] == OpReq::Write) NDArray(in_grads[k]).fill(0);  // a handle to the same array
    return;
  }
  const std::vector<NDArray> grads = autograd::grad(heads, variables, head_grads, false, training);
  for (size_t i = 0; i < variables.size(); ++i) {
    const size_t k = variable_of[i];
    if (req[k] == OpReq::Add)
      nd::invoke("elemwise_add", {in_grads[k], grads[i]}, {}, {in_grads[k]});
    else
      grads[i].copyto(in_grads[k]);
  }
}

}  // namespace braid::op::detail
