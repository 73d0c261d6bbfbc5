#include "braid/autograd/get_symbol.h"

#include <unordered_map>

#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "braid/symbol/node.h"
#include "imperative/tape.h"
#include "tape_walk.h"

namespace braid::autograd {
namespace {

using imperative::NodeKind;

// Turns tape nodes into graph nodes, parents first.
class SymbolBuilder {
 public:
  symbol::Entry entry_of(const imperative::Entry& e) {
    return {made_.at(e.node.get()), static_cast<uint32_t>(e.index)};
  }

  void add(const imperative::Node& n) {
    switch (n.kind) {
      case NodeKind::Variable:
        made_[&n] = Symbol::Variable(cat("var", variables_++)).outputs()[0].node;
        return;
      case NodeKind::Op:
        made_[&n] = op_node(n);
        return;
      case NodeKind::View:
        made_[&n] = view_node(n);
        return;
      case NodeKind::Function:
        throw Error(
            "autograd.get_symbol: the recorded graph goes through a hybridized block's graph or a custom "
            "Function, whose operators the tape does not hold; call get_symbol on the outputs of blocks that "
            "are not hybridized");
    }
  }

 private:
  std::shared_ptr<symbol::Node> make(const op::OpDef& def, op::AttrMap attrs) {
    auto node = std::make_shared<symbol::Node>();
    node->op = &def;
    node->op_name = def.name;
    attrs.erase("ctx");  // where the recorded run happened
    node->attrs = std::move(attrs);
    symbol::parse_node_params(*node);
    node->name = cat("node_", ops_++);
    return node;
  }

  std::shared_ptr<symbol::Node> op_node(const imperative::Node& n) {
    auto node = make(*n.def, n.attrs);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const bool recorded = i < n.parents.size() && n.parents[i] && !n.parents[i].node->freed;
      node->inputs.push_back(recorded ? entry_of(n.parents[i])
                                      : Symbol::Variable(cat("null", variables_++)).outputs()[0]);
    }
    return node;
  }

  // A reshape or slice of the parent: the parent flattened, the view's elements sliced out, reshaped.
  std::shared_ptr<symbol::Node> view_node(const imperative::Node& n) {
    const op::Registry& ops = op::Registry::get();
    symbol::Entry e = entry_of(n.parents[0]);
    if (n.view_offset != 0 || n.view_shape.size() != n.parent_shape.size()) {
      auto flat = make(ops.find("Reshape"), {{"shape", "(-1,)"}});
      flat->inputs.push_back(e);
      auto cut = make(ops.find("slice_axis"), {{"axis", "0"},
                                               {"begin", std::to_string(n.view_offset)},
                                               {"end", std::to_string(n.view_offset + n.view_shape.size())}});
      cut->inputs.push_back({flat, 0});
      e = {cut, 0};
    }
    auto shaped = make(ops.find("Reshape"), {{"shape", n.view_shape.str()}});
    shaped->inputs.push_back(e);
    return shaped;
  }

  std::unordered_map<const imperative::Node*, std::shared_ptr<symbol::Node>> made_;
  int variables_ = 0, ops_ = 0;
};

}  // namespace

Symbol get_symbol(const NDArray& head) {
  const imperative::Entry& e = imperative::Access::entry(head);
  BRAID_CHECK(e, "autograd.get_symbol: the array was not computed while recording from an array with attach_grad");
  SymbolBuilder builder;
  for (const auto& node : detail::topological_order({e})) builder.add(*node);
  return Symbol(std::vector<symbol::Entry>{builder.entry_of(e)});
}

}  // namespace braid::autograd
