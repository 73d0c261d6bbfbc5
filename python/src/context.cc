// braid.Context: MXNet's device context (cpu(0), gpu(1)).
#include <pybind11/operators.h>

#include "bindings.h"
#include "braid/device/gpu.h"

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
      // MXNet's class attribute Context.default_ctx: this thread's default context, kept by
      // braid.context (a thread-local stack that `with ctx:` pushes onto).
      .def_property_static(
          "default_ctx", [](py::object) { return py::module_::import("braid.context").attr("current_context")(); },
          [](py::object, py::object ctx) { py::module_::import("braid.context").attr("_set_current_context")(ctx); })
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const Context& c) { return std::hash<Context>()(c); })
      .def("__repr__", &Context::str)
      .def("__str__", &Context::str)
      .def(
          py::pickle([](const Context& c) { return c.str(); }, [](const std::string& s) { return Context::parse(s); }));
  py::dict devtype2str, devstr2type;
  for (DeviceType t : {DeviceType::CPU, DeviceType::GPU, DeviceType::CPUPinned, DeviceType::CPUShared}) {
    devtype2str[py::int_(static_cast<int>(t))] = type_name(t);
    devstr2type[py::str(type_name(t))] = static_cast<int>(t);
  }
  m.attr("Context").attr("devtype2str") = devtype2str;
  m.attr("Context").attr("devstr2type") = devstr2type;
  m.def("num_gpus", &num_gpus);
  m.def(
      "gpu_memory_info",
      [](int device_id) {
        const auto info = gpu_runtime::memory_info(device_id);
        return py::make_tuple(info.free, info.total);
      },
      py::arg("device_id") = 0, "(free, total) bytes of GPU device_id's memory");
}

}  // namespace braid::python
