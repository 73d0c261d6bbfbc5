// MXNet's casts for automatic mixed precision (mx.contrib.amp): amp_cast converts float32,
// float16 and bfloat16 arrays to `dtype` and leaves other dtypes alone; amp_multicast converts
// num_outputs arrays to the widest floating type among them (float32 if any is; with
// cast_narrow, to the narrowest). Gradients are converted back to each input's dtype.
#include "amp_cast.h"

#include "braid/op/param_reader.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

bool amp_float(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

struct AmpCastParam {
  DType dtype = DType::Float32;
};

struct AmpMultiCastParam {
  int num_outputs = 1;
  bool cast_narrow = false;
};

// The dtype amp_multicast gives its floating inputs.
DType common_type(const std::vector<DType>& in, bool narrow) {
  DType chosen = narrow ? DType::Float32 : in[0];
  for (DType t : in) {
    if (!narrow && t == DType::Float32) return DType::Float32;
    if (narrow && (t == DType::Float16 || t == DType::BFloat16)) chosen = t;
  }
  return chosen;
}

OpDef amp_cast_def(const Registry& r) {
  OpDef d;
  d.name = "amp_cast";
  d.doc = "Converts a float32, float16 or bfloat16 array to dtype; other dtypes pass unchanged (AMP).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "amp_cast");
    AmpCastParam p{dtype_from_name(rd.get<std::string>("dtype"))};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("amp_cast", in, out);
  };
  d.infer_type = [](const std::any& p, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[0] != kDTypeUnknown) out[0] = amp_float(in[0]) ? param<AmpCastParam>(p).dtype : in[0];
  };
  d.cpu = r.find("_copyto").cpu;
  return d;
}

OpDef amp_multicast_def(const Registry& r) {
  OpDef d;
  d.name = "amp_multicast";
  d.doc =
      "Converts num_outputs arrays to the widest floating type among them (the narrowest with cast_narrow); "
      "other dtypes pass unchanged (AMP).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "amp_multicast");
    AmpMultiCastParam p;
    p.num_outputs = rd.get<int>("num_outputs");
    p.cast_narrow = rd.get<bool>("cast_narrow", false);
    rd.finish();
    BRAID_CHECK(p.num_outputs >= 1, "operator amp_multicast: num_outputs is ", p.num_outputs, "; give at least 1");
    return std::any(p);
  };
  auto count = [](const std::any& p) { return p.has_value() ? param<AmpMultiCastParam>(p).num_outputs : 1; };
  d.list_arguments = [count](const std::any& p) {
    std::vector<std::string> names;
    for (int i = 0; i < count(p); ++i) names.push_back(cat("data_", i));
    return names;
  };
  d.num_outputs = count;
  d.key_var_num_args = "num_outputs";
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    bool known = true;
    for (size_t i = 0; i < in.size(); ++i) {
      std::vector<Shape> one_in{in[i]}, one_out{out[i]};
      known = infer_same_shape("amp_multicast", one_in, one_out) && known;
      in[i] = one_in[0];
      out[i] = one_out[0];
    }
    return known;
  };
  d.infer_type = [](const std::any& p, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (DType t : in)
      if (t == kDTypeUnknown) return;
    std::vector<DType> floating;
    for (DType t : in)
      if (amp_float(t)) floating.push_back(t);
    const DType to = floating.empty() ? DType::Float32 : common_type(floating, param<AmpMultiCastParam>(p).cast_narrow);
    for (size_t i = 0; i < in.size(); ++i) out[i] = amp_float(in[i]) ? to : in[i];
  };
  d.cpu = pairwise(r.find("_copyto").cpu);
  return d;
}

}  // namespace

Kernels pairwise(const Kernels& single) {
  Kernels k;
  k.takes_16bit = single.takes_16bit;
  k.forward = [f = single.forward](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (a.req[i] != OpReq::Null) f(oc, p, ForwardArgs{{a.inputs[i]}, {a.outputs[i]}, {a.req[i]}, {}});
  };
  k.backward = [b = single.backward](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    for (size_t i = 0; i < a.in_grads.size(); ++i)
      if (a.req[i] != OpReq::Null && i < a.out_grads.size())
        b(oc, p, BackwardArgs{{a.out_grads[i]}, {a.inputs[i]}, {a.outputs[i]}, {}, {a.in_grads[i]}, {a.req[i]}});
  };
  return k;
}

void register_amp_cast_ops(Registry& r) {
  r.add(amp_cast_def(r));
  r.add(amp_multicast_def(r));
}

}  // namespace braid::op::detail
