#include "infer.h"

#include "braid/base/dim_math.h"
#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"

namespace braid::symbol::detail {
namespace {

std::string node_label(const Node& n) { return cat("node '", n.name, "' (", n.op_name, ")"); }

std::string shape_list(const std::vector<Shape>& shapes) {
  std::string s;
  for (const auto& x : shapes) s += cat(s.empty() ? "" : ", ", x);
  return s;
}

/// The op's shape inference, then a check that no shape came out negative or too large to count,
/// which an overflow in a model's attributes (num_hidden, reshape, repeats) would otherwise leave.
void infer_node_shapes(const Node& n, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux) {
  const std::vector<Shape> given = in;
  try {
    n.op->infer_shape(n.param, in, out, aux);
    for (size_t k = 0; k < in.size(); ++k) check_shape(in[k], cat("input ", k));
    for (size_t k = 0; k < out.size(); ++k) check_shape(out[k], cat("output ", k));
    for (size_t k = 0; k < aux.size(); ++k) check_shape(aux[k], cat("auxiliary state ", k));
  } catch (const Error& e) {
    throw Error(cat(e.what(), " (input shapes: ", shape_list(given), ")"));
  }
}

/// Sweeps the op nodes forward, then backward, until nothing changes. At each node `infer`
/// (the op's shape or type inference) completes the node's values, and `merge(current, found,
/// node)` stores each result, returning whether it changed anything.
template <class T, class Infer, class Merge>
void sweep(const IndexedGraph& g, std::vector<T>& values, const char* what, Infer infer, Merge merge) {
  auto visit = [&](uint32_t i) {
    const Node& n = *g.nodes[i];
    if (n.is_variable()) return false;
    size_t nargs = n.num_arguments();
    std::vector<T> in, aux, out;
    for (size_t k = 0; k < n.inputs.size(); ++k) (k < nargs ? in : aux).push_back(values[g.input_entries[i][k]]);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) out.push_back(values[g.entry_id(i, k)]);
    try {
      infer(n, in, out, aux);
    } catch (const Error& e) {
      throw Error(cat(what, " inference failed at ", node_label(n), ": ", e.what()));
    }
    bool changed = false;
    for (size_t k = 0; k < n.inputs.size(); ++k)
      changed |= merge(values[g.input_entries[i][k]], k < nargs ? in[k] : aux[k - nargs], n);
    for (uint32_t k = 0; k < n.num_outputs(); ++k) changed |= merge(values[g.entry_id(i, k)], out[k], n);
    return changed;
  };
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    for (uint32_t i = 0; i < g.nodes.size(); ++i) changed |= visit(i);
    for (uint32_t i = static_cast<uint32_t>(g.nodes.size()); i-- > 0;) changed |= visit(i);
    if (!changed) return;
  }
}

}  // namespace

bool infer_shapes(const IndexedGraph& g, std::vector<Shape>& shapes) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    auto it = n.attrs.find("__shape__");
    if (!n.is_variable() || it == n.attrs.end()) continue;
    // As MXNet: a variable's __shape__ stands in for a shape nobody gave; a given one wins.
    Shape& given = shapes[g.entry_id(i, 0)];
    if (!given.known()) given = Shape(op::parse_tuple(it->second));
  }
  sweep(g, shapes, "shape", infer_node_shapes, [](Shape& cur, const Shape& found, const Node& n) {
    if (found == cur) return false;
    op::merge_shape(cur, found, n.name, "an input or output");
    return true;
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
    if (n.is_variable() && it != n.attrs.end() && t == kDTypeUnknown) t = static_cast<DType>(op::parse_int(it->second));
  }
  sweep(
      g, types, "type", [](const Node& n, auto& in, auto& out, auto& aux) { n.op->infer_type(n.param, in, out, aux); },
      [](DType& cur, DType found, const Node& n) {
        if (found == kDTypeUnknown || found == cur) return false;
        BRAID_CHECK(cur == kDTypeUnknown, "node '", n.name, "' (", n.op_name, "): ", dtype_name(cur),
                    " conflicts with ", dtype_name(found));
        cur = found;
        return true;
      });
  for (DType t : types)
    if (t == kDTypeUnknown) return false;
  return true;
}

}  // namespace braid::symbol::detail
