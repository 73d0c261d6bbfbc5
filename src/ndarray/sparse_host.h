#pragma once
// Internal: the host-side steps of compressed arrays, where the positions of stored values are
// decided (on the CPU, after waiting for the arrays they depend on).
#include <cstdint>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::detail {

/// The elements of an integer (or integral-valued) array as int64, after waiting for it.
std::vector<int64_t> host_int64(const NDArray& a);
/// For each of `rows`, its position in ascending `stored`, or -1 where it is not there.
std::vector<int64_t> positions_in(const std::vector<int64_t>& rows, const std::vector<int64_t>& stored);
/// A 1-d int64 array on `ctx` holding `values`.
NDArray int64_array(const std::vector<int64_t>& values, Context ctx);

}  // namespace braid::detail
