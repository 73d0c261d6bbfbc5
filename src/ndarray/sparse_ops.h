#pragma once
// Internal: what NDArray's members and nd::invoke do with compressed arrays.
#include <optional>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::detail {

/// Rows [begin, end) of csr `a`, a csr array sharing its values.
NDArray csr_rows(const NDArray& a, int64_t begin, int64_t end);
/// The rows `rows` of csr `a` (MXNet's take on axis 0): indices past the ends are clipped, or
/// wrapped around with `wrap`.
NDArray csr_take_rows(const NDArray& a, const NDArray& rows, bool wrap);
/// A copy of compressed `a` on `ctx`.
NDArray sparse_copy_to(const NDArray& a, Context ctx);
/// `src`'s values into `dst`, in dst's storage type, dtype and context.
void copy_into(const NDArray& src, const NDArray& dst);
/// Every element of compressed `a` set to `value`.
void sparse_fill(const NDArray& a, double value);

/// `a`'s storage with `data` as its stored values.
NDArray with_values(const NDArray& a, const NDArray& data);
/// An element-wise operator with compressed inputs whose result MXNet stores compressed
/// (sparse_elemwise.cc); nullopt for the others.
std::optional<NDArray> elementwise_sparse(const std::string& op, const std::vector<NDArray>& inputs,
                                          const op::AttrMap& attrs);
/// An optimizer update whose gradient is row_sparse and that updates only its rows
/// (sparse_updates.cc); nullopt for the others.
std::optional<std::vector<NDArray>> lazy_row_update(const std::string& op, const std::vector<NDArray>& inputs,
                                                    const op::AttrMap& attrs, const std::vector<NDArray>& out);

/// nd::invoke where a compressed array is among the inputs or `out`, or where the operator makes
/// one (cast_storage): its compressed implementation, or else the dense operator on dense
/// copies (MXNet's storage fallback), its results converted into `out`. nullopt for a call
/// with dense arrays only.
std::optional<std::vector<NDArray>> run_sparse(const std::string& op, const std::vector<NDArray>& inputs,
                                               const op::AttrMap& attrs, const std::vector<NDArray>& out,
                                               bool all_outputs);

}  // namespace braid::detail
