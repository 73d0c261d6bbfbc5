// Operators called with compressed arrays: the ones with a compressed implementation run it;
// every other one runs densely on dense copies, as MXNet's storage fallback does.
#include <algorithm>
#include <unordered_map>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "imperative/recorder.h"
#include "imperative/tape.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid::detail {
namespace {

using Results = std::optional<std::vector<NDArray>>;
// A compressed implementation: its results, or nullopt when it has none for these storage types.
using SparseImpl = Results (*)(const std::vector<NDArray>& inputs, const op::AttrMap& attrs);

bool any_sparse(const std::vector<NDArray>& arrays) {
  return std::any_of(arrays.begin(), arrays.end(), [](const NDArray& a) { return a.is_sparse(); });
}

std::string attr_or(const op::AttrMap& attrs, const std::string& key, const std::string& fallback) {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second;
}

StorageType wanted_stype(const op::AttrMap& attrs) { return parse_storage_type(attr_or(attrs, "stype", "default")); }

Results one(NDArray a) { return std::vector<NDArray>{std::move(a)}; }

Results cast_storage(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  return one(sparse::cast_storage(in.at(0), wanted_stype(attrs)));
}

Results retain(const std::vector<NDArray>& in, const op::AttrMap&) {
  if (in.at(0).stype() != StorageType::RowSparse) return std::nullopt;
  return one(sparse::retain(in[0], in.at(1)));
}

Results cast(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (!in.at(0).is_sparse()) return std::nullopt;
  return one(with_values(in[0], nd::invoke1("Cast", {SparseAccess::parts(in[0]).data}, attrs)));
}

Results copy(const std::vector<NDArray>& in, const op::AttrMap&) {
  if (!in.at(0).is_sparse()) return std::nullopt;
  return one(sparse_copy_to(in[0], in[0].ctx()));
}

// Rows of a csr matrix (what split_and_load takes of a batch).
Results slice_axis(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (in.at(0).stype() != StorageType::CSR || attr_or(attrs, "axis", "") != "0") return std::nullopt;
  const int64_t rows = in[0].shape()[0];
  int64_t begin = std::stoll(attr_or(attrs, "begin", "0"));
  const std::string end_text = attr_or(attrs, "end", "None");
  int64_t end = end_text == "None" ? rows : std::stoll(end_text);
  if (begin < 0) begin += rows;
  if (end < 0) end += rows;
  BRAID_CHECK(0 <= begin && begin <= end && end <= rows, "slice_axis: rows [", begin, ", ", end,
              ") are out of range for a csr matrix of ", rows, " rows");
  return one(csr_rows(in[0], begin, end));
}

// nd.dot(csr, dense 2-d), transposed or not: from the stored values (_sparse_csr_dot_dense).
Results csr_dot(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (in.size() != 2 || in[0].stype() != StorageType::CSR || in[1].is_sparse() || in[1].ndim() != 2)
    return std::nullopt;
  const std::string tb = attr_or(attrs, "transpose_b", "False");
  if (tb == "True" || tb == "true" || tb == "1") return std::nullopt;
  const SparseParts& p = SparseAccess::parts(in[0]);
  return one(
      nd::invoke1("_sparse_csr_dot_dense", {p.data, p.aux[0], p.aux[1], in[1]},
                  {{"transpose_a", attr_or(attrs, "transpose_a", "False")}, {"num_cols", cat(in[0].shape()[1])}}));
}

Results zeros_like(const std::vector<NDArray>& in, const op::AttrMap&) {
  if (!in.at(0).is_sparse()) return std::nullopt;
  return one(sparse::zeros(in[0].stype(), in[0].shape(), in[0].ctx(), in[0].dtype()));
}

// MXNet's take on the rows of a csr matrix.
Results take(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (in.at(0).stype() != StorageType::CSR || attr_or(attrs, "axis", "0") != "0") return std::nullopt;
  const std::string mode = attr_or(attrs, "mode", "clip");
  BRAID_CHECK(mode == "clip" || mode == "wrap", "take: a csr array takes mode 'clip' or 'wrap', got '", mode, "'");
  return one(csr_take_rows(in[0], in.at(1), mode == "wrap"));
}

// A csr matrix's counts of stored values come from indptr.
Results getnnz(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  const std::string axis = attr_or(attrs, "axis", "None");
  if (in.at(0).stype() != StorageType::CSR || (axis != "None" && axis != "1")) return std::nullopt;
  const NDArray ptr = SparseAccess::parts(in[0]).aux[0];
  const int64_t rows = in[0].shape()[0];
  if (axis == "1") return one(nd::invoke1("elemwise_sub", {ptr.slice(1, rows + 1), ptr.slice(0, rows)}));
  return one(ptr.slice(rows, rows + 1).copy());
}

// MXNet's scatter operators: a compressed first input keeps its storage, computed on its stored
// values only (row_sparse rows of the second input for the division).
Results scatter_scalar(const std::string& plain, const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (!in.at(0).is_sparse()) return std::nullopt;
  return one(with_values(in[0], nd::invoke1(plain, {SparseAccess::parts(in[0]).data}, attrs)));
}
Results scatter_plus(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  return scatter_scalar("_plus_scalar", in, attrs);
}
Results scatter_minus(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  return scatter_scalar("_minus_scalar", in, attrs);
}
Results scatter_div(const std::vector<NDArray>& in, const op::AttrMap&) {
  if (in.at(0).stype() != StorageType::RowSparse || in.at(1).shape() != in[0].shape()) return std::nullopt;
  const SparseParts& lhs = SparseAccess::parts(in[0]);
  const NDArray rhs_rows =
      nd::invoke1("take", {sparse::cast_storage(in[1], StorageType::Default), lhs.aux[0]}, {{"axis", "0"}});
  return one(with_values(in[0], nd::invoke1("elemwise_div", {lhs.data, rhs_rows})));
}

// A row_sparse array's row sums of squares with keepdims stay row_sparse (MXNet's _square_sum).
Results square_sum(const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (in.at(0).stype() != StorageType::RowSparse) return std::nullopt;
  const std::string axis = attr_or(attrs, "axis", "0"), keepdims = attr_or(attrs, "keepdims", "False");
  const NDArray dense = nd::invoke1("_square_sum", {sparse::cast_storage(in[0], StorageType::Default)}, attrs);
  const bool rows =
      (axis == "1" || axis == "(1,)" || axis == "-1") && (keepdims == "True" || keepdims == "1" || keepdims == "true");
  return one(rows ? sparse::cast_storage(dense, StorageType::RowSparse) : dense);
}

const std::unordered_map<std::string, SparseImpl>& implementations() {
  static const auto* table = new std::unordered_map<std::string, SparseImpl>{
      {"cast_storage", cast_storage},
      {"_sparse_retain", retain},
      {"Cast", cast},
      {"_copy", copy},
      {"zeros_like", zeros_like},
      {"take", take},
      {"_contrib_getnnz", getnnz},
      {"slice_axis", slice_axis},
      {"dot", csr_dot},
      {"_scatter_plus_scalar", scatter_plus},
      {"_scatter_minus_scalar", scatter_minus},
      {"_scatter_elemwise_div", scatter_div},
      {"_square_sum", square_sum},
  };
  return *table;
}

// The storage type a product's caller asks for its result (MXNet's forward_stype of dot).
StorageType forward_stype(const std::string& op, const op::AttrMap& attrs) {
  if (op != "dot" && op != "batch_dot") return StorageType::Default;
  const std::string stype = attr_or(attrs, "forward_stype", "default");
  // anything else is refused by the operator itself, naming it
  return stype == "csr" ? StorageType::CSR : stype == "row_sparse" ? StorageType::RowSparse : StorageType::Default;
}

// Whether `op` makes a compressed array from dense inputs.
bool makes_sparse(const std::string& op, const op::AttrMap& attrs) {
  return (op == "cast_storage" && wanted_stype(attrs) != StorageType::Default) ||
         forward_stype(op, attrs) != StorageType::Default;
}

std::vector<NDArray> into_out(std::vector<NDArray> results, const std::vector<NDArray>& out) {
  if (out.empty()) return results;
  for (size_t i = 0; i < out.size(); ++i) copy_into(results.at(i), out[i]);
  return out;
}

// The dense operator on dense inputs; its results converted into compressed `out` arrays.
std::vector<NDArray> run_dense(const std::string& op, const std::vector<NDArray>& dense, const op::AttrMap& attrs,
                               const std::vector<NDArray>& out, bool all_outputs) {
  if (all_outputs) return nd::invoke_all(op, dense, attrs);
  if (!any_sparse(out)) return nd::invoke(op, dense, attrs, out);
  return into_out(nd::invoke(op, dense, attrs), out);
}

}  // namespace

