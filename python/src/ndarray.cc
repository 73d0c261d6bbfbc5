// braid.nd.NDArray and the functions behind braid.nd: creation from and conversion to NumPy,
// arithmetic operators, autograd members, save/load, and running any registered operator.
#include <pybind11/numpy.h>
#include <pybind11/operators.h>

#include <cstring>

#include "bindings.h"
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/block.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/param_reader.h"
#include "braid/op/registry.h"

namespace braid::python {

NDArray from_numpy(py::handle source, std::optional<Context> ctx, std::optional<DType> dtype) {
  DType type = dtype.value_or(DType::Float32);
  BRAID_CHECK(type != DType::BFloat16,
              "nd.array: bfloat16 arrays cannot be made from NumPy data; make a "
              "float32 array and astype('bfloat16')");
  py::dtype np_type(std::string(dtype_name(type)));
  auto src = py::array::ensure(py::module_::import("numpy").attr("asarray")(source, np_type),
                               py::array::c_style | py::array::forcecast);
  BRAID_CHECK(src, "nd.array: cannot convert the source to an array of ", dtype_name(type));
  std::vector<int64_t> dims(src.shape(), src.shape() + src.ndim());
  NDArray out(Shape(dims), Context(cpu()), type);
  out.wait_to_write();
  std::memcpy(out.raw_data(), src.data(), static_cast<size_t>(src.nbytes()));
  Context where = ctx.value_or(current_context());
  return where == out.ctx() ? out : out.copyto(where);
}

py::array to_numpy(const NDArray& a) {
  BRAID_CHECK(!a.is_none(), "asnumpy: the array is None");
  if (a.is_sparse()) {
    NDArray dense;
    {
      py::gil_scoped_release release;
      dense = sparse::cast_storage(a, StorageType::Default);
    }
    return to_numpy(dense);
  }
  NDArray host = a.ctx().is_cpu_family() ? a : a.copyto(cpu());
  {
    py::gil_scoped_release release;
    host.wait_to_read();
  }
  std::vector<py::ssize_t> dims(host.shape().dims().begin(), host.shape().dims().end());
  py::array out(py::dtype(std::string(dtype_name(host.dtype()))), dims);
  std::memcpy(out.mutable_data(), host.raw_data(), static_cast<size_t>(out.nbytes()));
  return out;
}

namespace {

std::string repr(const NDArray& a) {
  if (a.is_none()) return "<NDArray None>";
  std::string dims;
  for (int i = 0; i < a.ndim(); ++i) dims += (i ? "x" : "") + std::to_string(a.shape()[i]);
  if (a.is_sparse())  // MXNet shows no values for compressed arrays
    return cat("\n<", a.stype() == StorageType::CSR ? "CSRNDArray" : "RowSparseNDArray", " ", dims, " @", a.ctx().str(),
               ">");
  std::string values = py::str(to_numpy(a)).cast<std::string>();
  return "\n" + values + "\n<NDArray " + dims + " @" + a.ctx().str() + ">";
}

/// An operator's input from Python: an array, or a gluon Parameter (a Python hybrid_forward
/// receives its deferred parameters so, to complete their shapes from the operator).
bool is_input(py::handle v) { return py::isinstance<NDArray>(v) || py::isinstance<gluon::Parameter>(v); }

gluon::OpArg op_arg(py::handle v) {
  if (py::isinstance<NDArray>(v)) return v.cast<NDArray>();
  return v.cast<gluon::ParameterPtr>();
}

/// nd.<op>(*args, **kwargs): arrays (positional or by argument name) are inputs, the rest are
/// attributes, `out` receives the results.
py::object invoke_op(const std::string& op, const py::list& args, const py::dict& kwargs) {
  std::vector<std::pair<std::string, gluon::OpArg>> inputs;
  op::AttrMap attrs;
  std::vector<NDArray> out;
  py::object out_arg = py::none();
  bool parameters = false;
  for (auto a : args) {
    BRAID_CHECK(is_input(a), "operator ", op, ": positional argument ", inputs.size(), " must be an NDArray, got ",
                py::str(py::type::of(a)).cast<std::string>(), "; give attributes by keyword");
    parameters = parameters || !py::isinstance<NDArray>(a);
    inputs.emplace_back("", op_arg(a));
  }
  for (auto [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    if (key == "out") {
      out_arg = py::reinterpret_borrow<py::object>(v);
      if (py::isinstance<NDArray>(v))
        out.push_back(v.cast<NDArray>());
      else if (!v.is_none())
        out = v.cast<std::vector<NDArray>>();
    } else if (key == "name") {
      continue;  // a symbol's name; arrays have none
    } else if (is_input(v)) {
      parameters = parameters || !py::isinstance<NDArray>(v);
      inputs.emplace_back(key, op_arg(v));
    } else {
      attrs[key] = v.is_none() ? "None" : attr_string(v);  // MXNet passes None on as "None"
    }
  }
  BRAID_CHECK(!parameters || out.empty(), "operator ", op, ": out= cannot be used with Parameter inputs");
  std::vector<NDArray> results;
  {
    py::gil_scoped_release release;
    if (parameters) {
      results = gluon::invoke_with_parameters(op, inputs, attrs, "nd." + op);
    } else {
      std::vector<std::pair<std::string, NDArray>> arrays;
      for (auto& [name, a] : inputs) arrays.emplace_back(name, std::get<NDArray>(a));
      results = nd::invoke_named(op, arrays, attrs, out);
    }
  }
  if (!out_arg.is_none()) return out_arg;
  if (results.size() == 1) return py::cast(results[0]);
  return py::cast(results);
}

NDArray array_from_state(const py::dict& state) {
  BRAID_CHECK(state.contains("handle"), "NDArray.__setstate__: the state has no 'handle' entry");
  // bytes or bytearray (MXNet pickles a bytearray)
  std::string raw = py::module_::import("builtins").attr("bytes")(state["handle"]).cast<std::string>();
  return io::load_array_from_raw_bytes(raw, "the pickled NDArray");
}

// MXNet's rule for NumPy shape semantics (np_shape: 0 off, 1 on in a scope, 2 on globally): a V3
// file loads only with it on, any other file only with it off or on globally.
py::object load_named(io::NamedArrays c, int np_shape, const std::string& source) {
  if (!c.arrays.empty()) {
    BRAID_CHECK(!c.numpy_shapes || np_shape != 0, source,
                ": the arrays were saved under NumPy shape semantics; load them inside `with mx.np_shape(True):`");
    BRAID_CHECK(c.numpy_shapes || np_shape != 1, source,
                ": the arrays were not saved under NumPy shape semantics; load them outside `mx.np_shape()`");
  }
  if (c.names.empty()) return py::cast(c.arrays);
  py::dict d;
  for (size_t i = 0; i < c.arrays.size(); ++i) d[py::str(c.names[i])] = c.arrays[i];
  return d;
}

}  // namespace

void bind_ndarray(py::module_& m) {
  py::class_<NDArray> cls(m, "NDArray");
  cls.def_property_readonly("shape", [](const NDArray& a) { return shape_tuple(a.shape()); })
      .def_property_readonly("dtype", [](const NDArray& a) { return dtype_type(a.dtype()); })
      .def_property_readonly("context", &NDArray::ctx)
      .def_property_readonly("ctx", &NDArray::ctx)
      .def_property_readonly("size", &NDArray::size)
      .def_property_readonly("ndim", &NDArray::ndim)
      .def_property_readonly("stype", [](const NDArray& a) { return storage_type_name(a.stype()); })
      .def(
          "tostype",
          [](const NDArray& a, const std::string& stype) { return sparse::cast_storage(a, parse_storage_type(stype)); },
          py::arg("stype"), py::call_guard<py::gil_scoped_release>())
      .def("asnumpy", &to_numpy)
      .def("wait_to_read", &NDArray::wait_to_read, py::call_guard<py::gil_scoped_release>())
      .def("wait_to_write", &NDArray::wait_to_write, py::call_guard<py::gil_scoped_release>())
      .def(
          "copyto",
          [](const NDArray& a, py::object other) -> NDArray {
            if (py::isinstance<NDArray>(other)) return a.copyto(other.cast<NDArray>());
            return a.copyto(to_context(other));
          },
          py::arg("other"))
      .def("copy", &NDArray::copy)
      .def("as_in_context", [](const NDArray& a, py::object ctx) { return a.as_in_context(to_context(ctx)); })
      .def("as_in_ctx", [](const NDArray& a, py::object ctx) { return a.as_in_context(to_context(ctx)); })
      .def(
          "astype",
          [](py::object self, py::object dtype, bool copy) -> py::object {
            const NDArray& a = self.cast<const NDArray&>();
            DType t = to_dtype(dtype);
            return (!copy && t == a.dtype()) ? self : py::cast(a.astype(t));  // the same object, as MXNet
          },
          py::arg("dtype"), py::arg("copy") = true)
      .def("_reshape", [](const NDArray& a, const std::vector<int64_t>& spec) { return a.reshape(spec); })
      .def("_slice0", &NDArray::slice)
      .def("_at", &NDArray::at)
      .def("expand_dims", &NDArray::expand_dims, py::arg("axis"))
      .def("_fill", [](NDArray& a, double v) { a.fill(v); })
      .def("_assign", [](NDArray& a, const NDArray& src) { a.assign(src); })
      .def(
          "attach_grad",
          [](NDArray& a, const std::string& grad_req, py::object stype) {
            // MXNet's default: the gradient is stored like the array
            a.attach_grad(parse_grad_req(grad_req),
                          stype.is_none() ? a.stype() : parse_storage_type(stype.cast<std::string>()));
          },
          py::arg("grad_req") = "write", py::arg("stype") = py::none())
      .def_property_readonly("grad",
                             [](const NDArray& a) -> py::object {
                               NDArray g = a.grad();
                               return g.is_none() ? py::none() : py::cast(g);
                             })
      // Whether a backward wrote the gradient since the flag was cleared (Trainer's stale check).
      .def_property(
          "_fresh_grad", [](const NDArray& a) { return autograd::fresh_grad(a); },
          [](const NDArray& a, bool fresh) { autograd::set_fresh_grad(a, fresh); })
      .def_property_readonly("_grad_req", [](const NDArray& a) { return grad_req_name(a.grad_req()); })
      .def(
          "backward",
          [](const NDArray& a, std::optional<NDArray> out_grad, bool retain_graph, bool train_mode) {
            a.backward(out_grad.value_or(NDArray()), retain_graph, train_mode);
          },
          py::arg("out_grad") = py::none(), py::arg("retain_graph") = false, py::arg("train_mode") = true,
          py::call_guard<py::gil_scoped_release>())
      // Pickling stores MXNet's raw bytes of the array ({'handle': bytes}, as MXNet's __getstate__);
      // __setstate__ makes this object the loaded array, as MXNet replaces its handle.
      .def("__getstate__",
           [](const NDArray& a) {
             std::string raw = io::save_array_to_raw_bytes(a);
             py::dict state;
             state["handle"] = py::bytearray(raw.data(), raw.size());
             return state;
           })
      // (pybind11 treats a C++ __setstate__ as a constructor: ndarray.py names this one so)
      .def("_set_from_state", [](NDArray& a, const py::dict& state) { a = array_from_state(state); })
      .def("detach", &NDArray::detach)
      .def("_same_as", &NDArray::same_as)
      // Where the elements start (np.shares_memory compares ranges): an address, nothing read.
      .def("_data_address", [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.raw_data()); })
      .def("__repr__", &repr)
      .def("__hash__", [](py::object self) { return py::hash(py::cast<py::object>(PyLong_FromVoidPtr(self.ptr()))); })
      .def("__len__",
           [](const NDArray& a) {
             BRAID_CHECK(a.ndim() >= 1, "len() of a 0-d array");
             return a.shape()[0];
           })
      .def(py::self + py::self)
      .def(py::self - py::self)
      .def(py::self * py::self)
      .def(py::self / py::self)
      .def(py::self + double())
      .def(py::self - double())
      .def(py::self * double())
      .def(py::self / double())
      .def(double() + py::self)
      .def(double() - py::self)
      .def(double() * py::self)
      .def(double() / py::self)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def(py::self <= py::self)
      .def(py::self > py::self)
      .def(py::self >= py::self)
      .def(py::self == double())
      .def(py::self != double())
      .def(py::self < double())
      .def(py::self <= double())
      .def(py::self > double())
      .def(py::self >= double())
      .def(-py::self)
      .def(py::self += py::self)
      .def(py::self -= py::self)
      .def(py::self *= py::self)
      .def(py::self /= py::self)
      .def(py::self += double())
      .def(py::self -= double())
      .def(py::self *= double())
      .def(py::self /= double())
      .def("__pow__", [](const NDArray& a, const NDArray& b) { return nd::power(a, b); })
      .def("__pow__", [](const NDArray& a, double b) { return nd::power(a, b); })
      .def("__abs__", [](const NDArray& a) { return nd::abs(a); })
      .def("__rpow__", [](const NDArray& a, double b) { return nd::power(b, a); });

