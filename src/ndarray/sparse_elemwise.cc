// Element-wise operators on compressed arrays, with MXNet's output storage types:
//  - one compressed input through an operator that maps 0 to 0 (abs, x * 2, x == 1): the same
//    storage, computed on the stored values only;
//  - sums and differences of two row_sparse arrays: row_sparse over the union of their rows;
//  - sums and differences of two arrays of one other compressed type, products with a
//    compressed operand, and the other element-wise operators of two arrays of one compressed
//    type that map (0, 0) to 0 (maximum, minimum, hypot): compressed again after a dense
//    computation.
#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/registry.h"
#include "sparse_host.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid::detail {
namespace {

// Whether element-wise `op` with `attrs` maps zeros (`arity` of them) to 0 for `dtype` (abs, x * 2,
// x == 1, max(x, y) do; exp, x + 1, x == 0, x / y do not), found by running it once and kept.
bool maps_zero_to_zero(const std::string& op, const op::AttrMap& attrs, DType dtype, size_t arity = 1) {
  static std::mutex mu;
  static auto* known = new std::unordered_map<std::string, bool>();
  std::string key = cat(op, "|", dtype_name(dtype), "|", arity);
  for (const auto& [k, v] : attrs) key += cat("|", k, "=", v);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known->find(key); it != known->end()) return it->second;
  }
  const std::vector<NDArray> zeros(arity, nd::zeros(Shape{1}, cpu(), dtype));
  const double at_zero = nd::invoke1(op, zeros, attrs).to_vector<double>()[0];
  std::lock_guard<std::mutex> lock(mu);
  return (*known)[key] = at_zero == 0;  // NaN is not 0
}

enum class Kind { Sum, Product };

std::optional<Kind> kind_of(const std::string& op) {
  static const auto* kinds = new std::unordered_map<std::string, Kind>{
      {"elemwise_add", Kind::Sum}, {"_plus", Kind::Sum}, {"_add", Kind::Sum},     {"elemwise_sub", Kind::Sum},
      {"_minus", Kind::Sum},       {"_sub", Kind::Sum},  {"_mul", Kind::Product}, {"elemwise_mul", Kind::Product}};
  auto it = kinds->find(op);
  return it == kinds->end() ? std::nullopt : std::optional(it->second);
}

// a ± b over the union of their rows.
NDArray row_sparse_sum(const std::string& op, const NDArray& a, const NDArray& b) {
  const std::vector<int64_t> ra = host_int64(SparseAccess::parts(a).aux[0]),
                             rb = host_int64(SparseAccess::parts(b).aux[0]);
  std::vector<int64_t> rows;
  std::set_union(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(rows));
  if (rows.empty()) return sparse::zeros(StorageType::RowSparse, a.shape(), a.ctx(), a.dtype());
  auto rows_of = [&](const NDArray& x, const std::vector<int64_t>& stored) {
    return nd::invoke1("_sparse_gather_rows",
                       {SparseAccess::parts(x).data, int64_array(positions_in(rows, stored), a.ctx())});
  };
  NDArray va = rows_of(a, ra), vb = rows_of(b, rb);
  return sparse::row_sparse_array(nd::invoke1(op, {va, vb}), int64_array(rows, a.ctx()), a.shape());
}

// The element-wise operators of two arrays besides sums and products (MXNet's with a sparse
// storage rule).
bool other_binary(const std::string& op) {
  static const auto* ops = new std::unordered_set<std::string>{
      "_maximum", "_Maximum", "_minimum", "_Minimum", "_hypot", "_Hypot", "elemwise_div", "_div", "_Div"};
  return ops->count(op) > 0;
}

std::optional<NDArray> binary(const std::string& op, const std::vector<NDArray>& in, const op::AttrMap& attrs) {
  if (in.size() != 2 || in[0].shape() != in[1].shape()) return std::nullopt;
  const StorageType a = in[0].stype(), b = in[1].stype();
  const auto kind = kind_of(op);
  if (!kind) {
    if (!other_binary(op) || a != b || a == StorageType::Default || !maps_zero_to_zero(op, attrs, in[0].dtype(), 2))
      return std::nullopt;
    return sparse::cast_storage(nd::invoke1(op, sparse::densify(in), attrs), a);
  }
  StorageType out;
  if (*kind == Kind::Sum) {
    if (a != b || a == StorageType::Default) return std::nullopt;
    if (a == StorageType::RowSparse && in[0].dtype() == in[1].dtype()) return row_sparse_sum(op, in[0], in[1]);
    out = a;
  } else {
    if (a != StorageType::Default && b != StorageType::Default && a != b) return std::nullopt;
    out = a != StorageType::Default ? a : b;
  }
  return sparse::cast_storage(nd::invoke1(op, sparse::densify(in), attrs), out);
}

}  // namespace

std::optional<NDArray> elementwise_sparse(const std::string& op, const std::vector<NDArray>& in,
                                          const op::AttrMap& attrs) {
  if (in.size() == 1 && in[0].is_sparse() && op::Registry::get().find(op).elementwise) {
    const SparseParts& p = SparseAccess::parts(in[0]);
    if (!maps_zero_to_zero(op, attrs, p.data.dtype())) return std::nullopt;
    return with_values(in[0], nd::invoke1(op, {p.data}, attrs));
  }
  return binary(op, in, attrs);
}

}  // namespace braid::detail
