// Creation and copy operators: _zeros, _ones, _full, _arange, _eye, _copyto, Cast.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "braid/base/convert.h"
#include "init_param.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

std::function<std::any(const AttrMap&)> parse_init(const std::string& op, bool has_value) {
  return [op, has_value](const AttrMap& a) {
    ParamReader r(a, op);
    InitParam p;
    p.shape = r.get<Shape>("shape", Shape({}));
    p.dtype = dtype_from_name(r.get<std::string>("dtype", "float32"));
    r.get<std::string>("ctx", "cpu(0)");  // placement is handled by the caller
    if (has_value) p.value = r.get<double>("value");
    r.finish();
    return std::any(p);
  };
}

// A -1 in `shape` is a dimension to infer from the ops that read the output (MXNet's
// sym.ones(shape=(-1, 3))); a 0 is a zero-size axis.
bool infer_from_param(const std::any& p, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
  const Shape& given = param<InitParam>(p).shape;
  std::vector<int64_t> dims = given.dims();
  bool open = false;
  for (auto& d : dims)
    if (d < 0) d = 0, open = true;
  if (!open) {
    merge_shape(out[0], given, "init", "output");
    return out[0].fully_known() || (out[0].known() && out[0].size() == 0);
  }
  merge_shape(out[0], Shape(std::move(dims)), "init", "output");
  return out[0].fully_known();
}

void type_from_param(const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
  out[0] = param<InitParam>(p).dtype;
}

void fill_value(const TBlob& out, double v) {
  BRAID_VALUE_TYPE_SWITCH(out.dtype, T, "fill", {
    T* o = out.ptr<T>();
    const T x = static_cast<T>(v);
    for (int64_t i = 0, end = out.size(); i < end; ++i) o[i] = x;
  });
}

void add_fill_op(Registry& r, const std::string& name, double fixed, bool has_value) {
  OpDef d;
  d.name = name;
  d.doc = "An array filled with one value.";
  d.parse = parse_init(name, has_value);
  d.list_arguments = args({});
  d.infer_shape = infer_from_param;
  d.infer_type = type_from_param;
  d.cpu.forward = [fixed, has_value](const OpContext&, const std::any& p, const ForwardArgs& a) {
    fill_value(a.outputs[0], has_value ? param<InitParam>(p).value : fixed);
  };
  r.add(std::move(d));
}

// MXNet's _zeros_without_dtype (what its gradient passes insert): _zeros whose dtype is an int
// code or a name, -1 (the default) leaving it to the ops reading the output (an imperative call:
// float32, as any output whose dtype nothing fixes).
void add_zeros_without_dtype(Registry& r) {
  OpDef d = r.find("_zeros");
  d.name = "_zeros_without_dtype";
  d.doc = "An array of zeros whose dtype (-1: unset) the graph may decide.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_zeros_without_dtype");
    InitParam p;
    p.shape = rd.get<Shape>("shape", Shape({}));
    const auto dtype = rd.get<std::string>("dtype", "-1");
    const bool code = !dtype.empty() && dtype.find_first_not_of("-0123456789") == std::string::npos;
    p.dtype = !code ? dtype_from_name(dtype) : dtype == "-1" ? kDTypeUnknown : dtype_from_code(std::stoi(dtype));
    rd.get<std::string>("ctx", "cpu(0)");
    rd.finish();
    return std::any(p);
  };
  d.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    const DType given = param<InitParam>(p).dtype;
    if (given != kDTypeUnknown) out[0] = given;
  };
  r.add(std::move(d));
}

struct CastParam {
  DType dtype = DType::Float32;
};

struct EyeParam {
  int64_t rows = 0, cols = 0, k = 0;  // ones at (i, i + k)
  DType dtype = DType::Float32;
};

// MXNet's _eye (nd.eye): an N x M (M=0: N x N) array of zeros with ones on diagonal k.
void add_eye(Registry& r) {
  OpDef d;
  d.name = "_eye";
  d.doc = "An N x M array (M=0: N x N) with ones on diagonal k (0 the main one, > 0 above, < 0 below).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_eye");
    EyeParam p;
    p.rows = rd.get<int64_t>("N");
    p.cols = rd.get<int64_t>("M", 0);
    p.k = rd.get<int64_t>("k", 0);
    p.dtype = dtype_from_name(rd.get<std::string>("dtype", "float32"));
    rd.get<std::string>("ctx", "cpu(0)");
    rd.finish();
    BRAID_CHECK(p.rows >= 0 && p.cols >= 0, "operator _eye: N and M must not be negative, got N=", p.rows,
                " M=", p.cols);
    if (p.cols == 0) p.cols = p.rows;
    return std::any(p);
  };
  d.list_arguments = args({});
  d.infer_shape = [](const std::any& p, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& e = param<EyeParam>(p);
    out[0] = Shape({e.rows, e.cols});
    return true;
  };
  d.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<EyeParam>(p).dtype;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<EyeParam>(pa);
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "_eye", {
      T* o = a.outputs[0].ptr<T>();
      for (int64_t i = 0; i < p.rows; ++i)
        for (int64_t j = 0; j < p.cols; ++j) o[i * p.cols + j] = static_cast<T>(j - i == p.k ? 1 : 0);
    });
  };
  r.add(std::move(d));
}

struct LinspaceParam {
  double start = 0, stop = 0;
  int64_t num = 0;
  bool endpoint = true;
  DType dtype = DType::Float32;
};

