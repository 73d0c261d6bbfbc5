#include "subgraph_runner.h"

#include <algorithm>
#include <map>

#include "braid/op/param_reader.h"

namespace braid::op::detail {
namespace {

size_t position(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

SubgraphRunner::SubgraphRunner(const std::string& json, const std::string& op)
    : graph_(Symbol::fromjson(json)), inputs_(graph_.list_inputs()) {
  std::vector<std::string> sorted = inputs_;
  std::sort(sorted.begin(), sorted.end());
  BRAID_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "operator ", op,
              ": the subgraph's inputs do not have unique names");
  for (const auto& a : graph_.list_arguments()) arg_at_.push_back(position(inputs_, a));
  for (const auto& a : graph_.list_auxiliary_states()) aux_at_.push_back(position(inputs_, a));
  op_ = std::make_shared<symbol::CachedOp>(graph_);
}

template <class T>
SubgraphInference<T> SubgraphRunner::by_input(const InferResult<T>& r) const {
  SubgraphInference<T> s;
  s.inputs.resize(inputs_.size());
  for (size_t i = 0; i < arg_at_.size(); ++i) s.inputs[arg_at_[i]] = r.arg[i];
  for (size_t i = 0; i < aux_at_.size(); ++i) s.inputs[aux_at_[i]] = r.aux[i];
  s.outputs = r.out;
  return s;
}

SubgraphInference<Shape> SubgraphRunner::infer_shape(const std::vector<Shape>& inputs) const {
  std::map<std::string, Shape> known;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs[i].known()) known.emplace(inputs_[i], inputs[i]);
  return by_input(graph_.infer_shape_partial(known));
}

SubgraphInference<DType> SubgraphRunner::infer_type(const std::vector<DType>& inputs) const {
  std::map<std::string, DType> known;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs[i] != kDTypeUnknown) known.emplace(inputs_[i], inputs[i]);
  return by_input(graph_.infer_type(known));
}

std::vector<NDArray> SubgraphRunner::run(const std::vector<NDArray>& feed) const {
  std::vector<NDArray> args, aux;
  for (size_t i : arg_at_) args.push_back(feed[i]);
  for (size_t i : aux_at_) aux.push_back(feed[i]);
  return (*op_)(args, aux);
}

SubgraphRunner read_subgraph(ParamReader& reader, int index, const std::string& op) {
  return SubgraphRunner(reader.get<std::string>(cat("subgraph", index)), op);
}

std::vector<size_t> read_locations(ParamReader& reader, const std::string& key, size_t subgraph_inputs,
                                   const std::string& op) {
  const Shape given = reader.get<Shape>(key);
  std::vector<size_t> locations;
  for (int i = 0; i < given.ndim(); ++i) {
    BRAID_CHECK(given[i] >= 0 && static_cast<size_t>(given[i]) < subgraph_inputs, "operator ", op, ": ", key,
                " names input ", given[i], " of a subgraph with ", subgraph_inputs, " inputs");
    locations.push_back(static_cast<size_t>(given[i]));
  }
  return locations;
}

}  // namespace braid::op::detail
