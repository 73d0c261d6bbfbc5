// Python custom operators in Braid's graphs: the C++ "Custom" operator (braid/op/custom_op.h)
// asks braid.operator._CustomNode, which wraps the registered CustomOpProp and its CustomOp.
#include "braid/op/custom_op.h"
#include "bindings.h"
#include "braid/base/error.h"

namespace braid::python {
namespace {

py::list shapes_to_python(const std::vector<Shape>& shapes) {
  py::list out;
  for (const auto& s : shapes) out.append(s.known() ? shape_tuple(s) : py::tuple());  // MXNet's () for unknown
  return out;
}

py::list dtypes_to_python(const std::vector<DType>& dtypes) {
  py::list out;
  for (DType t : dtypes) out.append(t == kDTypeUnknown ? py::none() : dtype_type(t));
  return out;
}

/// Fills `into` from what Python returned, (): unknown.
void shapes_from_python(py::handle given, std::vector<Shape>& into, const char* what) {
  auto list = py::reinterpret_borrow<py::sequence>(given);
  BRAID_CHECK(list.size() == into.size(), "infer_shape returned ", list.size(), " ", what, " shapes, expected ",
              into.size());
  for (size_t i = 0; i < into.size(); ++i)
    if (py::len(list[i]) > 0) into[i] = to_shape(list[i]);
}

void dtypes_from_python(py::handle given, std::vector<DType>& into, const char* what) {
  auto list = py::reinterpret_borrow<py::sequence>(given);
  BRAID_CHECK(list.size() == into.size(), "infer_type returned ", list.size(), " ", what, " dtypes, expected ",
              into.size());
  for (size_t i = 0; i < into.size(); ++i)
    if (!list[i].is_none()) into[i] = to_dtype(list[i]);
}

py::list arrays_to_python(const std::vector<NDArray>& arrays) {
  py::list out;
  for (const auto& a : arrays) out.append(a.is_none() ? py::none() : py::cast(a));
  return out;
}

py::list reqs_to_python(const std::vector<op::OpReq>& req) {
  py::list out;
  for (op::OpReq r : req) out.append(r == op::OpReq::Null ? "null" : r == op::OpReq::Add ? "add" : "write");
  return out;
}

/// The Python exception as a braid::Error: MXNetError's message as it is, others with their type.
Error python_error(py::error_already_set& e) {
  const std::string message = py::str(e.value()).cast<std::string>();
  if (e.matches(py::module_::import("braid.base").attr("MXNetError"))) return Error(message);
  return Error(cat(py::str(e.type().attr("__name__")).cast<std::string>(), ": ", message));
}

class PythonCustomOperator : public op::CustomOperator {
 public:
  explicit PythonCustomOperator(std::shared_ptr<py::object> node) : node_(std::move(node)) {}

  std::vector<std::string> list_arguments() override { return names("list_arguments"); }
  std::vector<std::string> list_outputs() override { return names("list_outputs"); }
  std::vector<std::string> list_auxiliary_states() override { return names("list_auxiliary_states"); }

  void infer_shape(std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux) override {
    call([&] {
      py::tuple r = node_->attr("infer_shape")(shapes_to_python(in), out.size(), aux.size());
      shapes_from_python(r[0], in, "input");
      shapes_from_python(r[1], out, "output");
      shapes_from_python(r[2], aux, "auxiliary");
    });
  }

  void infer_type(std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) override {
    call([&] {
      py::tuple r = node_->attr("infer_type")(dtypes_to_python(in), out.size(), aux.size());
      dtypes_from_python(r[0], in, "input");
      dtypes_from_python(r[1], out, "output");
      dtypes_from_python(r[2], aux, "auxiliary");
    });
  }

  void forward(bool training, const std::vector<NDArray>& in, const std::vector<NDArray>& out,
               const std::vector<NDArray>& aux) override {
    call([&] { node_->attr("forward")(training, arrays_to_python(in), arrays_to_python(out), arrays_to_python(aux)); });
  }

  void backward(const std::vector<op::OpReq>& req, const std::vector<NDArray>& out_grads,
                const std::vector<NDArray>& in, const std::vector<NDArray>& out, const std::vector<NDArray>& in_grads,
                const std::vector<NDArray>& aux) override {
    call([&] {
      node_->attr("backward")(reqs_to_python(req), arrays_to_python(out_grads), arrays_to_python(in),
                              arrays_to_python(out), arrays_to_python(in_grads), arrays_to_python(aux));
    });
  }

 private:
  // Calls into Python from any thread; its exceptions come out as braid::Error (MXNetError).
  template <class F>
  static void call(F f) {
    py::gil_scoped_acquire gil;
    try {
      f();
    } catch (py::error_already_set& e) {
      throw python_error(e);
    }
  }

  std::vector<std::string> names(const char* method) {
    std::vector<std::string> out;
    call([&] { out = node_->attr(method)().cast<std::vector<std::string>>(); });
    return out;
  }

  std::shared_ptr<py::object> node_;  // braid.operator._CustomNode
};

}  // namespace

void bind_custom_op(py::module_&) {
  op::set_custom_operator_maker([](const std::string& op_type, const op::AttrMap& attrs) {
    std::shared_ptr<py::object> node;
    {
      py::gil_scoped_acquire gil;
      try {
        py::dict kwargs;
        for (const auto& [k, v] : attrs) kwargs[py::str(k)] = v;
        node = held_with_gil(py::module_::import("braid.operator").attr("_CustomNode")(op_type, kwargs));
      } catch (py::error_already_set& e) {
        throw python_error(e);
      }
    }
    return std::make_shared<PythonCustomOperator>(std::move(node));
  });
}

}  // namespace braid::python
