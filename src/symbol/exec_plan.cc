// Building an executor's plan: values and steps from the graph, copies between contexts,
// fusion, the backward pass and memory planning.
#include "exec_plan.h"

#include <algorithm>
#include <set>

#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "graph.h"
#include "infer.h"

namespace braid::symbol::detail {
namespace {

class PlanBuilder {
 public:
  PlanBuilder(const std::vector<Entry>& outputs, const BindInfo& info) : info_(info), g_(index_graph(outputs)) {}

  Plan build() {
    infer();
    make_values();
    make_steps();
    if (info_.options.channels_last) use_channels_last(plan_);
    if (info_.options.fuse) {
      fuse_relu(plan_);
      fuse_elementwise(plan_);
    }
    make_backward();
    plan_memory(plan_, info_.options.plan_memory);
    plan_.stats.forward_kernels = static_cast<int>(plan_.steps.size());
    plan_.bulk = info_.options.bulk;
    for (const auto& s : plan_.steps) plan_.bulk = plan_.bulk && s.ctx == plan_.steps[0].ctx;
    for (const auto& s : plan_.steps) plan_.stats.backward_kernels += s.backward ? 1 : 0;
    return std::move(plan_);
  }

 private:
  void infer() {
    shapes_.assign(g_.num_entries(), Shape());
    types_.assign(g_.num_entries(), kDTypeUnknown);
    int arg = 0, aux = 0;
    for (uint32_t i = 0; i < g_.nodes.size(); ++i) {
      if (!g_.nodes[i]->is_variable()) continue;
      uint32_t e = g_.entry_id(i, 0);
      if (g_.is_aux[i]) {
        shapes_[e] = info_.aux_shapes.at(aux);
        types_[e] = info_.aux_types.at(aux++);
      } else {
        shapes_[e] = info_.arg_shapes.at(arg);
        types_[e] = info_.arg_types.at(arg++);
      }
    }
    bool shapes_known = infer_shapes(g_, shapes_);
    bool types_known = infer_types(g_, types_);
    for (const auto& n : g_.nodes)
      BRAID_CHECK(shapes_known || !n->op || !n->op->value_dependent_shape, "bind: the output shapes of node '", n->name,
                  "' (", n->op->name, ") depend on its input values, which a bound graph cannot plan for; run it ",
                  "imperatively, or through a hybridized block or CachedOp, which run such graphs op by op");
    for (uint32_t i = 0; i < g_.nodes.size(); ++i)
      for (uint32_t k = 0; k < g_.nodes[i]->num_outputs(); ++k) {
        uint32_t e = g_.entry_id(i, k);
        BRAID_CHECK(shapes_known || shapes_[e].fully_known(), "bind: cannot infer the shape of output ", k,
                    " of node '", g_.nodes[i]->name, "' (got ", shapes_[e], "); give the input shapes");
        BRAID_CHECK(types_known || types_[e] != kDTypeUnknown, "bind: cannot infer the dtype of output ", k,
                    " of node '", g_.nodes[i]->name, "'");
      }
  }

  Context node_ctx(const Node& n) const {
    auto it = n.attrs.find("__ctx_group__");
    if (it == n.attrs.end()) return info_.ctx;
    auto c = info_.group2ctx.find(it->second);
    return c == info_.group2ctx.end() ? info_.ctx : c->second;
  }

  void make_values() {
    int arg = 0, aux = 0;
    plan_.values.resize(g_.num_entries());
    for (uint32_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = *g_.nodes[i];
      for (uint32_t k = 0; k < n.num_outputs(); ++k) {
        Value& v = plan_.values[g_.entry_id(i, k)];
        v.shape = shapes_[g_.entry_id(i, k)];
        v.dtype = types_[g_.entry_id(i, k)];
        if (!n.is_variable()) {
          v.ctx = node_ctx(n);
        } else if (g_.is_aux[i]) {
          v.kind = Value::Kind::Aux;
          v.index = aux;
          v.ctx = info_.aux_ctx.at(aux++);
        } else {
          v.kind = Value::Kind::Arg;
          v.index = arg;
          v.ctx = info_.arg_ctx.at(arg++);
        }
      }
    }
    plan_.outputs = g_.outputs;
  }

