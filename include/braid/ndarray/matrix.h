#pragma once
/// Matrix products and layout operations on NDArrays (MXNet's nd.dot, nd.transpose, nd.concat,
/// nd.split, ...). Each returns new arrays (never a view) computed asynchronously; bad shapes or
/// attributes throw braid::Error at the call.
#include <optional>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

/// Sums the last axis of a (the first with transpose_a) against the first axis of b (the last
/// with transpose_b): (m..., k)·(k, n...) -> (m..., n...); two vectors give shape (1,).
NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
/// Per batch index: (B..., m, k)·(B..., k, n) -> (B..., m, n); the flags transpose the matrices.
NDArray batch_dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
/// Output axis i is input axis axes[i]; empty axes reverse them.
NDArray transpose(const NDArray& x, std::vector<int> axes = {});
/// A copy in a new shape, MXNet's spelling (0 copy, -1 infer, -2 rest, -3 merge, -4 split).
NDArray reshape(const NDArray& x, const std::vector<int64_t>& shape, bool reverse = false);
NDArray expand_dims(const NDArray& x, int axis);
/// Removes the given axes of size 1, or every axis of size 1 when `axes` is empty.
NDArray squeeze(const NDArray& x, const std::vector<int>& axes = {});
/// Joins along `dim`; all other dimensions must match.
NDArray concat(const std::vector<NDArray>& xs, int dim = 1);
/// Joins arrays of one shape along a new axis.
NDArray stack(const std::vector<NDArray>& xs, int axis = 0);
/// num_outputs equal parts along `axis` (which is removed with squeeze_axis).
std::vector<NDArray> split(const NDArray& x, int num_outputs, int axis = 1, bool squeeze_axis = false);
/// Repeats the whole array reps[k] times along axis k (NumPy's tile).
NDArray tile(const NDArray& x, const std::vector<int64_t>& reps);
/// Repeats each element along `axis`, or of the flattened array when axis is nullopt.
NDArray repeat(const NDArray& x, int repeats, std::optional<int> axis = std::nullopt);
/// Reverses the order along each of `axes`.
NDArray flip(const NDArray& x, const std::vector<int>& axes);
/// Elements [begin, end) along `axis`; negative values count from the end, nullopt is the end.
NDArray slice_axis(const NDArray& x, int axis, int64_t begin, std::optional<int64_t> end = std::nullopt);

}  // namespace braid::nd