// _linspace (NumPy's linspace): num values from start with step (stop - start) / (num - 1), or
// / num without the endpoint; cast to dtype as MXNet does (truncating for integers).
void add_linspace(Registry& r) {
  OpDef d;
  d.name = "_linspace";
  d.doc = "num evenly spaced values from start to stop (stop itself included when endpoint), as NumPy's linspace.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_linspace");
    LinspaceParam p;
    p.start = rd.get<double>("start");
    p.stop = rd.get<double>("stop");
    p.num = rd.get<int64_t>("num");
    p.endpoint = rd.get<bool>("endpoint", true);
    p.dtype = dtype_from_name(rd.get<std::string>("dtype", "float32"));
    rd.get<std::string>("ctx", "cpu(0)");
    rd.finish();
    BRAID_CHECK(p.num >= 0, "operator _linspace: num is ", p.num, "; it must not be negative");
    return std::any(p);
  };
  d.list_arguments = args({});
  d.infer_shape = [](const std::any& p, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    out[0] = Shape({param<LinspaceParam>(p).num});
    return true;
  };
  d.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<LinspaceParam>(p).dtype;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<LinspaceParam>(pa);
    const int64_t steps = p.endpoint ? p.num - 1 : p.num;
    const double step = steps > 0 ? (p.stop - p.start) / static_cast<double>(steps) : 0.0;
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "_linspace", {
      T* o = a.outputs[0].ptr<T>();
      for (int64_t i = 0; i < p.num; ++i) o[i] = static_cast<T>(p.start + step * static_cast<double>(i));
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_init_ops(Registry& r) {
  add_fill_op(r, "_zeros", 0.0, false);
  add_fill_op(r, "_ones", 1.0, false);
  add_fill_op(r, "_full", 0.0, true);
  add_zeros_without_dtype(r);

  OpDef arange;
  arange.name = "_arange";
  arange.doc = "Evenly spaced values in [start, stop), each repeated `repeat` times.";
  arange.parse = [](const AttrMap& a) {
    ParamReader r(a, "_arange");
    ArangeParam p;
    p.start = r.get<double>("start");
    auto stop = r.get_optional<double>("stop");
    p.step = r.get<double>("step", 1.0);
    p.repeat = r.get<int64_t>("repeat", 1);
    p.dtype = dtype_from_name(r.get<std::string>("dtype", "float32"));
    r.get<std::string>("ctx", "cpu(0)");
    r.get<bool>("infer_range", false);
    r.finish();
    if (!stop) {  // arange(n) counts from 0
      p.stop = p.start;
      p.start = 0;
    } else {
      p.stop = *stop;
    }
    BRAID_CHECK(p.step != 0, "operator _arange: step must not be 0");
    BRAID_CHECK(p.repeat >= 1, "operator _arange: repeat must be at least 1");
    return std::any(p);
  };
  arange.list_arguments = args({});
  arange.infer_shape = [](const std::any& p, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    out[0] = Shape({param<ArangeParam>(p).count()});
    return true;
  };
  arange.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<ArangeParam>(p).dtype;
  };
  arange.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ArangeParam>(pa);
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "_arange", {
      T* o = a.outputs[0].ptr<T>();
      for (int64_t i = 0, end = a.outputs[0].size(); i < end; ++i) o[i] = p.at<T>(i);
    });
  };
  r.add(std::move(arange));

  add_eye(r);
  add_linspace(r);

  OpDef copy;
  copy.name = "_copyto";
  copy.doc = "Copies an array (between contexts too).";
  copy.parse = no_params("_copyto");
  copy.list_arguments = args({"data"});
  copy.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("_copyto", in, out);
  };
  copy.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
  };
  copy.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.inputs[0].dptr != a.outputs[0].dptr)
      convert_elements(a.inputs[0].dptr, a.inputs[0].dtype, a.outputs[0].dptr, a.outputs[0].dtype, a.inputs[0].size());
  };
  copy.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const TBlob &g = a.out_grads[0], &d = a.in_grads[0];
    if (a.req[0] == OpReq::Write) return convert_elements(g.dptr, g.dtype, d.dptr, d.dtype, g.size());
    // Add: the gradient converted to the input's dtype first, then added in that dtype.
    std::vector<char> converted;
    const void* from = g.dptr;
    if (g.dtype != d.dtype) {
      converted.resize(static_cast<size_t>(g.size()) * dtype_size(d.dtype));
      convert_elements(g.dptr, g.dtype, converted.data(), d.dtype, g.size());
      from = converted.data();
    }
    BRAID_TYPE_SWITCH(d.dtype, T, "_copyto backward", {
      const T* gv = static_cast<const T*>(from);
      T* dv = d.ptr<T>();
      for (int64_t i = 0, end = d.size(); i < end; ++i) dv[i] += gv[i];
    });
  };
  r.add(std::move(copy));
  r.add_alias("_copy", "_copyto");
  r.add_alias("identity", "_copyto");
  // MXNet's executor inserts it between devices; imperatively and in Braid's graphs, a copy.
  r.add_alias("_CrossDeviceCopy", "_copyto");

  OpDef cast;
  cast.name = "Cast";
  cast.doc = "Converts the elements to another dtype.";
  cast.parse = [](const AttrMap& a) {
    ParamReader r(a, "Cast");
    CastParam p{dtype_from_name(r.get<std::string>("dtype"))};
    r.finish();
    return std::any(p);
  };
  cast.list_arguments = args({"data"});
  cast.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("Cast", in, out);
  };
  cast.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<CastParam>(p).dtype;
  };
  cast.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    convert_elements(a.inputs[0].dptr, a.inputs[0].dtype, a.outputs[0].dptr, a.outputs[0].dtype, a.inputs[0].size());
  };
  cast.cpu.backward = r.find("_copyto").cpu.backward;
  r.add(std::move(cast));
  r.add_alias("cast", "Cast");
}

}  // namespace braid::op::detail
