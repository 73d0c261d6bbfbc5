#include "compressed_arguments.h"

#include <algorithm>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "graph.h"
#include "op_by_op.h"

namespace braid::symbol::detail {
namespace {

bool any_sparse(const std::vector<NDArray>& arrays) {
  return std::any_of(arrays.begin(), arrays.end(), [](const NDArray& a) { return !a.is_none() && a.is_sparse(); });
}

}  // namespace

std::vector<NDArray> dense_stand_ins(const std::vector<NDArray>& given, std::vector<size_t>& positions) {
  std::vector<NDArray> out = given;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].is_none() || !given[i].is_sparse()) continue;
    out[i] = sparse::cast_storage(given[i], StorageType::Default);
    positions.push_back(i);
  }
  return out;
}

std::shared_ptr<CompressedArrays> compressed_arrays(const std::vector<NDArray>& args,
                                                    const std::vector<NDArray>& arg_grads,
                                                    const std::vector<NDArray>& aux) {
  if (!any_sparse(args) && !any_sparse(arg_grads) && !any_sparse(aux)) return nullptr;
  auto c = std::make_shared<CompressedArrays>();
  c->args = args;
  c->arg_grads = arg_grads;
  c->aux = aux;
  return c;
}

std::map<std::string, StorageType> embedding_grad_stypes(const Symbol& symbol) {
  std::map<std::string, StorageType> stypes;
  dfs_visit(symbol.outputs(), [&](const NodePtr& n) {
    if (n->is_variable() || n->inputs.size() < 2 || !n->inputs[1].node->is_variable()) return;
    const std::string& op = n->op->name;
    if (op != "Embedding" && op != "_contrib_SparseEmbedding") return;
    auto sparse_grad = n->attrs.find("sparse_grad");
    const bool rows = op == "_contrib_SparseEmbedding" ||
                      (sparse_grad != n->attrs.end() &&
                       (sparse_grad->second == "True" || sparse_grad->second == "1" || sparse_grad->second == "true"));
    stypes[n->inputs[1].node->name] = rows ? StorageType::RowSparse : StorageType::Default;
  });
  return stypes;
}

void copy_in(const CompressedArrays& given, RunState& state) {
  for (size_t i : given.sparse_args) given.args[i].copyto(state.args[i]);
  for (size_t i : given.sparse_aux) given.aux[i].copyto(state.aux[i]);
}

void copy_out(const CompressedArrays& given, const RunState& state) {
  for (size_t i : given.sparse_grads) state.arg_grads[i].copyto(given.arg_grads[i]);
}

std::vector<StorageType> output_stypes(const std::vector<Entry>& outputs, const std::vector<NDArray>& args,
                                       const std::vector<NDArray>& aux) {
  auto zeros_like = [](const std::vector<NDArray>& arrays) {
    std::vector<NDArray> out;
    for (const NDArray& a : arrays)
      out.push_back(a.is_sparse() ? sparse::zeros(a.stype(), a.shape(), a.ctx(), a.dtype())
                                  : nd::zeros(a.shape(), a.ctx(), a.dtype()));
    return out;
  };
  std::vector<StorageType> stypes(outputs.size(), StorageType::Default);
  try {
    autograd::PauseScope pause;
    const std::vector<NDArray> results = run_op_by_op(outputs, zeros_like(args), zeros_like(aux));
    for (size_t i = 0; i < results.size() && i < stypes.size(); ++i) stypes[i] = results[i].stype();
  } catch (const Error&) {
    // an operator that cannot run on zeros: its outputs stay dense
  }
  return stypes;
}

void infer_with_ndarrays(CompressedArrays& given, const std::vector<Entry>& outputs) {
  autograd::PauseScope pause;
  given.outputs = run_op_by_op(outputs, given.args, given.aux);
}

void convert_outputs(CompressedArrays& given, const RunState& state) {
  given.outputs = state.outputs;
  for (size_t i = 0; i < given.output_stypes.size() && i < given.outputs.size(); ++i)
    if (given.output_stypes[i] != StorageType::Default)
      given.outputs[i] = sparse::cast_storage(state.outputs[i], given.output_stypes[i]);
}

}  // namespace braid::symbol::detail
