// Slicing by begin/end/step: slice (crop), the assignment into a slice _slice_assign
// (_crop_assign) and _slice_assign_scalar (what `x[1:3] = y` runs in a graph), slice_like
// (the leading part of data the shape of another array), and the legacy Crop (an image region
// of NCHW data, its size given or another array's). Each sees the selected region as a
// strided view of the whole array (matrix_util.h).
#include <array>
#include <optional>

#include "matrix_util.h"

namespace braid::op::detail {
namespace {

struct SliceParam {
  std::vector<std::optional<int64_t>> begin, end, step;
};

SliceParam read_slice(ParamReader& rd) {
  using Items = std::vector<std::optional<int64_t>>;
  return SliceParam{rd.get<Items>("begin"), rd.get<Items>("end"), rd.get<Items>("step", Items{})};
}

// The selected range of every axis as (first index, count, step), by MXNet's rules: None begins
// at the start (the end for a negative step) and ends past the last element (before the first);
// negative values count from the end; a range that selects nothing gives a count of 0. Axes
// past begin's length are taken whole.
std::vector<std::array<int64_t, 3>> slice_ranges(const SliceParam& p, const Shape& in) {
  BRAID_CHECK(in.ndim() >= 1, "operator slice: the input must have at least one dimension");
  BRAID_CHECK(p.begin.size() == p.end.size() && p.begin.size() <= static_cast<size_t>(in.ndim()),
              "operator slice: begin ", p.begin.size(), " and end ", p.end.size(),
              " values must be as many, and at most the input's ", in.ndim(), " dimensions (shape ", in, ")");
  BRAID_CHECK(p.step.empty() || p.step.size() == p.begin.size(), "operator slice: step has ", p.step.size(),
              " values, begin ", p.begin.size(), "; give as many (or no step)");
  std::vector<std::array<int64_t, 3>> ranges;
  for (int i = 0; i < in.ndim(); ++i) {
    const int64_t n = in[i];
    const auto k = static_cast<size_t>(i);
    if (k >= p.begin.size()) {
      ranges.push_back({0, n, 1});
      continue;
    }
    const int64_t s = p.step.empty() || !p.step[k] ? 1 : *p.step[k];
    BRAID_CHECK(s != 0, "operator slice: step[", i, "] must not be 0");
    int64_t b = p.begin[k] ? *p.begin[k] : (s < 0 ? n - 1 : 0);
    int64_t e = p.end[k] ? *p.end[k] : (s < 0 ? -1 : n);
    if (b < 0) b += n;
    if (e < 0 && p.end[k]) e += n;
    if (s > 0) {
      b = std::max<int64_t>(b, 0);
      e = std::min(e, n);
    } else {
      b = std::min(b, n - 1);
      e = std::max<int64_t>(e, -1);
    }
    const bool empty = n == 0 || b < 0 || b > n - 1 || (s > 0 ? e <= b : e >= b);
    ranges.push_back({empty ? 0 : b, empty ? 0 : (s > 0 ? (e - b - 1) / s + 1 : (b - e - 1) / -s + 1), s});
  }
  return ranges;
}

Shape slice_shape(const SliceParam& p, const Shape& in) {
  Shape out = in;
  const auto ranges = slice_ranges(p, in);
  for (int i = 0; i < in.ndim(); ++i)
    if (dim_known(in[i])) out[i] = ranges[static_cast<size_t>(i)][1];  // an unknown extent stays unknown
  return out;
}

// The slice as a view of `in`.
InputView slice_view(const SliceParam& p, const Shape& in) {
  InputView v;
  v.strides = contiguous_strides(in.dims());
  for (const auto& [first, count, step] : slice_ranges(p, in)) {
    const size_t k = v.shape.size();
    v.shape.push_back(count);
    v.offset += first * v.strides[k];
    v.strides[k] *= step;
  }
  return v;
}

void add_slice(Registry& r) {
  OpDef d;
  d.name = "slice";
  d.doc = "Elements begin..end-1 with step along the first axes (None: the whole axis).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "slice");
    SliceParam p = read_slice(rd);
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d), [](const std::any& p, const Shape& in) { return slice_shape(param<SliceParam>(p), in); },
      [](const std::any& p, const Shape& in) { return slice_view(param<SliceParam>(p), in); });
  r.add_alias("crop", "slice");
}

