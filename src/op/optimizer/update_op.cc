#include "update_op.h"

namespace braid::op::detail {
namespace {

bool is_real(DType t) { return t == DType::Float32 || t == DType::Float64; }

}  // namespace

void infer_update_type(const UpdateOpSpec& spec, bool mp, const std::string& name, std::vector<DType>& in,
                       std::vector<DType>& out) {
  if (!mp) {
    std::vector<DType> aux;
    infer_same_type(name, in, out, aux);
    // 16-bit weights (and states) are updated through float32 copies (float16_compute.h), as
    // MXNet's kernels widen them; the mp_ twin keeps a float32 master copy instead.
    BRAID_CHECK(in[0] == kDTypeUnknown || is_real(in[0]) || in[0] == DType::Float16 || in[0] == DType::BFloat16,
                "operator ", name, ": weight is ", dtype_name(in[0]), "; it updates floating-point weights");
    return;
  }
  std::vector<DType> visible{in[0], in[1]}, aux;
  infer_same_type(name, visible, out, aux);
  in[0] = in[1] = visible[0];
  BRAID_CHECK(in[0] == kDTypeUnknown || is_real(in[0]) || in[0] == DType::Float16, "operator ", name, ": weight is ",
              dtype_name(in[0]), "; it updates float16, float32 or float64 weights");
  for (size_t i = 2; i < in.size(); ++i) {
    BRAID_CHECK(in[i] == kDTypeUnknown || in[i] == DType::Float32, "operator ", name, ": ",
                i < in.size() - 1 ? spec.states[i - 2] : std::string("weight32"), " is ", dtype_name(in[i]),
                " but must be float32 (the master copy and states stay float32)");
    in[i] = DType::Float32;
  }
}

OpDef update_op_def(const UpdateOpSpec& spec, bool mp) {
  OpDef d;
  d.name = mp ? spec.mp_name : spec.name;
  d.doc = mp ? spec.doc +
                   " Multi-precision: updates the float32 master copy weight32 and writes it "
                   "rounded to the weight's dtype."
             : spec.doc;
  d.parse = [name = d.name, attrs = spec.attrs](const AttrMap& a) {
    return std::any(parse_update_param(a, name, attrs));
  };
  std::vector<std::string> arguments{"weight", "grad"};
  arguments.insert(arguments.end(), spec.states.begin(), spec.states.end());
  if (mp) arguments.push_back("weight32");
  std::vector<int> mutated;
  for (size_t i = 2; i < arguments.size(); ++i) mutated.push_back(static_cast<int>(i));
  d.mutate_inputs = [mutated](const std::any&) { return mutated; };
  d.list_arguments = args(arguments);
  d.infer_shape = [name = d.name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) { return infer_same_shape(name, in, out); };
  d.infer_type = [spec, mp, name = d.name](const std::any&, std::vector<DType>& in, std::vector<DType>& out,
                                           std::vector<DType>&) { infer_update_type(spec, mp, name, in, out); };
  return d;
}

}  // namespace braid::op::detail