  /// The value of `v` on context `ctx`: `v` itself, or a copy made by a step pushed now.
  uint32_t on_context(uint32_t v, Context ctx) {
    if (plan_.values[v].ctx == ctx) return v;
    auto key = std::make_pair(v, ctx.str());
    if (auto it = copies_.find(key); it != copies_.end()) return it->second;
    Value copy = plan_.values[v];
    copy.kind = Value::Kind::Planned;
    copy.index = -1;
    copy.ctx = ctx;
    plan_.values.push_back(copy);
    uint32_t id = static_cast<uint32_t>(plan_.values.size() - 1);
    Step s;
    s.def = &op::Registry::get().find("_copyto");
    s.name = cat("copy to ", ctx);
    s.ctx = ctx;
    s.inputs = {v};
    s.num_args = 1;
    s.outputs = {id};
    plan_.steps.push_back(std::move(s));
    copies_[key] = id;
    return id;
  }

  void make_steps() {
    for (uint32_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = *g_.nodes[i];
      if (n.is_variable()) continue;
      Step s;
      s.def = n.op;
      s.param = n.param;
      s.attrs = n.op_attrs();
      s.name = n.name;
      s.ctx = node_ctx(n);
      if (!s.def->runs_on_host())
        s.def->kernels(s.ctx);  // at bind: throws when the op cannot run on the node's context
      s.num_args = n.num_arguments();
      s.num_visible = n.num_visible_outputs();
      for (uint32_t e : g_.input_entries[i]) s.inputs.push_back(on_context(e, s.ctx));
      for (uint32_t k = 0; k < n.num_outputs(); ++k) s.outputs.push_back(g_.entry_id(i, k));
      plan_.steps.push_back(std::move(s));
    }
  }

  bool wants_grad(uint32_t v) const {
    const Value& val = plan_.values[v];
    if (val.kind == Value::Kind::Arg) return info_.grad_req[static_cast<size_t>(val.index)] != GradReq::Null;
    return needs_grad_.count(v) > 0;
  }

  static bool zero_gradient(const Step& s) {
    if (s.def) return s.def->zero_gradient;
    return std::any_of(s.chain->begin(), s.chain->end(), [](const FusedOp& f) { return f.def->zero_gradient; });
  }

  static bool differentiable(const Step& s) {
    if (s.def) return s.def->has_gradient();
    for (const auto& f : *s.chain)
      if (!f.def->has_gradient()) return false;
    return true;
  }

  /// The gradient value of forward value `v`: the bound gradient array for an argument.
  uint32_t grad_of(uint32_t v) {
    const Value& val = plan_.values[v];
    if (auto it = grad_.find(v); it != grad_.end()) return it->second;
    Value g = val;
    if (val.kind == Value::Kind::Arg) {
      g.kind = Value::Kind::ArgGrad;
    } else {
      g.kind = Value::Kind::Planned;
      g.index = -1;
    }
    plan_.values.push_back(g);
    return grad_[v] = static_cast<uint32_t>(plan_.values.size() - 1);
  }