// ---- assignment into a slice ----

struct SliceAssignParam {
  SliceParam slice;
  double scalar = 0;  // _slice_assign_scalar's value
};

// out = (or +=) data with the slice's region filled by `write(view, buffer)` (CPU). Written in
// place unless out is added to, which goes through a temporary.
void copy_then_fill_region(const SliceParam& p, const TBlob& data, const TBlob& out, OpReq req, const char* op,
                           const std::function<void(const InputView&, void*)>& write) {
  if (req == OpReq::Null) return;
  const Dims all = contiguous_strides(data.shape.dims());
  std::vector<char> temporary;
  void* target = out.dptr;
  if (req == OpReq::Add) {
    temporary.resize(static_cast<size_t>(out.size()) * dtype_size(out.dtype));
    target = temporary.data();
  }
  if (data.dptr != target)
    strided_copy(data.dtype, data.dptr, 0, all, target, 0, all, data.shape.dims(), OpReq::Write, op);
  write(slice_view(p, out.shape), target);
  if (req == OpReq::Add) strided_copy(out.dtype, target, 0, all, out.dptr, 0, all, out.shape.dims(), OpReq::Add, op);
}

// dx = (or +=) g with the slice's region zeroed: the gradient of what the assignment kept (CPU).
void gradient_outside_slice(const SliceParam& p, const TBlob& g, const TBlob& dx, OpReq req, const char* op) {
  if (req == OpReq::Null) return;
  const Dims all = contiguous_strides(g.shape.dims());
  const InputView v = slice_view(p, g.shape);
  BRAID_TYPE_SWITCH(g.dtype, T, op, {
    std::vector<T> kept(g.ptr<T>(), g.ptr<T>() + g.size());
    const T zero = T(0);
    strided_copy(g.dtype, &zero, 0, Dims(v.shape.size(), 0), kept.data(), v.offset, v.strides, v.shape, OpReq::Write,
                 op);
    strided_copy(g.dtype, kept.data(), 0, all, dx.dptr, 0, all, g.shape.dims(), req, op);
  });
}

OpDef slice_assign_def(const std::string& name, const std::string& doc, std::vector<std::string> arguments,
                       bool with_scalar) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name, with_scalar](const AttrMap& a) {
    ParamReader rd(a, name);
    SliceAssignParam p{read_slice(rd), with_scalar ? rd.get<double>("scalar", 0.0) : 0.0};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args(std::move(arguments));
  return d;
}

void add_slice_assign(Registry& r) {
  OpDef d =
      slice_assign_def("_slice_assign", "lhs with the slice begin:end:step replaced by rhs.", {"lhs", "rhs"}, false);
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "_slice_assign", "output");
    merge_shape(in[0], out[0], "_slice_assign", "lhs");
    if (!in[0].fully_known()) return false;
    merge_shape(in[1], slice_shape(param<SliceAssignParam>(pa).slice, in[0]), "_slice_assign", "rhs");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const TBlob &rhs = a.inputs[1], &out = a.outputs[0];
    copy_then_fill_region(param<SliceAssignParam>(pa).slice, a.inputs[0], out, a.req[0], "_slice_assign",
                          [&](const InputView& v, void* target) {
                            strided_copy(rhs.dtype, rhs.dptr, 0, contiguous_strides(v.shape), target, v.offset,
                                         v.strides, v.shape, OpReq::Write, "_slice_assign");
                          });
  };
  // lhs's gradient is the output's outside the slice; rhs's the output's inside it.
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<SliceAssignParam>(pa).slice;
    const TBlob& g = a.out_grads[0];
    const InputView v = slice_view(p, g.shape);
    if (a.req[1] != OpReq::Null)
      strided_copy(g.dtype, g.dptr, v.offset, v.strides, a.in_grads[1].dptr, 0, contiguous_strides(v.shape), v.shape,
                   a.req[1], "_slice_assign");
    gradient_outside_slice(p, g, a.in_grads[0], a.req[0], "_slice_assign");
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("_crop_assign", "_slice_assign");
}

