// Operators called with compressed arrays: the ones with a compressed implementation run it;
// every other one runs densely on dense copies, as MXNet's storage fallback does.
#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "braid/ndarray/creation.h"
#include "braid/op/registry.h"

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid::detail {
namespace {

// A compressed implementation: its results, or nullopt when it has none for these storage types.
using SparseImpl =
    std::function<std::optional<std::vector<NDArray>>(const std::vector<NDArray>& inputs, const op::AttrMap& attrs)>;

bool any_sparse(const std::vector<NDArray>& arrays) {
  return std::any_of(arrays.begin(), arrays.end(), [](const NDArray& a) { return a.is_sparse(); });
}

StorageType wanted_stype(const op::AttrMap& attrs) {
  auto it = attrs.find("stype");
  return it == attrs.end() ? StorageType::Default : parse_storage_type(it->second);
}

std::optional<std::vector<NDArray>> one(NDArray a) { return std::vector<NDArray>{std::move(a)}; }

// `a`'s storage with other values.
NDArray with_data(const NDArray& a, const NDArray& data) {
  SparseParts p = SparseAccess::parts(a);
  p.data = data;
  return SparseAccess::make(a.shape(), std::move(p));
}

const std::unordered_map<std::string, SparseImpl>& implementations() {
  static const auto*
      table =
          new std::unordered_map<std::string, SparseImpl>{
              {"cast_storage",
               [](const std::vector<NDArray>& in, const op::AttrMap& attrs) {
                 return one(sparse::cast_storage(in.at(0), wanted_stype(attrs)));
               }},
              {"_sparse_retain",
               [](const std::vector<NDArray>& in, const op::AttrMap&) -> std::optional<std::vector<NDArray>> {
                 if (in.at(0).stype() != StorageType::RowSparse) return std::nullopt;
                 return one(sparse::retain(in[0], in.at(1)));
               }},
              {"Cast",
               [](const std::vector<NDArray>& in, const op::AttrMap& attrs) -> std::optional<std::vector<NDArray>> {
                 if (!in.at(0).is_sparse()) return std::nullopt;
                 return one(with_data(in[0], nd::invoke1("Cast", {SparseAccess::parts(in[0]).data}, attrs)));
               }},
              {"_copy",
               [](const std::vector<NDArray>& in, const op::AttrMap&) -> std::optional<std::vector<NDArray>> {
                 if (!in.at(0).is_sparse()) return std::nullopt;
                 return one(sparse_copy_to(in[0], in[0].ctx()));
               }},
              {"take",
               [](const std::vector<NDArray>& in, const op::AttrMap& attrs) -> std::optional<std::vector<NDArray>> {
                 auto axis = attrs.find("axis"), mode = attrs.find("mode");
                 if (in.at(0).stype() != StorageType::CSR || (axis != attrs.end() && axis->second != "0"))
                   return std::nullopt;
                 const bool wrap = mode != attrs.end() && mode->second == "wrap";
                 BRAID_CHECK(mode == attrs.end() || wrap || mode->second == "clip",
                             "take: a csr array takes mode 'clip' or 'wrap', got '", mode->second, "'");
                 return one(csr_take_rows(in[0], in.at(1), wrap));
               }},
              {"_contrib_getnnz",
               [](const std::vector<NDArray>& in, const op::AttrMap& attrs) -> std::optional<std::vector<NDArray>> {
                 auto axis = attrs.find("axis");
                 const bool per_row = axis != attrs.end() && axis->second == "1";
                 if (in.at(0).stype() != StorageType::CSR ||
                     (axis != attrs.end() && !per_row && axis->second != "None"))
                   return std::nullopt;
                 const NDArray ptr = SparseAccess::parts(in[0]).aux[0];
                 const int64_t rows = in[0].shape()[0];
                 if (per_row) return one(nd::invoke1("elemwise_sub", {ptr.slice(1, rows + 1), ptr.slice(0, rows)}));
                 return one(ptr.slice(rows, rows + 1).copy());
               }},
              {"zeros_like",
               [](const std::vector<NDArray>& in, const op::AttrMap&) -> std::optional<std::vector<NDArray>> {
                 if (!in.at(0).is_sparse()) return std::nullopt;
                 return one(sparse::zeros(in[0].stype(), in[0].shape(), in[0].ctx(), in[0].dtype()));
               }},
          };
  return *table;
}

// Whether `op` makes a compressed array from dense inputs.
bool makes_sparse(const std::string& op, const op::AttrMap& attrs) {
  return op == "cast_storage" && wanted_stype(attrs) != StorageType::Default;
}

// Whether element-wise `op` with `attrs` maps 0 to 0 for `dtype` (abs, x * 2, x == 1 do; exp, x + 1,
// x == 0 do not), found by running it once on a zero and kept.
bool maps_zero_to_zero(const std::string& op, const op::AttrMap& attrs, DType dtype) {
  static std::mutex mu;
  static auto* known = new std::unordered_map<std::string, bool>();
  std::string key = cat(op, "|", dtype_name(dtype));
  for (const auto& [k, v] : attrs) key += cat("|", k, "=", v);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known->find(key); it != known->end()) return it->second;
  }
  const double at_zero = nd::invoke1(op, {nd::zeros(Shape{1}, cpu(), dtype)}, attrs).to_vector<double>()[0];
  std::lock_guard<std::mutex> lock(mu);
  return (*known)[key] = at_zero == 0;  // NaN is not 0
}

