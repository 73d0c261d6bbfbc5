// softmax, log_softmax and softmin along one axis (MXNet 1.x): attributes axis (default -1),
// temperature, dtype of the output, and use_length (a second input giving each row's length;
// entries past it are 0 in the output and get no gradient). Also MXNet's older
// SoftmaxActivation (mode instance: over everything but the batch axis; channel: over axis 1).
#include <optional>

#include "softmax.h"
#include "softmax_kernels.h"

namespace braid::op::detail {
namespace {

std::function<std::any(const AttrMap&)> parser(const std::string& op, bool log, bool negate) {
  return [=](const AttrMap& attrs) {
    ParamReader rd(attrs, op);
    SoftmaxParam p;
    p.axis = rd.get<int>("axis", p.axis);
    p.spec.temperature = rd.get_optional<double>("temperature").value_or(1.0);
    p.spec.log = log;
    p.spec.negate = negate;
    if (auto t = rd.get_optional<std::string>("dtype")) {
      p.dtype = dtype_from_name(*t);
      BRAID_CHECK(*p.dtype == DType::Float32 || *p.dtype == DType::Float64 || *p.dtype == DType::Float16 ||
                      *p.dtype == DType::BFloat16,
                  "operator ", op, ": dtype ", *t, " is not supported; use a floating type");
    }
    p.use_length = rd.get_optional<bool>("use_length").value_or(false);
    rd.finish();
    BRAID_CHECK(p.spec.temperature > 0, "operator ", op, ": temperature must be positive, got ", p.spec.temperature);
    return std::any(p);
  };
}

// The row lengths as int64 (they may come in any numeric type), or empty without use_length.
std::vector<int64_t> read_lengths(const SoftmaxParam& p, const std::vector<TBlob>& inputs) {
  std::vector<int64_t> lens;
  if (!p.use_length) return lens;
  const TBlob& l = inputs[1];
  lens.resize(static_cast<size_t>(l.size()));
  BRAID_TYPE_SWITCH(l.dtype, L, "softmax length", {
    const L* v = l.ptr<L>();
    for (size_t i = 0; i < lens.size(); ++i) lens[i] = static_cast<int64_t>(v[i]);
  });
  return lens;
}

// Runs f.template operator()<TI, TO>() for the input and output dtypes.
template <class F>
void with_types(DType in, DType out, const char* op, F&& f) {
  BRAID_REAL_TYPE_SWITCH(in, TI, op, { BRAID_REAL_TYPE_SWITCH(out, TO, op, { f.template operator()<TI, TO>(); }); });
}

OpDef make_op(const std::string& name, const std::string& doc, bool log, bool negate) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = parser(name, log, negate);
  d.list_arguments = [](const std::any& p) {
    return param<SoftmaxParam>(p).use_length ? std::vector<std::string>{"data", "length"}
                                             : std::vector<std::string>{"data"};
  };
  d.infer_shape = [name](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<SoftmaxParam>(pa);
    merge_shape(in[0], out[0], name, "data");
    merge_shape(out[0], in[0], name, "output");
    if (!in[0].known()) return false;
    const int axis = checked_axis(name, p.axis, in[0]);
    if (p.use_length) {
      std::vector<int64_t> dims = in[0].dims();
      dims.erase(dims.begin() + axis);
      merge_shape(in[1], Shape(dims), name, "length (the data's shape without the axis)");
    }
    return all_known(in) && all_known(out);
  };
  d.infer_type = [name](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    const auto& p = param<SoftmaxParam>(pa);
    if (p.dtype) {
      BRAID_CHECK(out[0] == kDTypeUnknown || out[0] == *p.dtype, "operator ", name, ": output dtype ",
                  dtype_name(out[0]), " differs from the dtype attribute ", dtype_name(*p.dtype));
      out[0] = *p.dtype;
    } else if (out[0] == kDTypeUnknown) {
      out[0] = in[0];
    } else if (in[0] == kDTypeUnknown) {
      in[0] = out[0];
    }
    BRAID_CHECK(p.dtype || in[0] == out[0], "operator ", name, ": output dtype ", dtype_name(out[0]),
                " differs from the input's ", dtype_name(in[0]), "; set the dtype attribute");
    if (p.use_length && in[1] == kDTypeUnknown) in[1] = DType::Int32;
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SoftmaxParam>(pa);
    const TBlob& data = a.inputs[0];
    const AxisSplit s = AxisSplit::around(data.shape, checked_axis(name, p.axis, data.shape));
    const std::vector<int64_t> lens = read_lengths(p, a.inputs);
    with_types(data.dtype, a.outputs[0].dtype, name.c_str(), [&]<class TI, class TO>() {
      write_with_req(a.outputs[0].ptr<TO>(), data.size(), a.req[0], [&](TO* y) {
        softmax_forward(data.ptr<TI>(), y, s, p.spec, lens.empty() ? nullptr : lens.data());
      });
    });
  };
  d.cpu.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<SoftmaxParam>(pa);
    if (p.use_length) zero_grad(a.in_grads[1], a.req[1]);
    const TBlob& data = a.inputs[0];
    const AxisSplit s = AxisSplit::around(data.shape, checked_axis(name, p.axis, data.shape));
    const std::vector<int64_t> lens = read_lengths(p, a.inputs);
    with_types(data.dtype, a.outputs[0].dtype, name.c_str(), [&]<class TI, class TO>() {
      write_with_req(a.in_grads[0].ptr<TI>(), data.size(), a.req[0], [&](TI* dx) {
        softmax_backward(a.outputs[0].ptr<TO>(), a.out_grads[0].ptr<TO>(), dx, s, p.spec,
                         lens.empty() ? nullptr : lens.data());
      });
    });
  };
  return d;
}