NDArray with_values(const NDArray& a, const NDArray& data) {
  SparseParts p = SparseAccess::parts(a);
  p.data = data;
  return SparseAccess::make(a.shape(), std::move(p));
}

namespace {

std::optional<std::vector<NDArray>> run_any(const std::string& op, const std::vector<NDArray>& inputs,
                                            const op::AttrMap& attrs, const std::vector<NDArray>& out,
                                            bool all_outputs) {
  if (imperative::recorder() && any_sparse(inputs)) {
    // A product with a csr matrix that is data (no gradient wanted) runs as itself: rhs gets its gradient.
    if (op == "dot" && !imperative::needs_grad(inputs.at(0)))
      if (auto results = csr_dot(inputs, attrs)) return into_out(std::move(*results), out);
    return run_dense(op, sparse::densify(inputs), attrs, out, all_outputs);
  }
  if (auto it = implementations().find(op); it != implementations().end())
    if (auto results = it->second(inputs, attrs)) return into_out(std::move(*results), out);
  if (auto results = lazy_row_update(op, inputs, attrs, out)) return *results;
  if (auto result = elementwise_sparse(op, inputs, attrs)) return into_out({*result}, out);
  return run_dense(op, sparse::densify(inputs), attrs, out, all_outputs);  // the storage fallback
}

}  // namespace

