// The backward pass: a reverse walk of the recorded graph that pushes each node's gradient
// computation to the engine and sums the gradients reaching each output.
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "grad_graph.h"
#include "imperative/push_op.h"
#include "imperative/recorder.h"
#include "imperative/tape.h"
#include "tape_walk.h"

namespace braid::autograd {
namespace {

using imperative::Access;
using imperative::Entry;
using imperative::Node;
using imperative::NodeKind;
using NodePtr = std::shared_ptr<Node>;

// Whether `grad` is `head`'s shape with more rows (first axis), which MXNet's backward accepts.
bool has_extra_rows(const Shape& grad, const Shape& head) {
  if (grad.ndim() != head.ndim() || head.ndim() == 0 || grad[0] <= head[0]) return false;
  for (int d = 1; d < head.ndim(); ++d)
    if (grad[d] != head[d]) return false;
  return true;
}

class Pass {
 public:
  /// Seeds the gradients of the heads and runs every node back to the variables. With
  /// `create_graph` (called while recording), the gradients are computed by recorded operators,
  /// so that they can be differentiated in turn.
  /// With `into_variables` (backward()), a variable that receives its gradient from one place
  /// only, with req write, gets it written straight into its grad() buffer by that kernel.
  Pass(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads, bool create_graph = false,
       bool into_variables = false)
      : create_graph_(create_graph) {
    BRAID_CHECK(head_grads.empty() || head_grads.size() == heads.size(), "backward: ", heads.size(), " heads but ",
                head_grads.size(), " head gradients");
    std::vector<Entry> entries;
    for (size_t i = 0; i < heads.size(); ++i) {
      const NDArray& h = heads[i];
      BRAID_CHECK(!h.is_none(), "backward: head ", i, " is None");
      const Entry& e = Access::entry(h);
      BRAID_CHECK(e, "backward: head ", i, " (shape ", h.shape(),
                  ") is not part of a recorded graph; compute it "
                  "inside autograd::RecordScope from arrays with attach_grad()");
      NDArray g = i < head_grads.size() ? head_grads[i] : NDArray();
      if (g.is_sparse()) g = sparse::cast_storage(g, StorageType::Default);  // the kernels read dense gradients
      if (g.is_none()) {
        g = nd::ones(h.shape(), h.ctx(), h.dtype());
      } else if (has_extra_rows(g.shape(), h.shape())) {
        g = g.slice(0, h.shape()[0]);  // MXNet's kernels read such a gradient's first rows
      } else {
        BRAID_CHECK(g.shape() == h.shape(), "backward: head gradient ", i, " has shape ", g.shape(),
                    " but the head has ", h.shape());
      }
      entries.push_back(e);
      add(e, g);
    }
    order_ = detail::topological_order(entries);
    if (into_variables) find_single_use_variables();
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      current_ = *it;
      if ((*it)->kind == NodeKind::Op) run_op(**it);
      if ((*it)->kind == NodeKind::View) run_view(**it);
      if ((*it)->kind == NodeKind::Function) run_function(**it);
    }
  }

  const std::vector<NodePtr>& order() const { return order_; }

  /// The summed gradient reaching variable `v`, or None.
  NDArray gradient(const Node& v) const {
    auto it = grads_.find(&v);
    return it == grads_.end() ? NDArray() : it->second[0];
  }

 private:
  void add(const Entry& e, const NDArray& g) {
    auto& slots = grads_[e.node.get()];
    if (slots.size() <= static_cast<size_t>(e.index)) slots.resize(static_cast<size_t>(e.index) + 1);
    NDArray& sum = slots[static_cast<size_t>(e.index)];
    sum = sum.is_none() ? g : nd::invoke1("elemwise_add", {sum, g});
  }

  // Variables with req write that one argument of one node feeds (and that are no head).
  void find_single_use_variables() {
    std::unordered_map<const Node*, int> uses;
    for (const auto& n : order_)
      for (const Entry& p : n->parents)
        if (p && p.node->kind == NodeKind::Variable) ++uses[p.node.get()];
    for (const auto& [node, count] : uses)
      if (count == 1 && node->req == GradReq::Write && !grads_.count(node) && !node->grad.is_sparse())
        direct_.insert(node);
  }

