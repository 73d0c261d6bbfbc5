// mx.optimizer: optimizers created by name with MXNet's hyper-parameters.
#include "bindings.h"
#include "braid/optim/optimizers.h"

namespace braid::python {

void bind_optim(py::module_& m) {
  auto o = m.def_submodule("optimizer");
  py::class_<optim::Optimizer, std::shared_ptr<optim::Optimizer>>(o, "Optimizer")
      .def_property_readonly("name", &optim::Optimizer::name)
      .def_property("learning_rate", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate)
      .def_property("lr", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate)
      .def("set_learning_rate", &optim::Optimizer::set_learning_rate)
      .def_property_readonly("wd", &optim::Optimizer::wd)
      .def_property("rescale_grad", &optim::Optimizer::rescale_grad, &optim::Optimizer::set_rescale_grad)
      .def_property_readonly("num_update", &optim::Optimizer::num_update)
      .def("param", &optim::Optimizer::param)
      .def("set_param", [](optim::Optimizer& opt, const std::string& key, py::object value) {
        opt.set_param(key, attr_string(value));
      })
      .def("params", &optim::Optimizer::params)
      .def("update", [](optim::Optimizer& opt, int index, NDArray weight, const NDArray& grad, py::object) {
        opt.update(index, weight, grad);
      }, py::arg("index"), py::arg("weight"), py::arg("grad"), py::arg("state") = py::none())
      .def("__repr__", [](const optim::Optimizer& opt) { return "<Optimizer " + opt.name() + ">"; });
  o.def("create", [](const std::string& name, py::kwargs kwargs) {
    std::map<std::string, std::string> params;
    for (auto [k, v] : kwargs)
      if (!v.is_none()) params[k.cast<std::string>()] = attr_string(v);
    return std::shared_ptr<optim::Optimizer>(optim::create(name, params));
  }, py::arg("name"));
  o.def("names", &optim::optimizer_names);
}

}  // namespace braid::python
