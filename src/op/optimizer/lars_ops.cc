// MXNet's helpers of the LARS optimizer (You et al. 2017): multi_sum_sq, the sum of squares of
// each of num_arrays arrays (float32, shape (num_arrays,)), and multi_lars, the layer-wise
// learning rates from those norms:
//   lr_i * eta * ||w_i|| / (||g_i|| * rescale_grad + wd_i * ||w_i|| + eps)   where both norms > 0,
//   lr_i                                                                        otherwise.
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op.h"

namespace braid::op::detail {
namespace {

struct LarsParam {
  double eta = 0, eps = 0, rescale_grad = 1;
};

void add_multi_sum_sq(Registry& r) {
  OpDef d;
  d.name = "multi_sum_sq";
  d.doc = "The sum of the squares of each of num_arrays arrays, as a float32 array of num_arrays values.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "multi_sum_sq");
    const int n = rd.get<int>("num_arrays");
    rd.finish();
    BRAID_CHECK(n >= 1, "multi_sum_sq: num_arrays is ", n, "; give at least one array");
    return std::any(n);
  };
  d.key_var_num_args = "num_arrays";
  d.list_arguments = [](const std::any& pa) {
    std::vector<std::string> names;
    for (int i = 0; i < (pa.has_value() ? param<int>(pa) : 1); ++i) names.push_back(cat("array_", i));
    return names;
  };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], Shape({static_cast<int64_t>(in.size())}), "multi_sum_sq", "output");
    return all_known(in);
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    float* out = a.outputs[0].ptr<float>();
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      double s = 0;
      switch (a.inputs[i].dtype) {
        case DType::Float16: {
          const half_t* x = a.inputs[i].ptr<half_t>();
          for (int64_t k = 0; k < a.inputs[i].size(); ++k) s += double(half_to_float(x[k])) * half_to_float(x[k]);
          break;
        }
        default:
          BRAID_REAL_TYPE_SWITCH(a.inputs[i].dtype, T, "multi_sum_sq", {
            const T* x = a.inputs[i].ptr<T>();
            for (int64_t k = 0; k < a.inputs[i].size(); ++k) s += static_cast<double>(x[k]) * static_cast<double>(x[k]);
          });
      }
      assign(out[i], a.req[0], static_cast<float>(s));
    }
  };
  r.add(std::move(d));
}

void add_multi_lars(Registry& r) {
  OpDef d;
  d.name = "multi_lars";
  d.doc =
      "LARS learning rates: lrs*eta*||w||/(||g||*rescale_grad + wds*||w|| + eps) from the sums of squares "
      "weights_sum_sq and grads_sum_sq (multi_sum_sq), or lrs where a norm is 0; float32 arrays of one value per "
      "layer.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "multi_lars");
    LarsParam p;
    p.eta = rd.get<double>("eta");
    p.eps = rd.get<double>("eps");
    p.rescale_grad = rd.get<double>("rescale_grad", p.rescale_grad);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"lrs", "weights_sum_sq", "grads_sum_sq", "wds"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    for (const auto& s : in) merge_shape(out[0], s, "multi_lars", "argument");
    for (auto& s : in) merge_shape(s, out[0], "multi_lars", "argument");
    return out[0].fully_known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (DType& t : in) {
      BRAID_CHECK(t == kDTypeUnknown || t == DType::Float32, "multi_lars: its arguments must be float32, got ",
                  dtype_name(t));
      t = DType::Float32;
    }
    out[0] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<LarsParam>(pa);
    const float *lrs = a.inputs[0].ptr<float>(), *wsq = a.inputs[1].ptr<float>(), *gsq = a.inputs[2].ptr<float>();
    const float* wds = a.inputs[3].ptr<float>();
    float* out = a.outputs[0].ptr<float>();
    for (int64_t i = 0; i < a.outputs[0].size(); ++i) {
      const float w_norm = std::sqrt(wsq[i]);
      const bool valid = w_norm > 0 && gsq[i] > 0;
      const float lr = valid ? lrs[i] * float(p.eta) * w_norm /
                                   (std::sqrt(gsq[i]) * float(p.rescale_grad) + wds[i] * w_norm + float(p.eps))
                             : lrs[i];
      assign(out[i], a.req[0], lr);
    }
  };
  r.add(std::move(d));
}

}  // namespace

void register_lars_ops(Registry& r) {
  add_multi_sum_sq(r);
  add_multi_lars(r);
}

}  // namespace braid::op::detail
