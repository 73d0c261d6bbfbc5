// shape_array and size_array: an array's shape (1-D, one int64 per dimension) and its number of
// elements (shape (1,), int64) as arrays, as MXNet's. Their gradient is zero.
#include <algorithm>

#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "shape_array.h"

namespace braid::op::detail {
namespace {

OpDef shape_op(const std::string& name, const std::string& doc, std::function<Shape(const Shape&)> out_shape,
               std::function<std::vector<int64_t>(const Shape&)> values) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = no_params(name);
  d.list_arguments = args({"data"});
  d.infer_shape = [name, out_shape](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                    std::vector<Shape>&) {
    if (!in[0].known()) return false;
    merge_shape(out[0], out_shape(in[0]), name, "output");
    return in[0].fully_known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Int64;
  };
  d.cpu.forward = [values](const OpContext&, const std::any&, const ForwardArgs& a) {
    const auto v = values(a.inputs[0].shape);
    std::copy(v.begin(), v.end(), a.outputs[0].ptr<int64_t>());
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  return d;
}

}  // namespace

void register_shape_array_ops(Registry& r) {
  r.add(shape_op(
      "shape_array", "The input's shape as a 1-D int64 array.",
      [](const Shape& in) { return Shape({static_cast<int64_t>(in.ndim())}); },
      [](const Shape& in) { return in.dims(); }));
  r.add(shape_op(
      "size_array", "The input's number of elements as an int64 array of shape (1,).",
      [](const Shape&) { return Shape({1}); }, [](const Shape& in) { return std::vector<int64_t>{in.size()}; }));
}

}  // namespace braid::op::detail
