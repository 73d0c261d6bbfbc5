// mx.optimizer: optimizers created by name with MXNet's hyper-parameters.
#include "bindings.h"
#include "braid/optim/lr_scheduler.h"
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
  o.def("_set_lr_scheduler", [](optim::Optimizer& opt, std::shared_ptr<optim::LRScheduler> s) { opt.set_lr_scheduler(s); });

  auto l = m.def_submodule("lr_scheduler");
  auto warmup = [](int steps, double begin_lr, const std::string& mode) { return optim::Warmup{steps, begin_lr, mode}; };
  py::class_<optim::LRScheduler, std::shared_ptr<optim::LRScheduler>>(l, "LRScheduler")
      .def("__call__", &optim::LRScheduler::operator())
      .def_property("base_lr", &optim::LRScheduler::base_lr, &optim::LRScheduler::set_base_lr);
  py::class_<optim::FactorScheduler, optim::LRScheduler, std::shared_ptr<optim::FactorScheduler>>(l, "FactorScheduler")
      .def(py::init([=](int step, double factor, double stop_factor_lr, double base_lr, int warmup_steps,
                        double warmup_begin_lr, const std::string& warmup_mode) {
             return std::make_shared<optim::FactorScheduler>(step, factor, stop_factor_lr, base_lr,
                                                             warmup(warmup_steps, warmup_begin_lr, warmup_mode));
           }),
           py::arg("step"), py::arg("factor") = 1.0, py::arg("stop_factor_lr") = 1e-8, py::arg("base_lr") = 0.01,
           py::arg("warmup_steps") = 0, py::arg("warmup_begin_lr") = 0.0, py::arg("warmup_mode") = "linear");
  py::class_<optim::MultiFactorScheduler, optim::LRScheduler, std::shared_ptr<optim::MultiFactorScheduler>>(
      l, "MultiFactorScheduler")
      .def(py::init([=](std::vector<int> step, double factor, double base_lr, int warmup_steps, double warmup_begin_lr,
                        const std::string& warmup_mode) {
             return std::make_shared<optim::MultiFactorScheduler>(step, factor, base_lr,
                                                                  warmup(warmup_steps, warmup_begin_lr, warmup_mode));
           }),
           py::arg("step"), py::arg("factor") = 1.0, py::arg("base_lr") = 0.01, py::arg("warmup_steps") = 0,
           py::arg("warmup_begin_lr") = 0.0, py::arg("warmup_mode") = "linear");
  py::class_<optim::PolyScheduler, optim::LRScheduler, std::shared_ptr<optim::PolyScheduler>>(l, "PolyScheduler")
      .def(py::init([=](int max_update, double base_lr, double pwr, double final_lr, int warmup_steps,
                        double warmup_begin_lr, const std::string& warmup_mode) {
             return std::make_shared<optim::PolyScheduler>(max_update, base_lr, pwr, final_lr,
                                                           warmup(warmup_steps, warmup_begin_lr, warmup_mode));
           }),
           py::arg("max_update"), py::arg("base_lr") = 0.01, py::arg("pwr") = 2.0, py::arg("final_lr") = 0.0,
           py::arg("warmup_steps") = 0, py::arg("warmup_begin_lr") = 0.0, py::arg("warmup_mode") = "linear");
  py::class_<optim::CosineScheduler, optim::LRScheduler, std::shared_ptr<optim::CosineScheduler>>(l, "CosineScheduler")
      .def(py::init([=](int max_update, double base_lr, double final_lr, int warmup_steps, double warmup_begin_lr,
                        const std::string& warmup_mode) {
             return std::make_shared<optim::CosineScheduler>(max_update, base_lr, final_lr,
                                                             warmup(warmup_steps, warmup_begin_lr, warmup_mode));
           }),
           py::arg("max_update"), py::arg("base_lr") = 0.01, py::arg("final_lr") = 0.0, py::arg("warmup_steps") = 0,
           py::arg("warmup_begin_lr") = 0.0, py::arg("warmup_mode") = "linear");
}

}  // namespace braid::python