  /// Marks the steps whose backward runs: those with an argument that leads back to a bound
  /// argument wanting a gradient. Then assigns gradient values and how each is stored: the
  /// first writer of a gradient writes, later ones add (an argument with GradReq::Add: all add).
  void make_backward() {
    std::vector<bool> leads(plan_.steps.size(), false);  // an argument leads back to a wanted gradient
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const Step& s = plan_.steps[i];
      for (size_t k = 0; k < s.num_args; ++k) leads[i] = leads[i] || wants_grad(s.inputs[k]);
      if (leads[i])
        for (uint32_t o : s.outputs) needs_grad_.insert(o);
    }
    // MXNet's zero propagation: only steps a gradient reaches from the outputs run backward;
    // BlockGrad and the other zero-gradient operators stop it, so what lies before them is skipped.
    std::set<uint32_t> reached(plan_.outputs.begin(), plan_.outputs.end());
    for (size_t i = plan_.steps.size(); i-- > 0;) {
      Step& s = plan_.steps[i];
      bool from_outputs = std::any_of(s.outputs.begin(), s.outputs.end(), [&](uint32_t o) { return reached.count(o); });
      if (!leads[i] || !from_outputs) {
        ++plan_.stats.skipped_backward;
        for (uint32_t o : s.outputs) needs_grad_.erase(o);
        continue;
      }
      BRAID_CHECK(differentiable(s), "bind: a gradient is wanted through node '", s.name, "', but its operator ",
                  s.def ? s.def->name : std::string("(fused)"),
                  " has none; set grad_req to null for the arguments before it, or cut the graph with BlockGrad");
      s.backward = true;
      if (!zero_gradient(s)) reached.insert(s.inputs.begin(), s.inputs.begin() + static_cast<long>(s.num_args));
    }
    std::map<uint32_t, int> writers;  // gradient value -> contributions so far
    plan_.arg_grad_written.assign(info_.grad_req.size(), false);
    plan_.head_grads.assign(plan_.outputs.size(), kNoValue);
    for (size_t i = 0; i < plan_.outputs.size(); ++i) {
      uint32_t v = plan_.outputs[i];
      if (plan_.values[v].kind != Value::Kind::Planned || !needs_grad_.count(v)) continue;
      plan_.head_grads[i] = grad_of(v);
      ++writers[plan_.head_grads[i]];
    }
    for (auto it = plan_.steps.rbegin(); it != plan_.steps.rend(); ++it) {
      Step& s = *it;
      if (!s.backward) continue;
      plan_.has_backward = true;
      const bool zero = zero_gradient(s);  // reads no output gradient: none is made or zeroed for it
      for (size_t k = 0; k < s.num_visible && !zero; ++k) {
        uint32_t g = grad_of(s.outputs[k]);
        if (writers[g] == 0) plan_.zero_grads.push_back(g);  // an output nothing reads
        ++writers[g];                                        // zeros count as the first writer
        s.out_grads.push_back(g);
      }
      for (size_t k = 0; k < s.num_args; ++k) {
        uint32_t in = s.inputs[k];
        if (!wants_grad(in) && info_.options.all_input_grads) {  // a buffer of its own, read by no one
          Value scratch = plan_.values[in];
          scratch.kind = Value::Kind::Planned;
          scratch.index = -1;
          plan_.values.push_back(scratch);
          s.in_grads.push_back(static_cast<uint32_t>(plan_.values.size() - 1));
          s.in_grad_req.push_back(op::OpReq::Write);
          continue;
        }
        if (!wants_grad(in)) {
          s.in_grads.push_back(kNoValue);
          s.in_grad_req.push_back(op::OpReq::Null);
          continue;
        }
        uint32_t g = grad_of(in);
        const Value& val = plan_.values[in];
        bool add = writers[g]++ > 0 ||
                   (val.kind == Value::Kind::Arg && info_.grad_req[static_cast<size_t>(val.index)] == GradReq::Add);
        s.in_grads.push_back(g);
        s.in_grad_req.push_back(add ? op::OpReq::Add : op::OpReq::Write);
        if (!add && val.kind == Value::Kind::Arg) plan_.arg_grad_written[static_cast<size_t>(val.index)] = true;
      }
      if (zero) {
        // Zero by definition: zeros where it would write, nothing where it would add, and no kernel.
        for (size_t k = 0; k < s.in_grads.size(); ++k)
          if (s.in_grad_req[k] == op::OpReq::Write) plan_.zero_grads.push_back(s.in_grads[k]);
        s.backward = false;
      }
    }
    // A head gradient is read where a backward that is not all zeros takes it as an output gradient.
    plan_.head_grad_read.assign(plan_.outputs.size(), false);
    for (const Step& s : plan_.steps)
      for (size_t i = 0; i < plan_.outputs.size(); ++i)
        if (plan_.head_grads[i] != kNoValue && s.backward &&
            std::find(s.out_grads.begin(), s.out_grads.end(), plan_.head_grads[i]) != s.out_grads.end())
          plan_.head_grad_read[i] = true;
    // An argument wanting a gradient that none reaches (cut by BlockGrad) gets zeros, as in MXNet.
    for (uint32_t v = 0; v < plan_.values.size(); ++v) {
      const Value& val = plan_.values[v];
      if (val.kind != Value::Kind::Arg) continue;
      auto i = static_cast<size_t>(val.index);
      if (info_.grad_req[i] != GradReq::Write || plan_.arg_grad_written[i]) continue;
      plan_.zero_grads.push_back(grad_of(v));
      plan_.arg_grad_written[i] = true;
      plan_.has_backward = true;
    }
  }

  const BindInfo& info_;
  IndexedGraph g_;
  Plan plan_;
  std::vector<Shape> shapes_;
  std::vector<DType> types_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> copies_;
  std::set<uint32_t> needs_grad_;
  std::map<uint32_t, uint32_t> grad_;
};

}  // namespace

Plan make_plan(const std::vector<Entry>& outputs, const BindInfo& info) { return PlanBuilder(outputs, info).build(); }

}  // namespace braid::symbol::detail
