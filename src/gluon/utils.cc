#include "braid/gluon/utils.h"

#include <cmath>
#include <cstdio>

#include "braid/base/error.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon::utils {

std::vector<NDArray> split_data(const NDArray& data, int num_slice, int batch_axis, bool even_split) {
  BRAID_CHECK(num_slice > 0, "split_data: num_slice must be positive, got ", num_slice);
  BRAID_CHECK(batch_axis >= 0 && batch_axis < data.shape().ndim(), "split_data: batch_axis ", batch_axis,
              " is out of range for data of shape ", data.shape());
  const int64_t size = data.shape()[batch_axis];
  BRAID_CHECK(size >= num_slice, "split_data: too many slices for data with shape ", data.shape(),
              ": num_slice=", num_slice, " and batch_axis=", batch_axis);
  BRAID_CHECK(!even_split || size % num_slice == 0, "split_data: data with shape ", data.shape(),
              " cannot be evenly split into ", num_slice, " slices along axis ", batch_axis,
              "; use a batch size that "
              "is a multiple of ",
              num_slice, " or set even_split=false to allow uneven slices");
  const int64_t each = size / num_slice, extras = size % num_slice;
  std::vector<NDArray> slices;
  int64_t begin = 0;
  for (int64_t i = 0; i < num_slice; ++i) {
    const int64_t end = begin + each + (i < extras ? 1 : 0);  // the first `extras` slices take one more
    slices.push_back(nd::slice_axis(data, batch_axis, begin, end));
    begin = end;
  }
  return slices;
}

std::vector<NDArray> split_and_load(const NDArray& data, const std::vector<Context>& ctx_list, int batch_axis,
                                    bool even_split) {
  BRAID_CHECK(!ctx_list.empty(), "split_and_load: the context list is empty");
  if (ctx_list.size() == 1) return {data.as_in_context(ctx_list[0])};
  std::vector<NDArray> slices = split_data(data, static_cast<int>(ctx_list.size()), batch_axis, even_split);
  for (size_t i = 0; i < slices.size(); ++i) slices[i] = slices[i].as_in_context(ctx_list[i]);
  return slices;
}

double clip_global_norm(std::vector<NDArray>& arrays, double max_norm, bool check_isfinite) {
  BRAID_CHECK(!arrays.empty(), "clip_global_norm: no arrays");
  double squares = 0;
  for (const auto& a : arrays) {
    const double n = nd::norm(a).astype(DType::Float64).to_vector<double>()[0];
    squares += n * n;
  }
  const double norm = std::sqrt(squares);
  if (check_isfinite && !std::isfinite(norm))
    std::fprintf(stderr, "clip_global_norm: nan or inf is detected; clipping results will be undefined\n");
  const double scale = std::min(max_norm / (norm + 1e-8), 1.0);
  for (auto& a : arrays) a *= scale;
  return norm;
}

}  // namespace braid::gluon::utils