OpDef softmax_activation() {
  OpDef d;
  d.name = "SoftmaxActivation";
  d.doc =
      "MXNet's older softmax: mode 'instance' normalizes each sample over all its values, 'channel' "
      "normalizes over axis 1 at every other position (e.g. per pixel of (N, C, H, W)).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "SoftmaxActivation");
    const bool channel = rd.get_enum("mode", {"instance", "channel"}, "instance") == "channel";
    rd.finish();
    return std::any(channel);
  };
  d.list_arguments = [](const std::any&) { return std::vector<std::string>{"data"}; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(in[0], out[0], "SoftmaxActivation", "data");
    merge_shape(out[0], in[0], "SoftmaxActivation", "output");
    if (!in[0].known()) return false;
    const int need = std::any_cast<bool>(pa) ? 2 : 1;
    BRAID_CHECK(in[0].ndim() >= need, "operator SoftmaxActivation: mode ", need == 2 ? "channel" : "instance",
                " needs data with at least ", need, " axes (batch first), got shape ", in[0]);
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const TBlob& data = a.inputs[0];
    const AxisSplit s = activation_split(data.shape, std::any_cast<bool>(pa));
    BRAID_REAL_TYPE_SWITCH(data.dtype, T, "SoftmaxActivation", {
      write_with_req(a.outputs[0].ptr<T>(), data.size(), a.req[0],
                     [&](T* y) { softmax_forward(data.ptr<T>(), y, s, SoftmaxSpec{}); });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const TBlob& y = a.outputs[0];
    const AxisSplit s = activation_split(y.shape, std::any_cast<bool>(pa));
    BRAID_REAL_TYPE_SWITCH(y.dtype, T, "SoftmaxActivation", {
      write_with_req(a.in_grads[0].ptr<T>(), y.size(), a.req[0],
                     [&](T* dx) { softmax_backward(y.ptr<T>(), a.out_grads[0].ptr<T>(), dx, s, SoftmaxSpec{}); });
    });
  };
  return d;
}

}  // namespace

void register_softmax_ops(Registry& r) {
  r.add(make_op("softmax", "exp(x / temperature) normalized to sum 1 along `axis`.", false, false));
  r.add(make_op("log_softmax", "log(softmax(x)) along `axis`, computed stably.", true, false));
  r.add(make_op("softmin", "softmax(-x) along `axis`.", false, true));
  r.add(softmax_activation());
}

}  // namespace braid::op::detail
