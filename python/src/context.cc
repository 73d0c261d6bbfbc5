// braid.Context: MXNet's device context (cpu(0), gpu(1)).
#include <pybind11/operators.h>

#include "bindings.h"

namespace braid::python {
namespace {

const char* type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::GPU:
      return "gpu";
    case DeviceType::CPUPinned:
      return "cpu_pinned";
    case DeviceType::CPUShared:
      return "cpu_shared";
  }
  return "cpu";
}

}  // namespace

void bind_context(py::module_& m) {
  py::class_<Context>(m, "Context")
      .def(py::init([](py::object device_type, int device_id) {
             if (py::isinstance<Context>(device_type)) return device_type.cast<Context>();
             return Context::parse(device_type.cast<std::string>() + "(" + std::to_string(device_id) + ")");
           }),
           py::arg("device_type"), py::arg("device_id") = 0)
      .def_property_readonly("device_type", [](const Context& c) { return type_name(c.dev_type); })
      .def_property_readonly("device_typeid", [](const Context& c) { return static_cast<int>(c.dev_type); })
      .def_property_readonly("device_id", [](const Context& c) { return c.dev_id; })
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const Context& c) { return std::hash<Context>()(c); })
      .def("__repr__", &Context::str)
      .def("__str__", &Context::str)
      .def(
          py::pickle([](const Context& c) { return c.str(); }, [](const std::string& s) { return Context::parse(s); }));
  m.def("num_gpus", &num_gpus);
}

}  // namespace braid::python
