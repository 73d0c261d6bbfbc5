// Optimizer updates with a row_sparse gradient. With lazy_update (MXNet's default for SGD and
// Adam) and for FTRL and AdaGrad (always, as MXNet's sparse kernels), only the rows the gradient
// stores are updated, weight decay and momentum included: those rows of the weight and of the
// states are gathered, updated by the dense operator and written back. Otherwise the gradient is
// made dense (the storage fallback).
#include <unordered_map>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/registry.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid::detail {
namespace {

enum class Laziness { OnRequest, Always };

const std::unordered_map<std::string, Laziness>& row_updates() {
  static const auto* ops =
      new std::unordered_map<std::string, Laziness>{{"sgd_update", Laziness::OnRequest},
                                                    {"sgd_mom_update", Laziness::OnRequest},
                                                    {"mp_sgd_update", Laziness::OnRequest},
                                                    {"mp_sgd_mom_update", Laziness::OnRequest},
                                                    {"adam_update", Laziness::OnRequest},
                                                    {"_braid_mp_adam_update", Laziness::OnRequest},
                                                    {"ftrl_update", Laziness::Always},
                                                    {"_braid_adagrad_update", Laziness::Always},
                                                    {"_braid_mp_adagrad_update", Laziness::Always}};
  return *ops;
}

bool lazy(const std::string& op, const op::AttrMap& attrs) {
  auto it = row_updates().find(op);
  if (it == row_updates().end()) return false;
  if (it->second == Laziness::Always) return true;
  auto flag = attrs.find("lazy_update");
  return flag == attrs.end() || flag->second == "True" || flag->second == "true" || flag->second == "1";
}

}  // namespace

std::optional<std::vector<NDArray>> lazy_row_update(const std::string& op, const std::vector<NDArray>& in,
                                                    const op::AttrMap& attrs, const std::vector<NDArray>& out) {
  if (in.size() < 2 || in[1].stype() != StorageType::RowSparse || !lazy(op, attrs)) return std::nullopt;
  // A compressed weight or state (MXNet's row_sparse weights) is updated on a dense copy, written back.
  std::vector<NDArray> dense = in;
  for (size_t i = 0; i < in.size(); ++i)
    if (i != 1 && in[i].is_sparse()) dense[i] = sparse::cast_storage(in[i], StorageType::Default);
  const bool in_place = !out.empty() && out[0].same_as(in[0]) && !in[0].is_sparse();
  NDArray weight = in_place ? in[0] : in[0].is_sparse() ? dense[0] : in[0].copy();
  const SparseParts& grad = SparseAccess::parts(in[1]);
  const NDArray& rows = grad.aux[0];
  const op::OpDef& def = op::Registry::get().find(op);
  if (rows.shape()[0] > 0) {
    std::vector<NDArray> args;
    for (size_t i = 0; i < in.size(); ++i)
      args.push_back(i == 1 ? grad.data : nd::invoke1("_sparse_gather_rows", {i == 0 ? weight : dense[i], rows}));
    nd::invoke(op, args, attrs, {args[0]});
    auto write_back = [&](const NDArray& dst, const NDArray& updated) {
      nd::invoke("_sparse_scatter_rows", {dst, rows, updated}, {}, {dst});
    };
    write_back(weight, args[0]);
    for (int i : def.mutate_inputs(def.parse(attrs))) {
      const auto k = static_cast<size_t>(i);
      write_back(dense[k], args[k]);
      if (in[k].is_sparse()) copy_into(dense[k], in[k]);
    }
  }
  if (in_place) return std::vector<NDArray>{weight};
  if (out.empty())
    return std::vector<NDArray>{in[0].is_sparse() ? sparse::cast_storage(weight, in[0].stype()) : weight};
  copy_into(weight, out[0]);
  return out;
}

}  // namespace braid::detail
