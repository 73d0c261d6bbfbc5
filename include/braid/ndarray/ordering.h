#pragma once
/// Sorting and top-k of NDArrays (MXNet's nd.topk, nd.sort, nd.argsort), along `axis` or over the
/// flattened array when axis is nullopt. Equal values keep their original order (lower position
/// first) in both directions; NaN ranks above every number.
#include <optional>
#include <string>
#include <utility>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

/// The k largest (or smallest with is_ascend) elements; k < 1 means all. ret_typ "indices"
/// (positions, in `dtype`), "value" or "mask" (x's shape, 1 at the selected positions).
/// For "both" use topk_both.
NDArray topk(const NDArray& x, std::optional<int> axis = -1, int k = 1, const std::string& ret_typ = "indices",
             bool is_ascend = false, DType dtype = DType::Float32);
/// topk's ret_typ "both": (values, indices).
std::pair<NDArray, NDArray> topk_both(const NDArray& x, std::optional<int> axis = -1, int k = 1, bool is_ascend = false,
                                      DType dtype = DType::Float32);

NDArray sort(const NDArray& x, std::optional<int> axis = -1, bool is_ascend = true);
/// Positions that sort x, in `dtype`.
NDArray argsort(const NDArray& x, std::optional<int> axis = -1, bool is_ascend = true, DType dtype = DType::Float32);

}  // namespace braid::nd
