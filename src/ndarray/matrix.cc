#include "braid/ndarray/matrix.h"

#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::nd {
namespace {

std::string flag(bool b) { return b ? "True" : "False"; }
std::string number(int64_t v) { return op::format_number(static_cast<double>(v)); }
std::string tuple(const std::vector<int>& v) { return Shape(v.begin(), v.end()).str(); }

}  // namespace

NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  return invoke1("dot", {a, b}, {{"transpose_a", flag(transpose_a)}, {"transpose_b", flag(transpose_b)}});
}

NDArray batch_dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  return invoke1("batch_dot", {a, b}, {{"transpose_a", flag(transpose_a)}, {"transpose_b", flag(transpose_b)}});
}

NDArray transpose(const NDArray& x, std::vector<int> axes) {
  return invoke1("transpose", {x}, {{"axes", tuple(axes)}});
}

NDArray reshape(const NDArray& x, const std::vector<int64_t>& shape, bool reverse) {
  return invoke1("Reshape", {x}, {{"shape", Shape(shape).str()}, {"reverse", flag(reverse)}});
}

NDArray expand_dims(const NDArray& x, int axis) { return invoke1("expand_dims", {x}, {{"axis", number(axis)}}); }

NDArray squeeze(const NDArray& x, const std::vector<int>& axes) {
  return invoke1("squeeze", {x}, axes.empty() ? op::AttrMap{} : op::AttrMap{{"axis", tuple(axes)}});
}

NDArray concat(const std::vector<NDArray>& xs, int dim) {
  return invoke1("concat", xs, {{"num_args", number(static_cast<int64_t>(xs.size()))}, {"dim", number(dim)}});
}

NDArray stack(const std::vector<NDArray>& xs, int axis) {
  return invoke1("stack", xs, {{"num_args", number(static_cast<int64_t>(xs.size()))}, {"axis", number(axis)}});
}

std::vector<NDArray> split(const NDArray& x, int num_outputs, int axis, bool squeeze_axis) {
  return invoke("split", {x},
                {{"num_outputs", number(num_outputs)}, {"axis", number(axis)}, {"squeeze_axis", flag(squeeze_axis)}});
}

NDArray tile(const NDArray& x, const std::vector<int64_t>& reps) {
  return invoke1("tile", {x}, {{"reps", Shape(reps).str()}});
}

NDArray repeat(const NDArray& x, int repeats, std::optional<int> axis) {
  return invoke1("repeat", {x}, {{"repeats", number(repeats)}, {"axis", axis ? number(*axis) : "None"}});
}

NDArray flip(const NDArray& x, const std::vector<int>& axes) { return invoke1("flip", {x}, {{"axis", tuple(axes)}}); }

NDArray slice_axis(const NDArray& x, int axis, int64_t begin, std::optional<int64_t> end) {
  return invoke1("slice_axis", {x},
                 {{"axis", number(axis)}, {"begin", number(begin)}, {"end", end ? number(*end) : "None"}});
}

}  // namespace braid::nd
