// "Custom": a node of an operator written in a frontend (braid/op/custom_op.h), computed by the
// frontend through HostFunctions.
#include "braid/op/custom_op.h"

#include <mutex>

#include "braid/base/error.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op {
namespace {

std::mutex& maker_mutex() {
  static std::mutex m;
  return m;
}

CustomOperatorMaker& maker() {
  static CustomOperatorMaker m;
  return m;
}

struct CustomParam {
  std::string op_type;
  std::shared_ptr<CustomOperator> op;
};

CustomOperator& node(const std::any& p) { return *std::any_cast<const CustomParam&>(p).op; }

bool is_annotation(const std::string& k) {
  return k.size() > 4 && k.rfind("__", 0) == 0 && k.compare(k.size() - 2, 2, "__") == 0;
}

// The frontend's node of `op_type` made with `kwargs`.
CustomParam make_node(const std::string& op_type, const AttrMap& kwargs) {
  CustomOperatorMaker make;
  {
    std::lock_guard<std::mutex> lock(maker_mutex());
    make = maker();
  }
  BRAID_CHECK(make, "operator Custom (op_type ", op_type,
              "): custom operators are written in Python; import braid (or mxnet) in this process and register "
              "the operator with @mx.operator.register");
  return CustomParam{op_type, make(op_type, kwargs)};
}

std::any parse_custom(const AttrMap& attrs) {
  auto it = attrs.find("op_type");
  BRAID_CHECK(it != attrs.end(),
              "operator Custom: the attribute op_type (the name its CustomOpProp was registered "
              "under) is required");
  AttrMap kwargs;
  for (const auto& [k, v] : attrs) {
    if (k != "op_type" && k != "ctx" && !is_annotation(k)) kwargs.emplace(k, v);
  }
  return make_node(it->second, kwargs);
}

// _Native and _NDArray (MXNet's NumpyOp and NDArrayOp): the attribute info names the Python
// object in the process that made the node.
template <const char* kOpName>
std::any parse_python_op(const AttrMap& attrs) {
  BRAID_CHECK(attrs.count("info"), "operator ", kOpName,
              ": the attribute info is required; make the node with NumpyOp or NDArrayOp's get_symbol");
  AttrMap kwargs;
  for (const auto& [k, v] : attrs) {
    if (k != "ctx" && !is_annotation(k)) kwargs.emplace(k, v);
  }
  return make_node(kOpName, kwargs);
}

constexpr char kNative[] = "_Native";
constexpr char kNDArrayOp[] = "_NDArray";

// An operator whose nodes the frontend computes (parse makes the node).
OpDef frontend_op(const char* name, std::string doc, std::any (*parse)(const AttrMap&)) {
  OpDef d;
  d.name = name;
  d.doc = std::move(doc);
  d.parse = parse;
  d.list_arguments = [](const std::any& p) { return node(p).list_arguments(); };
  d.list_aux = [](const std::any& p) { return node(p).list_auxiliary_states(); };
  d.list_outputs = [](const std::any& p) { return node(p).list_outputs(); };
  d.num_outputs = [](const std::any& p) { return static_cast<int>(node(p).list_outputs().size()); };
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux) {
    node(p).infer_shape(in, out, aux);
    return detail::all_known(in) && detail::all_known(out) && detail::all_known(aux);
  };
  d.infer_type = [](const std::any& p, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    node(p).infer_type(in, out, aux);
  };
  d.host.forward = [](const std::any& p, bool training, const std::vector<NDArray>& in, const std::vector<NDArray>& out,
                      const std::vector<NDArray>& aux) { node(p).forward(training, in, out, aux); };
  d.host.backward = [](const std::any& p, bool, const std::vector<OpReq>& req, const std::vector<NDArray>& out_grads,
                       const std::vector<NDArray>& in, const std::vector<NDArray>& out,
                       const std::vector<NDArray>& in_grads,
                       const std::vector<NDArray>& aux) { node(p).backward(req, out_grads, in, out, in_grads, aux); };
  return d;
}

}  // namespace

void set_custom_operator_maker(CustomOperatorMaker m) {
  std::lock_guard<std::mutex> lock(maker_mutex());
  maker() = std::move(m);
}

namespace detail {

void register_custom_op(Registry& r) {
  r.add(frontend_op("Custom",
                    "A node of the custom operator registered in Python as op_type (mx.operator.register): its "
                    "inputs, outputs, shapes, dtypes, forward and backward are its CustomOpProp's and CustomOp's; "
                    "other attributes go to the CustomOpProp as strings.",
                    parse_custom));
  r.add(frontend_op(kNative,
                    "A node of a legacy mx.operator.NumpyOp (made by its get_symbol): forward and backward run "
                    "the Python object named by info on NumPy arrays.",
                    parse_python_op<kNative>));
  r.add(frontend_op(kNDArrayOp,
                    "A node of a legacy mx.operator.NDArrayOp (made by its get_symbol): forward and backward run "
                    "the Python object named by info on NDArrays.",
                    parse_python_op<kNDArrayOp>));
}

}  // namespace detail
}  // namespace braid::op