std::optional<std::vector<NDArray>> run_sparse(const std::string& op, const std::vector<NDArray>& inputs,
                                               const op::AttrMap& attrs, const std::vector<NDArray>& out,
                                               bool all_outputs) {
  if (!any_sparse(inputs) && !any_sparse(out) && !makes_sparse(op, attrs)) return std::nullopt;
  const StorageType wanted = forward_stype(op, attrs);
  if (wanted == StorageType::Default) return run_any(op, inputs, attrs, out, all_outputs);
  // A product in the storage type asked for: computed as without the request, then converted
  // (not while recording: the conversion would have no gradient).
  op::AttrMap plain = attrs;
  plain.erase("forward_stype");
  std::vector<NDArray> results = any_sparse(inputs) || any_sparse(out) ? *run_any(op, inputs, plain, out, all_outputs)
                                                                       : run_dense(op, inputs, plain, out, all_outputs);
  if (out.empty() && !imperative::recorder())
    for (NDArray& r : results) r = sparse::cast_storage(r, wanted);
  return results;
}

}  // namespace braid::detail

namespace braid::sparse {

// While autograd records, each copy is made by a recorded step that passes the (dense) gradient
// back to the compressed array; its gradient buffer keeps its own storage type (copies into it
// convert).
std::vector<NDArray> densify(const std::vector<NDArray>& arrays) {
  std::vector<NDArray> dense;
  for (const auto& a : arrays) {
    if (!a.is_sparse()) {
      dense.push_back(a);
      continue;
    }
    NDArray d;
    {
      imperative::RecorderPause pause;
      d = cast_storage(a, StorageType::Default);
    }
    if (imperative::Recorder* r = imperative::recorder())
      r->record_function(
          {a}, {d}, [](const std::vector<NDArray>& out_grads, const std::vector<bool>&, const std::vector<NDArray>&) {
            return out_grads;
          });
    dense.push_back(d);
  }
  return dense;
}

}  // namespace braid::sparse