  m.def(
      "array",
      [](py::object source, py::object ctx, py::object dtype) {
        if (py::isinstance<NDArray>(source)) {
          NDArray s = source.cast<NDArray>();
          NDArray out = s.copyto(ctx.is_none() ? s.ctx() : to_context(ctx));
          return dtype.is_none() || to_dtype(dtype) == out.dtype() ? out : out.astype(to_dtype(dtype));
        }
        std::optional<DType> t;
        if (!dtype.is_none()) t = to_dtype(dtype);
        return from_numpy(source, to_context(ctx), t);
      },
      py::arg("source_array"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  auto maker = [&](const char* name, NDArray (*fn)(const Shape&, Context, DType)) {
    m.def(
        name,
        [fn](py::object shape, py::object ctx, py::object dtype) {
          return fn(to_shape(shape), to_context(ctx), dtype.is_none() ? DType::Float32 : to_dtype(dtype));
        },
        py::arg("shape"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  };
  maker("empty", &nd::empty);
  maker("zeros", &nd::zeros);
  maker("ones", &nd::ones);
  m.def(
      "full",
      [](py::object shape, double value, py::object ctx, py::object dtype) {
        return nd::full(to_shape(shape), value, to_context(ctx), dtype.is_none() ? DType::Float32 : to_dtype(dtype));
      },
      py::arg("shape"), py::arg("val"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  m.def(
      "arange",
      [](double start, py::object stop, double step, int64_t repeat, py::object ctx, py::object dtype) {
        double lo = stop.is_none() ? 0.0 : start, hi = stop.is_none() ? start : stop.cast<double>();
        return nd::arange(lo, hi, step, repeat, to_context(ctx), dtype.is_none() ? DType::Float32 : to_dtype(dtype));
      },
      py::arg("start"), py::arg("stop") = py::none(), py::arg("step") = 1.0, py::arg("repeat") = 1,
      py::arg("ctx") = py::none(), py::arg("dtype") = py::none());

  m.def("invoke", &invoke_op, py::arg("op"), py::arg("args"), py::arg("kwargs"));
  m.def("list_operators", [] { return op::Registry::get().names(); });
  m.def("list_operators_and_aliases", [] { return op::Registry::get().names_and_aliases(); });
  m.def("operator_doc", [](const std::string& name) { return op::Registry::get().find(name).doc; });
  m.def("operator_arguments",
        [](const std::string& name) { return op::describe_arguments(op::Registry::get().find(name)); });
  m.def("operator_exists", [](const std::string& name) { return op::Registry::get().find_or_null(name) != nullptr; });
  m.def("waitall", &nd::waitall, py::call_guard<py::gil_scoped_release>());
  m.def("seed", [](uint64_t s) { nd::seed(s); });

  m.def(
      "save",
      [](const std::string& path, py::object data, bool numpy_shapes) {
        io::NamedArrays c;
        c.numpy_shapes = numpy_shapes;
        if (py::isinstance<NDArray>(data)) {
          c.arrays.push_back(data.cast<NDArray>());
        } else if (py::isinstance<py::dict>(data)) {
          for (auto [k, v] : data.cast<py::dict>()) {
            c.names.push_back(k.cast<std::string>());
            c.arrays.push_back(v.cast<NDArray>());
          }
        } else {
          c.arrays = data.cast<std::vector<NDArray>>();
        }
        io::save(path, c);
      },
      py::arg("fname"), py::arg("data"), py::arg("numpy_shapes") = false);
  m.def(
      "load", [](const std::string& path, int np_shape) { return load_named(io::load(path), np_shape, path); },
      py::arg("fname"), py::arg("np_shape") = 0);
  m.def(
      "load_frombuffer",
      [](const py::bytes& buf, int np_shape) {
        return load_named(io::load_from_bytes(std::string(buf)), np_shape, "the buffer");
      },
      py::arg("buf"), py::arg("np_shape") = 0);
  m.def("_ndarray_from_state", &array_from_state);
}

}  // namespace braid::python
