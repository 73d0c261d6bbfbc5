#pragma once
/// Reductions of NDArrays (MXNet's nd.sum, nd.mean, ..., nd.norm, nd.argmax). `axis` lists the
/// axes to reduce (negative counts from the end); empty means all of them. `exclude` reduces the
/// axes not listed instead. Reduced axes are dropped, or kept as size 1 with `keepdims`; reducing
/// everything without keepdims gives shape (1,), as in MXNet 1.x.
#include <optional>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

NDArray sum(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
NDArray mean(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
NDArray prod(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
/// Sum with NaN counted as 0 (float dtypes only).
NDArray nansum(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
/// Product with NaN counted as 1 (float dtypes only).
NDArray nanprod(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
NDArray max(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);
NDArray min(const NDArray& x, std::vector<int> axis = {}, bool keepdims = false, bool exclude = false);

/// L1 (ord=1) or L2 (ord=2) norm of the elements over `axis` (empty: all).
NDArray norm(const NDArray& x, int ord = 2, std::vector<int> axis = {}, bool keepdims = false);

/// Position of the largest / smallest element along `axis` (nullopt: of the flattened array),
/// as a value of x's dtype. Ties give the first position.
NDArray argmax(const NDArray& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
NDArray argmin(const NDArray& x, std::optional<int> axis = std::nullopt, bool keepdims = false);

}  // namespace braid::nd
