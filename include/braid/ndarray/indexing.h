#pragma once
/// Gathering by index (MXNet's nd.take, nd.pick, nd.one_hot). Index arrays may have any dtype;
/// float indices are truncated toward zero. `mode` says what an index outside [0, n) means:
/// "clip" (clamp, the default), "wrap" (modulo n) or, for take, "raise" (an error at the wait).
#include <cstdint>
#include <string>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

/// Slices of `a` at `indices` along `axis`: shape a.shape[:axis] + indices.shape + a.shape[axis+1:].
NDArray take(const NDArray& a, const NDArray& indices, int axis = 0, const std::string& mode = "clip");

/// For each line of `data` along `axis`, the element at `index` (shaped like the result: data's
/// shape without `axis`, or with it as 1 under keepdims).
NDArray pick(const NDArray& data, const NDArray& index, int axis = -1, bool keepdims = false,
             const std::string& mode = "clip");

/// indices.shape + (depth,): `on_value` at each index, `off_value` elsewhere (and on the whole row
/// of an index outside [0, depth)).
NDArray one_hot(const NDArray& indices, int64_t depth, double on_value = 1.0, double off_value = 0.0,
                DType dtype = DType::Float32);

}  // namespace braid::nd
