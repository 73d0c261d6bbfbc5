#include "infer.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "../op/op_util.h"

namespace braid::symbol::detail {
namespace {

/// Runs `fn(node id)` over op nodes forward, then backward, until `changed` stays false.
template <class Fn>
void sweep(const IndexedGraph& g, Fn fn) {
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    for (uint32_t i = 0; i < g.nodes.size(); ++i) changed |= fn(i);
    for (uint32_t i = static_cast<uint32_t>(g.nodes.size()); i-- > 0;) changed |= fn(i);
    if (!changed) return;
  }
}

std::string node_label(const Node& n) { return cat("node '", n.name, "' (", n.op_name, ")"); }

}  // namespace

bool infer_shapes(const IndexedGraph& g, std::vector<Shape>& shapes) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    auto it = n.attrs.find("__shape__");
    if (!n.is_variable() || it == n.attrs.end()) continue;
    Shape hint(op::parse_tuple(it->second));
    op::detail::merge_shape(shapes[g.entry_id(i, 0)], hint, n.name, "its __shape__ attribute");
  }
  sweep(g, [&](uint32_t i) {
    const Node& n = *g.nodes[i];
    if (n.is_variable()) return false;
    size_t nargs = n.num_arguments();
    std::vector<Shape> in, aux, out;
    for (size_t k = 0; k < n.inputs.size(); ++k) (k < nargs ? in : aux).push_back(shapes[g.input_entries[i][k]]);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) out.push_back(shapes[g.entry_id(i, k)]);
    try {
      n.op->infer_shape(n.param, in, out, aux);
    } catch (const Error& e) {
      throw Error(cat("shape inference failed at ", node_label(n), ": ", e.what()));
    }
    bool changed = false;
    auto update = [&](uint32_t entry, const Shape& s) {
      if (s == shapes[entry]) return;
      op::detail::merge_shape(shapes[entry], s, n.name, "an input or output");
      changed = true;
    };
    for (size_t k = 0; k < n.inputs.size(); ++k) update(g.input_entries[i][k], k < nargs ? in[k] : aux[k - nargs]);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) update(g.entry_id(i, k), out[k]);
    return changed;
  });
  for (const auto& s : shapes)
    if (!s.fully_known()) return false;
  return true;
}

bool infer_types(const IndexedGraph& g, std::vector<DType>& types) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    auto it = n.attrs.find("__dtype__");
    DType& t = types[g.entry_id(i, 0)];
    if (n.is_variable() && it != n.attrs.end() && t == kDTypeUnknown)
      t = static_cast<DType>(op::parse_int(it->second));
  }
  sweep(g, [&](uint32_t i) {
    const Node& n = *g.nodes[i];
    if (n.is_variable()) return false;
    size_t nargs = n.num_arguments();
    std::vector<DType> in, aux, out;
    for (size_t k = 0; k < n.inputs.size(); ++k) (k < nargs ? in : aux).push_back(types[g.input_entries[i][k]]);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) out.push_back(types[g.entry_id(i, k)]);
    try {
      n.op->infer_type(n.param, in, out, aux);
    } catch (const Error& e) {
      throw Error(cat("type inference failed at ", node_label(n), ": ", e.what()));
    }
    bool changed = false;
    auto update = [&](uint32_t entry, DType t) {
      if (t == kDTypeUnknown || t == types[entry]) return;
      BRAID_CHECK(types[entry] == kDTypeUnknown, "type inference failed at ", node_label(n), ": ",
                  dtype_name(types[entry]), " conflicts with ", dtype_name(t));
      types[entry] = t;
      changed = true;
    };
    for (size_t k = 0; k < n.inputs.size(); ++k) update(g.input_entries[i][k], k < nargs ? in[k] : aux[k - nargs]);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) update(g.entry_id(i, k), out[k]);
    return changed;
  });
  for (DType t : types)
    if (t == kDTypeUnknown) return false;
  return true;
}

}  // namespace braid::symbol::detail
