// mx.nd.contrib's small math operators: quadratic (a x² + b x + c), div_sqrt_dim (x / sqrt of the
// last axis's size, attention's scaling), allclose (one 1 or 0: NumPy's allclose) and
// index_array (every element's index along the chosen axes).
#include <cmath>

#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// ---- quadratic

struct QuadraticParam {
  double a = 0, b = 0, c = 0;
};

void add_quadratic(Registry& r) {
  OpDef d;
  d.name = "_contrib_quadratic";
  d.doc = "a x² + b x + c, element-wise.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_contrib_quadratic");
    QuadraticParam p{rd.get<double>("a", 0.0), rd.get<double>("b", 0.0), rd.get<double>("c", 0.0)};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("_contrib_quadratic", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<QuadraticParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_contrib_quadratic", {
      const T* x = a.inputs[0].ptr<T>();
      const T qa = static_cast<T>(p.a), qb = static_cast<T>(p.b), qc = static_cast<T>(p.c);
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [=](int64_t i) { return (qa * x[i] + qb) * x[i] + qc; });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<QuadraticParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_contrib_quadratic", {
      const T *x = a.inputs[0].ptr<T>(), *g = a.out_grads[0].ptr<T>();
      const T qa = static_cast<T>(p.a), qb = static_cast<T>(p.b);
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(),
                 [=](int64_t i) { return g[i] * (T(2) * qa * x[i] + qb); });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.elementwise = true;  // (a csr or row_sparse input keeps its storage when c is 0, as MXNet's)
  r.add(std::move(d));
}

// ---- div_sqrt_dim

void add_div_sqrt_dim(Registry& r) {
  OpDef d;
  d.name = "_contrib_div_sqrt_dim";
  d.doc = "x / sqrt(size of the last axis).";
  d.parse = no_params("_contrib_div_sqrt_dim");
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const bool known = infer_same_shape("_contrib_div_sqrt_dim", in, out);
    if (known)
      BRAID_CHECK(in[0].ndim() >= 1, "operator _contrib_div_sqrt_dim: data needs at least one axis; got ", in[0]);
    return known;
  };
  // y = x · scale (forward) and dx = g · scale (backward) with scale = 1 / sqrt(last axis).
  const auto scaled = [](const TBlob& from, const TBlob& to, OpReq req) {
    BRAID_REAL_TYPE_SWITCH(from.dtype, T, "_contrib_div_sqrt_dim", {
      const T* x = from.ptr<T>();
      const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(from.shape.back())));
      write_each(to.ptr<T>(), req, from.size(), [=](int64_t i) { return x[i] * scale; });
    });
  };
  d.cpu.forward = [scaled](const OpContext&, const std::any&, const ForwardArgs& a) {
    scaled(a.inputs[0], a.outputs[0], a.req[0]);
  };
  d.cpu.backward = [scaled](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] != OpReq::Null) scaled(a.out_grads[0], a.in_grads[0], a.req[0]);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

// ---- allclose: 1 where every |a - b| <= atol + rtol |b| (NaNs equal with equal_nan), else 0.

struct AllCloseParam {
  double rtol = 1e-5, atol = 1e-8;
  bool equal_nan = true;
};

void add_allclose(Registry& r) {
  OpDef d;
  d.name = "_contrib_allclose";
  d.doc = "1 when every |a - b| <= atol + rtol |b| (NumPy's allclose), else 0; a 0-d int32 array.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_contrib_allclose");
    AllCloseParam p;
    p.rtol = rd.get<double>("rtol", p.rtol);
    p.atol = rd.get<double>("atol", p.atol);
    p.equal_nan = rd.get<bool>("equal_nan", p.equal_nan);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"a", "b"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0] == in[1], "operator _contrib_allclose: a and b must have the same shape; got ", in[0], " and ",
                in[1]);
    merge_shape(out[0], Shape(std::vector<int64_t>{}), "_contrib_allclose", "output");  // 0-d, as MXNet
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[1] == kDTypeUnknown) in[1] = in[0];
    out[0] = DType::Int32;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<AllCloseParam>(pa);
    bool close = true;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_contrib_allclose", {
      const T *x = a.inputs[0].ptr<T>(), *y = a.inputs[1].ptr<T>();
      for (int64_t i = 0, n = a.inputs[0].size(); i < n && close; ++i) {
        const double u = static_cast<double>(x[i]), v = static_cast<double>(y[i]);
        if (std::isnan(u) || std::isnan(v))
          close = p.equal_nan && std::isnan(u) && std::isnan(v);
        else
          close = u == v || std::abs(u - v) <= p.atol + p.rtol * std::abs(v);
      }
    });
    assign(a.outputs[0].ptr<int32_t>()[0], a.req[0], close ? 1 : 0);
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

// ---- index_array: out[i..., k] = index of the element along axes[k] (all axes by default), int64.

struct IndexArrayParam {
  std::optional<std::vector<int64_t>> axes;
};

std::vector<int> index_axes(const IndexArrayParam& p, const Shape& s) {
  std::vector<int> axes;
  if (!p.axes) {
    for (int k = 0; k < s.ndim(); ++k) axes.push_back(k);
    return axes;
  }
  for (int64_t a : *p.axes) axes.push_back(s.axis(static_cast<int>(a), "index_array axes"));
  return axes;
}

void add_index_array(Registry& r) {
  OpDef d;
  d.name = "_contrib_index_array";
  d.doc = "Each element's index along `axes` (all by default): shape (*data.shape, len(axes)), int64.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_contrib_index_array");
    IndexArrayParam p{rd.get_optional<std::vector<int64_t>>("axes")};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    std::vector<int64_t> dims = in[0].dims();
    dims.push_back(static_cast<int64_t>(index_axes(param<IndexArrayParam>(pa), in[0]).size()));
    merge_shape(out[0], Shape(dims), "_contrib_index_array", "output");
    return out[0].fully_known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Int64;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const std::vector<int> axes = index_axes(param<IndexArrayParam>(pa), s);
    const auto k = static_cast<int64_t>(axes.size());
    int64_t* out = a.outputs[0].ptr<int64_t>();
    std::vector<int64_t> index(static_cast<size_t>(s.ndim()), 0);
    for (int64_t e = 0, n = s.size(); e < n; ++e) {
      for (int64_t j = 0; j < k; ++j) assign(out[e * k + j], a.req[0], index[static_cast<size_t>(axes[j])]);
      for (int ax = s.ndim() - 1; ax >= 0; --ax) {  // the next row-major index
        if (++index[static_cast<size_t>(ax)] < s[ax]) break;
        index[static_cast<size_t>(ax)] = 0;
      }
    }
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_contrib_math_ops(Registry& r) {
  add_quadratic(r);
  add_div_sqrt_dim(r);
  add_allclose(r);
  add_index_array(r);
}

}  // namespace braid::op::detail
