// MXNet's all_finite(data) and multi_all_finite(*data, num_arrays): a float32 array of shape (1,)
// holding 1 when every element of the inputs is finite, else 0 (mixed precision's overflow check;
// with init_output=False the output starts from its current value, so checks can be chained).
// They read 16-bit floats as they are.
#include "all_finite.h"

#include <cmath>

#include "braid/base/half.h"
#include "braid/op/param_reader.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

bool finite_cpu(const TBlob& b) {
  const int64_t n = b.size();
  switch (b.dtype) {
    case DType::Float16: {
      const auto* v = static_cast<const half_t*>(b.dptr);
      for (int64_t i = 0; i < n; ++i)
        if ((v[i].bits & 0x7c00u) == 0x7c00u) return false;  // exponent all ones: inf or NaN
      return true;
    }
    case DType::BFloat16: {
      const auto* v = static_cast<const bfloat16_t*>(b.dptr);
      for (int64_t i = 0; i < n; ++i)
        if ((v[i].bits & 0x7f80u) == 0x7f80u) return false;
      return true;
    }
    default:
      BRAID_REAL_TYPE_SWITCH(b.dtype, T, "all_finite", {
        const T* v = b.ptr<T>();
        for (int64_t i = 0; i < n; ++i)
          if (!std::isfinite(v[i])) return false;
      });
      return true;
  }
}

OpDef all_finite_def(const std::string& name, bool multi) {
  OpDef d;
  d.name = name;
  d.doc = multi ? "1 (float32, shape (1,)) when every element of the num_arrays inputs is finite, else 0."
                : "1 (float32, shape (1,)) when every element of data is finite, else 0.";
  d.parse = [name, multi](const AttrMap& a) {
    ParamReader rd(a, name);
    AllFiniteParam p;
    if (multi) p.num_arrays = rd.get<int>("num_arrays", 1);
    p.init_output = rd.get<bool>("init_output", true);
    rd.finish();
    BRAID_CHECK(p.num_arrays >= 1, "operator ", name, ": num_arrays is ", p.num_arrays, "; give at least 1");
    return std::any(p);
  };
  if (multi) {
    d.list_arguments = [](const std::any& p) {
      std::vector<std::string> names;
      const int n = p.has_value() ? param<AllFiniteParam>(p).num_arrays : 1;
      for (int i = 0; i < n; ++i) names.push_back(cat("array_", i));
      return names;
    };
    d.key_var_num_args = "num_arrays";
  } else {
    d.list_arguments = args({"data"});
  }
  d.infer_shape = [](const std::any&, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    out[0] = Shape({1});
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    float* out = a.outputs[0].ptr<float>();
    bool finite = param<AllFiniteParam>(pa).init_output || *out != 0.0f;
    for (const TBlob& b : a.inputs) finite = finite && finite_cpu(b);
    *out = finite ? 1.0f : 0.0f;
  };
  return d;
}

}  // namespace

void register_all_finite_ops(Registry& r) {
  r.add(all_finite_def("all_finite", false));
  r.add(all_finite_def("multi_all_finite", true));
}

}  // namespace braid::op::detail