// An element-wise operator of one compressed input that maps 0 to 0 runs on the stored values only.
std::optional<NDArray> on_stored_values(const std::string& op, const std::vector<NDArray>& in,
                                        const op::AttrMap& attrs) {
  if (in.size() != 1 || !in[0].is_sparse() || !op::Registry::get().find(op).elementwise) return std::nullopt;
  const SparseParts& p = SparseAccess::parts(in[0]);
  if (!maps_zero_to_zero(op, attrs, p.data.dtype())) return std::nullopt;
  return with_data(in[0], nd::invoke1(op, {p.data}, attrs));
}

// MXNet's storage types for element-wise binary operators on same-shape operands: sums and
// differences of two arrays of one compressed type stay compressed, and so does a product with a
// compressed operand. These are computed densely and compressed again.
std::optional<StorageType> binary_output_stype(const std::string& op, const std::vector<NDArray>& in) {
  static const auto* sums = new std::unordered_map<std::string, bool>{
      {"elemwise_add", true}, {"_plus", true}, {"_add", true},          {"elemwise_sub", true},
      {"_minus", true},       {"_sub", true},  {"elemwise_mul", false}, {"_mul", false}};
  auto it = sums->find(op);
  if (it == sums->end() || in.size() != 2 || in[0].shape() != in[1].shape()) return std::nullopt;
  const StorageType a = in[0].stype(), b = in[1].stype();
  if (it->second) return a == b && a != StorageType::Default ? std::optional(a) : std::nullopt;
  if (a != StorageType::Default && b != StorageType::Default && a != b) return std::nullopt;
  return a != StorageType::Default ? a : b;
}

std::vector<NDArray> into_out(std::vector<NDArray> results, const std::vector<NDArray>& out) {
  if (out.empty()) return results;
  for (size_t i = 0; i < out.size(); ++i) copy_into(results.at(i), out[i]);
  return out;
}

}  // namespace

std::optional<std::vector<NDArray>> run_sparse(const std::string& op, const std::vector<NDArray>& inputs,
                                               const op::AttrMap& attrs, const std::vector<NDArray>& out,
                                               bool all_outputs) {
  if (!any_sparse(inputs) && !any_sparse(out) && !makes_sparse(op, attrs)) return std::nullopt;
  if (auto it = implementations().find(op); it != implementations().end())
    if (auto results = it->second(inputs, attrs)) return into_out(std::move(*results), out);
  if (auto result = on_stored_values(op, inputs, attrs)) return into_out({*result}, out);
  // The storage fallback.
  std::vector<NDArray> dense;
  for (const auto& a : inputs) dense.push_back(a.is_sparse() ? sparse::cast_storage(a, StorageType::Default) : a);
  if (auto stype = binary_output_stype(op, inputs))
    return into_out({sparse::cast_storage(nd::invoke1(op, dense, attrs), *stype)}, out);
  if (all_outputs) return nd::invoke_all(op, dense, attrs);
  if (!any_sparse(out)) return nd::invoke(op, dense, attrs, out);
  return into_out(nd::invoke(op, dense, attrs), out);
}

}  // namespace braid::detail