void add_slice_assign_scalar(Registry& r) {
  OpDef d =
      slice_assign_def("_slice_assign_scalar", "data with the slice begin:end:step set to scalar.", {"data"}, true);
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("_slice_assign_scalar", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SliceAssignParam>(pa);
    const TBlob& out = a.outputs[0];
    copy_then_fill_region(p.slice, a.inputs[0], out, a.req[0], "_slice_assign_scalar",
                          [&](const InputView& v, void* target) {
                            BRAID_TYPE_SWITCH(out.dtype, T, "_slice_assign_scalar", {
                              const T value = static_cast<T>(p.scalar);
                              strided_copy(out.dtype, &value, 0, Dims(v.shape.size(), 0), target, v.offset, v.strides,
                                           v.shape, OpReq::Write, "_slice_assign_scalar");
                            });
                          });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    gradient_outside_slice(param<SliceAssignParam>(pa).slice, a.out_grads[0], a.in_grads[0], a.req[0],
                           "_slice_assign_scalar");
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("_crop_assign_scalar", "_slice_assign_scalar");
}

// ---- slice_like ----

struct SliceLikeParam {
  std::vector<int64_t> axes;  // empty: all of shape_like's axes
};

Shape slice_like_shape(const SliceLikeParam& p, const Shape& data, const Shape& like) {
  BRAID_CHECK(like.ndim() <= data.ndim(), "operator slice_like: shape_like ", like, " has more dimensions than data ",
              data);
  Shape out = data;
  std::vector<int64_t> axes = p.axes;
  if (axes.empty())
    for (int k = 0; k < like.ndim(); ++k) axes.push_back(k);
  for (int64_t a : axes) {
    const int k = normalize_axis("slice_like", "axes", a, data.ndim(), data);
    BRAID_CHECK(k < like.ndim(), "operator slice_like: axis ", a, " is beyond shape_like ", like);
    BRAID_CHECK(like[k] <= data[k], "operator slice_like: shape_like ", like, " is larger than data ", data,
                " along axis ", k);
    out[k] = like[k];
  }
  return out;
}

void add_slice_like(Registry& r) {
  OpDef d;
  d.name = "slice_like";
  d.doc = "The leading part of data with shape_like's size along `axes` (default: all of shape_like's axes).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "slice_like");
    SliceLikeParam p{rd.get<std::vector<int64_t>>("axes", {})};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "shape_like"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    merge_shape(out[0], slice_like_shape(param<SliceLikeParam>(p), in[0], in[1]), "slice_like", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext& oc, const std::any&, const ForwardArgs& a) {
    const TBlob &x = a.inputs[0], &y = a.outputs[0];
    data_mover(oc.ctx).copy(x.dtype, x.dptr, 0, contiguous_strides(x.shape.dims()), y.dptr, 0,
                            contiguous_strides(y.shape.dims()), y.shape.dims(), a.req[0], "slice_like");
  };
  d.infer_type = shape_only_second_input;
  d.cpu.backward = [](const OpContext& oc, const std::any&, const BackwardArgs& a) {
    const DataMover& move = data_mover(oc.ctx);
    if (a.req[1] == OpReq::Write) move.zero(a.in_grads[1]);
    if (a.req[0] == OpReq::Null) return;
    const TBlob &g = a.out_grads[0], &dx = a.in_grads[0];
    if (a.req[0] == OpReq::Write) move.zero(dx);
    move.copy(g.dtype, g.dptr, 0, contiguous_strides(g.shape.dims()), dx.dptr, 0, contiguous_strides(dx.shape.dims()),
              g.shape.dims(), OpReq::Add, "slice_like");
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

struct CropParam {
  int num_args = 1;
  int64_t y = 0, x = 0, h = 0, w = 0;  // offset and h_w
  bool center = false;
};

// The region of NCHW `data` that Crop keeps as an (offset, strides, shape) view, `out` being the
// output's shape.
InputView crop_view(const CropParam& p, const Shape& data, const Shape& out) {
  const int64_t y = p.center ? (data[2] - out[2]) / 2 : p.y, x = p.center ? (data[3] - out[3]) / 2 : p.x;
  BRAID_CHECK(y >= 0 && x >= 0 && y + out[2] <= data[2] && x + out[3] <= data[3],
              "operator Crop: the region at offset (", y, ", ", x, ") of size (", out[2], ", ", out[3],
              ") lies outside data of shape ", data);
  InputView v;
  v.offset = y * data[3] + x;
  v.shape = out.dims();
  v.strides = contiguous_strides(data.dims());
  return v;
}

void add_crop(Registry& r) {
  OpDef d;
  d.name = "Crop";
  d.doc =
      "The (h, w) region of NCHW data at `offset`, or centered (center_crop); (h, w) is h_w, or the height and "
      "width of a second input crop_like (num_args=2).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "Crop");
    CropParam p;
    p.num_args = rd.get<int>("num_args");
    const auto offset = rd.get<std::vector<int64_t>>("offset", {0, 0});
    const auto h_w = rd.get<std::vector<int64_t>>("h_w", {0, 0});
    p.center = rd.get<bool>("center_crop", false);
    rd.finish();
    BRAID_CHECK(p.num_args == 1 || p.num_args == 2, "operator Crop: num_args=", p.num_args,
                " must be 1 (data, with h_w) or 2 (data and crop_like)");
    BRAID_CHECK(offset.size() == 2 && h_w.size() == 2,
                "operator Crop: offset and h_w take two values, (y, x) and (h, w)");
    p.y = offset[0];
    p.x = offset[1];
    p.h = h_w[0];
    p.w = h_w[1];
    return std::any(p);
  };
  d.list_arguments = [](const std::any& pa) {
    return param<CropParam>(pa).num_args == 2 ? std::vector<std::string>{"data", "crop_like"}
                                              : std::vector<std::string>{"data"};
  };
  d.key_var_num_args = "num_args";
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<CropParam>(pa);
    if (!in[0].fully_known() || (p.num_args == 2 && !in[1].fully_known())) return false;
    BRAID_CHECK(in[0].ndim() == 4, "operator Crop: data must be NCHW (4-D); got shape ", in[0]);
    int64_t h = p.h, w = p.w;
    if (p.num_args == 2) {
      BRAID_CHECK(in[1].ndim() == 4, "operator Crop: crop_like must be NCHW (4-D); got shape ", in[1]);
      h = in[1][2];
      w = in[1][3];
    }
    BRAID_CHECK(h > 0 && w > 0 && h <= in[0][2] && w <= in[0][3], "operator Crop: a region of (", h, ", ", w,
                ") does not fit data of shape ", in[0], "; give h_w (or crop_like) within its height and width");
    const Shape o({in[0][0], in[0][1], h, w});
    crop_view(p, in[0], o);  // checks the offset
    merge_shape(out[0], o, "Crop", "output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    if (in[0] == kDTypeUnknown) in[0] = out[0];
    for (size_t i = 1; i < in.size(); ++i)
      if (in[i] == kDTypeUnknown) in[i] = in[0];
  };
  d.cpu.forward = [](const OpContext& oc, const std::any& pa, const ForwardArgs& a) {
    const TBlob &x = a.inputs[0], &y = a.outputs[0];
    const InputView v = crop_view(param<CropParam>(pa), x.shape, y.shape);
    data_mover(oc.ctx).copy(x.dtype, x.dptr, v.offset, v.strides, y.dptr, 0, contiguous_strides(v.shape), v.shape,
                            a.req[0], "Crop");
  };
  // data's gradient: the output's inside the region, 0 outside; crop_like's: 0 (only its shape
  // is used)
  d.cpu.backward = [](const OpContext& oc, const std::any& pa, const BackwardArgs& a) {
    const DataMover& move = data_mover(oc.ctx);
    if (a.req.size() > 1 && a.req[1] == OpReq::Write) move.zero(a.in_grads[1]);
    if (a.req[0] == OpReq::Null) return;
    const TBlob &g = a.out_grads[0], &dx = a.in_grads[0];
    const InputView v = crop_view(param<CropParam>(pa), dx.shape, g.shape);
    if (a.req[0] == OpReq::Write) move.zero(dx);
    move.copy(g.dtype, g.dptr, 0, contiguous_strides(v.shape), dx.dptr, v.offset, v.strides, v.shape, a.req[0], "Crop");
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_matrix_slice_ops(Registry& r) {
  add_slice(r);
  add_slice_assign(r);
  add_slice_assign_scalar(r);
  add_slice_like(r);
  add_crop(r);
}

}  // namespace braid::op::detail
