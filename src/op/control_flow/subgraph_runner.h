#pragma once
// Internal: a control-flow operator's subgraph, held in its parameter: parsed from the JSON the
// node keeps in attribute subgraph<i>, inferred and run (through a CachedOp) with one array per
// input, in the subgraph's list_inputs order.
#include <memory>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/param_reader.h"
#include "braid/symbol/cached_op.h"
#include "braid/symbol/symbol.h"

namespace braid::op::detail {

/// Shapes or dtypes of a subgraph's inputs (list_inputs order) and outputs.
template <class T>
struct SubgraphInference {
  std::vector<T> inputs, outputs;
};

class SubgraphRunner {
 public:
  SubgraphRunner() = default;
  /// `json`: the subgraph, as tojson writes it; `op` names the operator in errors.
  SubgraphRunner(const std::string& json, const std::string& op);

  const std::vector<std::string>& inputs() const { return inputs_; }
  size_t num_outputs() const { return graph_.num_outputs(); }
  /// Shapes (or dtypes) of the outputs and inputs from those of the inputs given (unknown: Shape()).
  SubgraphInference<Shape> infer_shape(const std::vector<Shape>& inputs) const;
  SubgraphInference<DType> infer_type(const std::vector<DType>& inputs) const;
  /// The outputs for `feed` (one array per input). Recorded by autograd when it records.
  std::vector<NDArray> run(const std::vector<NDArray>& feed) const;

 private:
  Symbol graph_;
  std::vector<std::string> inputs_;
  std::vector<size_t> arg_at_, aux_at_;  // per argument / aux state: its index in inputs_
  std::shared_ptr<symbol::CachedOp> op_;

  template <class T>
  SubgraphInference<T> by_input(const InferResult<T>& r) const;
};

/// Subgraph `index` of a node's attributes (attribute "subgraph<index>").
SubgraphRunner read_subgraph(ParamReader& reader, int index, const std::string& op);

/// Where each of `count` node inputs goes among a subgraph's inputs: a tuple attribute of indices.
std::vector<size_t> read_locations(ParamReader& reader, const std::string& key, size_t subgraph_inputs,
                                   const std::string& op);

}  // namespace braid::op::detail
