// mx.contrib.amp's core: the op lists and turning the casts of nd::invoke on and off
// (include/braid/ndarray/amp.h); python/braid/contrib/amp arranges them under MXNet's names.
#include "braid/ndarray/amp.h"

#include "bindings.h"

namespace braid::python {

void bind_amp(py::module_& m) {
  auto a = m.def_submodule("amp", "Braid's automatic mixed precision");
  py::class_<amp::OpLists>(a, "OpLists")
      .def(py::init<>())
      .def_readwrite("target_dtype_ops", &amp::OpLists::target_dtype_ops)
      .def_readwrite("fp32_ops", &amp::OpLists::fp32_ops)
      .def_readwrite("conditional_fp32_ops", &amp::OpLists::conditional_fp32_ops)
      .def_readwrite("widest_type_casts", &amp::OpLists::widest_type_casts)
      .def_readwrite("loss_output_functions", &amp::OpLists::loss_output_functions);
  a.def("default_lists", [](const std::string& dtype) { return amp::default_lists(dtype_from_name(dtype)); });
  a.def("init", [](const std::string& dtype, const amp::OpLists& lists) { amp::init(dtype_from_name(dtype), lists); });
  a.def("reset", &amp::reset);
  a.def("active", &amp::active);
  a.def("target_dtype", [] { return std::string(dtype_name(amp::target_dtype())); });
}

}  // namespace braid::python
