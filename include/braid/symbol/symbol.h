#pragma once
/// Symbol: a declared computation graph (MXNet's mx.sym.Symbol). A cheap value handle over a
/// list of output entries of shared nodes; composing symbols builds a graph, nothing is computed
/// until an Executor binds it to arrays.
///
///   Symbol data = Symbol::Variable("data");
///   Symbol fc = sym::make("FullyConnected", {{"data", data}}, {{"num_hidden", "10"}}, "fc1");
///   fc.list_arguments();   // {"data", "fc1_weight", "fc1_bias"}
///   fc.infer_shape({{"data", Shape{8, 784}}}).arg_shapes;  // (8,784), (10,784), (10,)
///   fc.save("fc-symbol.json");  // MXNet 1.9's JSON
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "braid/symbol/node.h"

namespace braid {

/// What Symbol::Variable stores as hidden attributes besides `attrs`.
struct VariableOptions {
  Shape shape;                    // __shape__ (0 dims: unknown)
  std::optional<DType> dtype;     // __dtype__
  std::optional<double> lr_mult;  // __lr_mult__
  std::optional<double> wd_mult;  // __wd_mult__
  std::string init;               // __init__ (an initializer's JSON, or a name such as "zeros")
};

/// Shapes (or dtypes) of the arguments, outputs and auxiliary states, in list order.
template <class T>
struct InferResult {
  std::vector<T> arg;
  std::vector<T> out;
  std::vector<T> aux;
};

class Symbol {
 public:
  /// The empty symbol (no outputs).
  Symbol() = default;
  explicit Symbol(std::vector<symbol::Entry> outputs) : outputs_(std::move(outputs)) {}

  static Symbol Variable(const std::string& name, const op::AttrMap& attrs = {}, const VariableOptions& options = {});
  /// One symbol with the outputs of all of `symbols`, in order.
  static Symbol Group(const std::vector<Symbol>& symbols);

  bool empty() const { return outputs_.empty(); }
  const std::vector<symbol::Entry>& outputs() const { return outputs_; }
  size_t num_outputs() const { return outputs_.size(); }
  /// The name of the single output's node; throws for a group.
  const std::string& name() const;

  /// Variables read as arguments, in depth-first order of first use (MXNet's order).
  std::vector<std::string> list_arguments() const;
  /// `<node>_output`, `<node>_output<i>` for several outputs, or the variable's name.
  std::vector<std::string> list_outputs() const;
  /// Variables read as auxiliary states (BatchNorm's moving_mean, moving_var).
  std::vector<std::string> list_auxiliary_states() const;
  /// Every variable, arguments and auxiliary states, in depth-first order.
  std::vector<std::string> list_inputs() const;

  /// Every visible output of every node, variables included, in depth-first order.
  Symbol get_internals() const;
  /// The inputs of the outputs' nodes (each node once), grouped; empty for variables.
  Symbol get_children() const;
  /// A copy of the graph with argument variables replaced (MXNet's Symbol.__call__): `args`
  /// replace the arguments in list_arguments order, `kwargs` variables by name; throws for a
  /// name that is not a variable of the symbol; `name` renames the first output's node. This
  /// symbol is unchanged.
  Symbol compose(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs,
                 const std::string& name = "") const;
  /// Output `i`, or the output named `name` (as list_outputs spells it); throws naming the
  /// outputs there are.
  Symbol operator[](size_t i) const;
  Symbol operator[](const std::string& name) const;

  /// An attribute of the single output's node.
  std::optional<std::string> attr(const std::string& key) const;
  /// Every attribute of the single output's node.
  op::AttrMap list_attr() const;
  /// node name -> its attributes, for every node with any (MXNet's attr_dict).
  std::map<std::string, op::AttrMap> attr_dict() const;
  /// Sets an attribute on the single output's node (shared by every symbol holding that node).
  void set_attr(const std::string& key, const std::string& value);

  /// Completes shapes from the known ones (by argument name; 0 dims are unknown). infer_shape
  /// throws naming the arguments it could not complete; infer_shape_partial leaves them unknown
  /// (Shape() or 0 dims). Conflicting shapes throw naming the node.
  InferResult<Shape> infer_shape(const std::map<std::string, Shape>& known) const;
  InferResult<Shape> infer_shape_partial(const std::map<std::string, Shape>& known) const;
  /// Completes dtypes (kDTypeUnknown where none could be found).
  InferResult<DType> infer_type(const std::map<std::string, DType>& known) const;

  /// MXNet 1.9's JSON (mxnet_version 10901), laid out as dmlc-core writes it. `np_shape`:
  /// written under NumPy shape semantics (attrs gets is_np_shape, as MXNet's does).
  std::string tojson(bool np_shape = false) const;
  /// Reads MXNet's JSON of any version: `attrs`, `attr` or `param`; 2- or 3-element entries;
  /// with or without `node_row_ptr`. Unknown operators throw naming the operator and node.
  static Symbol fromjson(const std::string& json);
  /// tojson written atomically to `path`.
  void save(const std::string& path, bool np_shape = false) const;
  static Symbol load(const std::string& path);

 private:
  const symbol::Node& single_node(const char* what) const;

  std::vector<symbol::Entry> outputs_;
};

}  // namespace braid
