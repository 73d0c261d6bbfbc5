// Python values -> MXNet's attribute strings, dtypes, shapes and contexts.
#include <cmath>

#include "bindings.h"
#include "braid/base/error.h"
#include "braid/init/init.h"

namespace braid::python {

std::string attr_string(py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "True" : "False";
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::int_>(value)) return py::str(value).cast<std::string>();
  if (py::isinstance<py::float_>(value)) return py::repr(value).cast<std::string>();
  if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
    auto seq = py::reinterpret_borrow<py::sequence>(value);
    std::string s = "(";
    for (size_t i = 0; i < seq.size(); ++i) s += (i ? ", " : "") + attr_string(seq[i]);
    return s + (seq.size() == 1 ? ",)" : ")");
  }
  if (py::isinstance<Context>(value)) return value.cast<Context>().str();
  // NumPy scalars and dtypes, and anything else that prints as MXNet expects.
  auto numpy = py::module_::import("numpy");
  if (py::isinstance(value, numpy.attr("ndarray")))  // a shape given as an array: its values
    return attr_string(value.attr("tolist")());
  if (py::isinstance(value, numpy.attr("integer")))
    return py::str(py::int_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  if (py::isinstance(value, numpy.attr("floating")))
    return py::repr(py::float_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  if (py::isinstance(value, numpy.attr("dtype")) || py::isinstance<py::type>(value)) {
    return dtype_name(to_dtype(value));
  }
  return py::str(value).cast<std::string>();
}

op::AttrMap attr_map(const py::dict& kwargs) {
  op::AttrMap attrs;
  for (auto [k, v] : kwargs) {
    if (!v.is_none()) attrs[k.cast<std::string>()] = attr_string(v);
  }
  return attrs;
}

// NumPy has no bfloat16: MXNet names it by the structured dtype [('bfloat16', '<u2')].
py::object bfloat16_numpy_dtype() {
  py::list fields;
  fields.append(py::make_tuple("bfloat16", "<u2"));
  return py::module_::import("numpy").attr("dtype")(fields);
}

DType to_dtype(py::handle value) {
  if (py::isinstance<py::str>(value)) return dtype_from_name(value.cast<std::string>());
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(value));
  if (dt.equal(bfloat16_numpy_dtype())) return DType::BFloat16;
  return dtype_from_name(py::str(dt).cast<std::string>());
}

py::object dtype_type(DType dtype) {
  if (dtype == DType::BFloat16) return bfloat16_numpy_dtype();
  return py::dtype(std::string(dtype_name(dtype))).attr("type");
}

Shape to_shape(py::handle value) {
  if (py::isinstance<py::int_>(value)) return Shape({value.cast<int64_t>()});
  std::vector<int64_t> dims;
  for (auto d : py::reinterpret_borrow<py::sequence>(value)) dims.push_back(d.cast<int64_t>());
  return Shape(std::move(dims));
}

py::tuple shape_tuple(const Shape& shape) {
  py::tuple t(static_cast<size_t>(std::max(shape.ndim(), 0)));
  for (int i = 0; i < shape.ndim(); ++i) t[static_cast<size_t>(i)] = shape[i];
  return t;
}

Context to_context(py::handle value) {
  if (value.is_none()) return current_context();
  if (py::isinstance<py::str>(value)) return Context::parse(value.cast<std::string>());
  return value.cast<Context>();
}

std::vector<Context> contexts(py::handle ctx) {
  if (ctx.is_none()) return {current_context()};
  if (py::isinstance<py::list>(ctx) || py::isinstance<py::tuple>(ctx)) {
    std::vector<Context> out;
    for (auto c : py::reinterpret_borrow<py::sequence>(ctx)) out.push_back(to_context(c));
    return out;
  }
  return {to_context(ctx)};
}

init::InitializerPtr init_of(py::handle value) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::str>(value)) return init::create(value.cast<std::string>());
  return value.cast<std::shared_ptr<init::Initializer>>();
}

std::shared_ptr<py::function> hold(py::function fn) {
  return std::shared_ptr<py::function>(new py::function(std::move(fn)), [](py::function* f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
}

Context current_context() { return py::module_::import("braid.context").attr("current_context")().cast<Context>(); }

}  // namespace braid::python