  void run_op(Node& n) {
    auto it = grads_.find(&n);
    if (it == grads_.end()) return;  // nothing downstream of this node needs a gradient
    std::vector<NDArray> out_grads = it->second;
    out_grads.resize(n.outputs.size());
    for (int k = 0; k < n.num_visible; ++k) {
      auto& g = out_grads[static_cast<size_t>(k)];
      const NDArray& o = n.outputs[static_cast<size_t>(k)];
      if (g.is_none()) g = nd::zeros(o.shape(), o.ctx(), o.dtype());
    }
    if (create_graph_) return run_op_recorded(n, out_grads);
    std::vector<NDArray> in_grads = kernel_gradients(n, out_grads);
    for (size_t i = 0; i < n.parents.size(); ++i)
      if (n.parents[i]) add(n.parents[i], in_grads[i]);
  }

  /// create_graph: the node's gradient from operators over its arrays put back in the graph.
  /// Gradients that came out constant (the derivative does not depend on the node's arrays, or
  /// is zero) are still tied to them, with no gradient, so that they can be differentiated (to
  /// zeros) as in MXNet. An op without such a formula computes its gradient with its kernel;
  /// differentiating that gradient again is an error naming the op.
  void run_op_recorded(Node& n, const std::vector<NDArray>& out_grads) {
    std::vector<NDArray> inputs, outputs, tied;
    for (size_t i = 0; i < n.inputs.size(); ++i)
      inputs.push_back(i < n.parents.size() && n.parents[i] ? Access::attached(n.inputs[i], n.parents[i])
                                                            : n.inputs[i].detach());
    for (size_t k = 0; k < n.outputs.size(); ++k)
      outputs.push_back(Access::attached(n.outputs[k], {current_, static_cast<int>(k)}));
    tied = inputs;
    for (const auto& g : out_grads)
      if (!g.is_none()) tied.push_back(g);
    std::optional<std::vector<NDArray>> formula =
        detail::gradient_from_ops(*n.def, n.param, inputs, outputs, out_grads);
    std::vector<NDArray> in_grads;
    imperative::BackwardFn then;
    if (formula) {
      in_grads = std::move(*formula);
      then = [](const std::vector<NDArray>&, const std::vector<bool>&, const std::vector<NDArray>&) {
        return std::vector<NDArray>{};
      };
    } else {
      in_grads = kernel_gradients(n, out_grads);
      const std::string name = n.def->name;
      then = [name](const std::vector<NDArray>&, const std::vector<bool>&,
                    const std::vector<NDArray>&) -> std::vector<NDArray> {
        throw Error("autograd: the gradient of operator " + name +
                    " cannot be differentiated again (it has no higher-order gradient in Braid); "
                    "take grad(create_graph=True) only through operators with one");
      };
    }
    in_grads.resize(n.parents.size());
    for (size_t i = 0; i < n.parents.size(); ++i) {
      if (!n.parents[i] || in_grads[i].is_none()) continue;
      if (!formula || !Access::entry(in_grads[i])) {
        in_grads[i] = Access::stripped(in_grads[i]).detach();  // a new array of its own to tie
        imperative::recorder()->record_function(tied, {in_grads[i]}, then);
      }
      add(n.parents[i], in_grads[i]);
    }
  }

  /// The node's argument gradients by its backward kernel (not recorded).
  std::vector<NDArray> kernel_gradients(Node& n, const std::vector<NDArray>& out_grads) {
    std::vector<NDArray> in_grads(n.parents.size());
    std::vector<op::OpReq> req(n.parents.size(), op::OpReq::Null);
    for (size_t i = 0; i < n.parents.size(); ++i) {
      if (!n.parents[i]) continue;
      const NDArray& x = n.inputs[i];
      const Node* v = n.parents[i].node.get();
      const bool direct =
          direct_.count(v) && v->grad.shape() == x.shape() && v->grad.dtype() == x.dtype() && v->grad.ctx() == x.ctx();
      in_grads[i] = direct ? v->grad : NDArray(x.shape(), x.ctx(), x.dtype());
      req[i] = op::OpReq::Write;
    }
    imperative::push_backward(*n.def, n.param, n.training, out_grads, n.inputs, n.outputs, in_grads, req);
    return in_grads;
  }

