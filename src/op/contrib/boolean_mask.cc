// contrib.boolean_mask(data, index, axis=0): the slices of data along `axis` whose entry in the
// 1-D `index` is nonzero, in order (NumPy's data[index.astype(bool)] on axis 0). The output's
// length along the axis depends on index's values: imperative calls read them first
// (value_dependent_shape), graphs holding the op run op by op. data's gradient is the output
// gradient scattered back to the selected slices, zeros elsewhere; index gets zeros.
#include <cstring>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kBooleanMask = "_contrib_boolean_mask";

bool nonzero16(uint16_t bits) { return (bits & 0x7fffu) != 0; }  // +0 and -0 are false

// The positions whose index entry is nonzero, read in any dtype.
std::vector<int64_t> selected(const TBlob& index) {
  std::vector<int64_t> picked;
  const int64_t n = index.size();
  auto pick = [&](auto is_set) {
    for (int64_t i = 0; i < n; ++i)
      if (is_set(i)) picked.push_back(i);
  };
  switch (index.dtype) {
    case DType::Float16:
      pick([p = index.ptr<half_t>()](int64_t i) { return nonzero16(p[i].bits); });
      break;
    case DType::BFloat16:
      pick([p = index.ptr<bfloat16_t>()](int64_t i) { return nonzero16(p[i].bits); });
      break;
    case DType::Bool:
      pick([p = static_cast<const uint8_t*>(index.dptr)](int64_t i) { return p[i] != 0; });
      break;
    default:
      BRAID_TYPE_SWITCH(index.dtype, T, kBooleanMask,
                        { pick([p = index.ptr<T>()](int64_t i) { return p[i] != T(0); }); });
  }
  return picked;
}

struct Layout {
  int64_t outer = 1, length = 1, inner = 1;  // dims before the axis, along it, after it
};

Layout layout_of(const Shape& s, int axis) {
  Layout l;
  for (int d = 0; d < s.ndim(); ++d) (d < axis ? l.outer : d == axis ? l.length : l.inner) *= s[d];
  return l;
}

int checked_axis(int axis, const Shape& data) {
  const int nd = data.ndim();
  BRAID_CHECK(nd > 0 && axis >= -nd && axis < nd, "operator ", kBooleanMask, ": axis ", axis,
              " is out of range for data of ", nd, " dimensions");
  return axis < 0 ? axis + nd : axis;
}

void check_index_shape(const Shape& data, const Shape& index, int axis) {
  BRAID_CHECK(index.ndim() == 1 && index[0] == data[axis], "operator ", kBooleanMask,
              ": index must be 1-D with one entry per slice of data along axis ", axis, " (", data[axis],
              "); got shape ", index);
}

}  // namespace

void register_boolean_mask_op(Registry& r) {
  OpDef d;
  d.name = kBooleanMask;
  d.doc = "The slices of data along axis whose entry in the 1-D index is nonzero.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, kBooleanMask);
    const int axis = rd.get<int>("axis", 0);
    rd.finish();
    return std::any(axis);
  };
  d.list_arguments = args({"data", "index"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>&, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    check_index_shape(in[0], in[1], checked_axis(param<int>(pa), in[0]));
    return false;  // the output's length along the axis comes from index's values
  };
  d.value_dependent_shape = [](const std::any& pa, const std::vector<NDArray>& inputs) {
    const int axis = checked_axis(param<int>(pa), inputs[0].shape());
    NDArray index = inputs[1].copyto(cpu());
    index.wait_to_read();
    std::vector<int64_t> dims = inputs[0].shape().dims();
    dims[static_cast<size_t>(axis)] = static_cast<int64_t>(selected(index.blob()).size());
    return std::vector<Shape>{Shape(dims)};
  };
  d.infer_type = shape_only_second_input;
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_CHECK(a.req[0] != OpReq::Add, "operator ", kBooleanMask, " cannot add to its output (req 'add')");
    const TBlob& data = a.inputs[0];
    const int axis = checked_axis(param<int>(pa), data.shape);
    const Layout l = layout_of(data.shape, axis);
    const std::vector<int64_t> rows = selected(a.inputs[1]);
    const auto bytes = static_cast<size_t>(l.inner) * dtype_size(data.dtype);
    const auto* src = static_cast<const char*>(data.dptr);
    auto* dst = static_cast<char*>(a.outputs[0].dptr);
    for (int64_t o = 0; o < l.outer; ++o)
      for (size_t k = 0; k < rows.size(); ++k)
        std::memcpy(dst + (o * static_cast<int64_t>(rows.size()) + static_cast<int64_t>(k)) * bytes,
                    src + (o * l.length + rows[k]) * bytes, bytes);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[1] == OpReq::Write)
      std::memset(a.in_grads[1].dptr, 0, static_cast<size_t>(a.in_grads[1].size()) * dtype_size(a.in_grads[1].dtype));
    if (a.req[0] == OpReq::Null) return;
    const TBlob& data = a.inputs[0];
    const int axis = checked_axis(param<int>(pa), data.shape);
    const Layout l = layout_of(data.shape, axis);
    // Per slice of data along the axis: its row in the output, or -1.
    std::vector<int64_t> row_of(static_cast<size_t>(l.length), -1);
    const std::vector<int64_t> rows = selected(a.inputs[1]);
    for (size_t k = 0; k < rows.size(); ++k) row_of[static_cast<size_t>(rows[k])] = static_cast<int64_t>(k);
    const auto picked = static_cast<int64_t>(rows.size());
    BRAID_TYPE_SWITCH(data.dtype, T, kBooleanMask, {
      const T* g = a.out_grads[0].ptr<T>();
      write_each(a.in_grads[0].ptr<T>(), a.req[0], data.size(), [&](int64_t i) {
        const int64_t o = i / (l.length * l.inner), j = i / l.inner % l.length, in = i % l.inner;
        const int64_t row = row_of[static_cast<size_t>(j)];
        return row < 0 ? T(0) : g[(o * picked + row) * l.inner + in];
      });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
