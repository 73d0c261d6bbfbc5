// mx.init: the built-in initializers and user-defined ones (subclasses overriding _init_weight).
#include "braid/init/init.h"
#include "bindings.h"

namespace braid::python {
namespace {

class PyInitializer : public init::Initializer {
 public:
  void init_weight(const std::string& name, NDArray& arr) const override {
    py::gil_scoped_acquire gil;
    py::function fn = py::get_override(static_cast<const init::Initializer*>(this), "_init_weight");
    BRAID_CHECK(fn, "initializer for ", name, ": define _init_weight(self, name, arr) in its class");
    fn(name, arr);
  }
  std::string str() const override {
    py::gil_scoped_acquire gil;
    return py::str(py::type::of(py::cast(this)).attr("__name__")).cast<std::string>() + "()";
  }
};

}  // namespace

void bind_init(py::module_& m) {
  auto i = m.def_submodule("init");
  py::class_<init::Initializer, PyInitializer, std::shared_ptr<init::Initializer>>(i, "Initializer", py::dynamic_attr())
      .def(py::init<>())
      .def("__call__", [](const init::Initializer& self, py::object desc, NDArray arr) { self(py::str(desc), arr); })
      .def("_init_weight",
           [](const init::Initializer& self, const std::string& name, NDArray arr) { self.init_weight(name, arr); })
      .def("__repr__", &init::Initializer::str);
  py::class_<init::Uniform, init::Initializer, std::shared_ptr<init::Uniform>>(i, "Uniform")
      .def(py::init<double>(), py::arg("scale") = 0.07);
  py::class_<init::Normal, init::Initializer, std::shared_ptr<init::Normal>>(i, "Normal")
      .def(py::init<double>(), py::arg("sigma") = 0.01);
  py::class_<init::Constant, init::Initializer, std::shared_ptr<init::Constant>>(i, "Constant")
      .def(py::init<double>(), py::arg("value"))
      .def(py::init<NDArray>(), py::arg("value"));
  py::class_<init::Zero, init::Constant, std::shared_ptr<init::Zero>>(i, "Zero").def(py::init<>());
  py::class_<init::One, init::Constant, std::shared_ptr<init::One>>(i, "One").def(py::init<>());
  py::class_<init::Xavier, init::Initializer, std::shared_ptr<init::Xavier>>(i, "Xavier")
      .def(py::init<std::string, std::string, double>(), py::arg("rnd_type") = "uniform",
           py::arg("factor_type") = "avg", py::arg("magnitude") = 3.0);
  py::class_<init::MSRAPrelu, init::Xavier, std::shared_ptr<init::MSRAPrelu>>(i, "MSRAPrelu")
      .def(py::init<std::string, double>(), py::arg("factor_type") = "avg", py::arg("slope") = 0.25);
  i.def("create",
        [](const std::string& name) { return std::const_pointer_cast<init::Initializer>(init::create(name)); });
}

}  // namespace braid::python