  void run_function(Node& n) {
    auto it = grads_.find(&n);
    if (it == grads_.end()) return;
    std::vector<NDArray> out_grads = it->second;
    out_grads.resize(n.outputs.size());
    for (size_t k = 0; k < out_grads.size(); ++k) {
      const NDArray& o = n.outputs[k];
      if (out_grads[k].is_none()) out_grads[k] = nd::zeros(o.shape(), o.ctx(), o.dtype());
    }
    std::vector<bool> wanted;
    std::vector<NDArray> into;
    for (const auto& p : n.parents) {
      wanted.push_back(static_cast<bool>(p));
      into.push_back(p && direct_.count(p.node.get()) ? p.node->grad : NDArray());
    }
    std::vector<NDArray> in_grads = n.backward_fn(out_grads, wanted, into);
    for (size_t i = 0; i < n.parents.size(); ++i)
      if (n.parents[i] && i < in_grads.size() && !in_grads[i].is_none()) add(n.parents[i], in_grads[i]);
  }

  void run_view(Node& n) {
    auto it = grads_.find(&n);
    if (it == grads_.end()) return;
    const NDArray& g = it->second[0];
    if (g.size() == n.parent_shape.size()) {
      add(n.parents[0], g.reshape(n.parent_shape.dims()));
      return;
    }
    NDArray full = nd::zeros(n.parent_shape, n.parent_ctx, n.parent_dtype);
    full.reshape({-1}).slice(n.view_offset, n.view_offset + g.size()).assign(g.reshape({-1}));
    add(n.parents[0], full);
  }

  bool create_graph_;
  std::unordered_set<const Node*> direct_;  // variables whose gradient is written into grad()
  NodePtr current_;                         // the node being run
  std::vector<NodePtr> order_;
  std::unordered_map<const Node*, std::vector<NDArray>> grads_;
};

void release(const std::vector<NodePtr>& order) {
  for (const auto& n : order) {
    if (n->kind == NodeKind::Variable) continue;
    n->freed = true;
    n->inputs.clear();
    n->outputs.clear();
    n->parents.clear();
    n->param.reset();
    n->backward_fn = nullptr;
  }
}

}  // namespace

void backward(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads, bool retain_graph,
              bool train_mode) {
  PauseScope pause(train_mode);
  Pass pass(heads, head_grads, false, /*into_variables=*/true);
  for (const auto& n : pass.order()) {
    if (n->kind != NodeKind::Variable || n->req == GradReq::Null) continue;
    NDArray g = pass.gradient(*n);
    n->fresh_grad = true;
    if (n->req == GradReq::Add) {
      if (!g.is_none()) n->grad += g;
    } else if (g.is_none()) {
      n->grad.fill(0);  // reached, but every path to it carries no gradient
    } else if (g.is_sparse() || n->grad.is_sparse() || g.var() != n->grad.var()) {  // else the kernel wrote it there
      g.copyto(n->grad);
    }
  }
  if (!retain_graph) release(pass.order());
}

std::vector<NDArray> grad(const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads, bool retain_graph, bool train_mode,
                          bool create_graph) {
  std::vector<const Node*> vars;
  for (size_t i = 0; i < variables.size(); ++i) {
    BRAID_CHECK(!variables[i].is_none(), "grad: variable ", i, " is None");
    const Entry& e = Access::entry(variables[i]);
    BRAID_CHECK(e && e.node->kind == NodeKind::Variable, "grad: variable ", i, " (shape ", variables[i].shape(),
                ") has no attach_grad(); mark it before recording");
    vars.push_back(e.node.get());
  }
  std::optional<PauseScope> pause;
  std::optional<RecordScope> record;
  if (create_graph)
    record.emplace(train_mode);
  else
    pause.emplace(train_mode);
  Pass pass(heads, head_grads, create_graph);
  std::vector<NDArray> out;
  for (size_t i = 0; i < vars.size(); ++i) {
    NDArray g = pass.gradient(*vars[i]);
    const NDArray& v = variables[i];
    // With create_graph the gradient itself is returned: it is the array of the recorded graph.
    out.push_back(g.is_none() ? nd::zeros(v.shape(), v.ctx(), v.dtype()) : create_graph ? g : g.copy());
  }
  if (!retain_graph) release(pass.order());
  return out;
}

}  // namespace braid::autograd
