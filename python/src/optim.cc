// mx.optimizer: optimizers created by name with MXNet's hyper-parameters.
#include <algorithm>

#include "bindings.h"
#include "braid/optim/lr_scheduler.h"
#include "braid/optim/optimizers.h"

namespace braid::python {
namespace {

/// An optimizer written in Python (mx.optimizer.Optimizer and its subclasses, optimizer/optimizer.py).
/// When the C++ core (Trainer, KVStore) updates through it, create_state(index, weight) is called
/// once per index and update(index, weight, grad, state) on every step; during that call
/// core_lr()/core_wd() give the learning rate and weight decay the core worked out (its scheduler
/// and the Trainer's per-parameter multipliers). States made only of arrays are kept by the core
/// (so they are saved with save_states); any other state object (None inside a tuple, a dict) is
/// kept here as the Python object.
class PyOptimizer : public optim::Optimizer {
 public:
  explicit PyOptimizer(double learning_rate) : Optimizer("python", learning_rate) {}
  using Optimizer::set_name;
  double current_lr = 0, current_wd = 0;
  bool in_core_step = false;
  double base_lr() const { return lr_; }
  void set_base_lr(double lr) { lr_ = lr; }

  std::string foreign_image() const override {
    py::gil_scoped_acquire gil;
    py::function image = py::get_override(static_cast<const optim::Optimizer*>(this), "_server_image");
    if (!image) return {};
    py::object bytes = image();
    return bytes.is_none() ? std::string() : bytes.cast<std::string>();
  }

  CoreIdentity core_identity() const override {
    py::gil_scoped_acquire gil;
    py::function identity = py::get_override(static_cast<const optim::Optimizer*>(this), "_core_identity");
    py::object found = identity ? identity() : py::object(py::none());
    if (found.is_none()) return Optimizer::core_identity();
    auto [name, settings] = found.cast<std::pair<std::string, py::dict>>();
    CoreIdentity core{name, {}};
    for (auto [k, v] : settings) core.params[k.cast<std::string>()] = attr_string(v);
    return core;
  }

  std::vector<std::string> state_names() const override {
    std::vector<std::string> names;
    for (size_t i = 0; i < num_states_; ++i) names.push_back("state" + std::to_string(i));
    return names;
  }

 protected:
  std::vector<NDArray> create_state(int index, const NDArray& weight) const override {
    py::gil_scoped_acquire gil;
    py::object state = method("create_state")(index, weight);
    std::vector<NDArray> out;
    if (py::isinstance<NDArray>(state)) {
      out.push_back(state.cast<NDArray>());
    } else if (!state.is_none()) {
      try {
        out = state.cast<std::vector<NDArray>>();
      } catch (const py::cast_error&) {
        py_states_[index] = state;  // not a flat list of arrays: keep the object itself
        out.clear();
      }
    }
    if (!py_states_.count(index) && !out.empty()) num_states_ = out.size();
    return out;
  }
  void step(const optim::UpdateStep& s) override {
    py::gil_scoped_acquire gil;
    current_lr = s.lr;
    current_wd = s.wd;
    py::object state;
    if (auto it = py_states_.find(s.index); it != py_states_.end())
      state = it->second;
    else
      state = s.states.empty()       ? py::object(py::none())
              : s.states.size() == 1 ? py::cast(s.states[0])
                                     : py::object(py::tuple(py::cast(s.states)));
    in_core_step = true;
    try {
      method("update")(s.index, s.weight, s.grad, state);
    } catch (...) {
      in_core_step = false;
      throw;
    }
    in_core_step = false;
  }

 private:
  py::function method(const char* name) const {
    py::function fn = py::get_override(static_cast<const optim::Optimizer*>(this), name);
    BRAID_CHECK(fn, "optimizer ", this->name(), " (defined in Python) must define ", name, "()");
    return fn;
  }
  mutable size_t num_states_ = 0;
  mutable std::map<int, py::object> py_states_;
};

PyOptimizer& python_optimizer(optim::Optimizer& opt, const char* what) {
  auto* p = dynamic_cast<PyOptimizer*>(&opt);
  BRAID_CHECK(p, what, " is for optimizers defined in Python (mx.optimizer.Optimizer subclasses)");
  return *p;
}

}  // namespace

void bind_optim(py::module_& m) {
  auto o = m.def_submodule("optimizer");
  py::class_<optim::Optimizer, PyOptimizer, std::shared_ptr<optim::Optimizer>>(o, "Optimizer", py::dynamic_attr())
      .def(py::init([](double learning_rate, double wd, double rescale_grad, std::optional<double> clip_gradient,
                       bool multi_precision, int begin_num_update, py::kwargs) {
             auto p = std::make_shared<PyOptimizer>(learning_rate);
             p->set_param("wd", attr_string(py::float_(wd)));
             p->set_param("rescale_grad", attr_string(py::float_(rescale_grad)));
             if (clip_gradient) p->set_param("clip_gradient", attr_string(py::float_(*clip_gradient)));
             p->set_param("multi_precision", multi_precision ? "True" : "False");
             p->set_param("begin_num_update", std::to_string(begin_num_update));
             return p;
           }),
           py::arg("learning_rate") = 0.01, py::arg("wd") = 0.0, py::arg("rescale_grad") = 1.0,
           py::arg("clip_gradient") = py::none(), py::arg("multi_precision") = false, py::arg("begin_num_update") = 0)
      .def("_set_name",
           [](optim::Optimizer& opt, const std::string& name) { python_optimizer(opt, "_set_name").set_name(name); })
      // (lr, wd) the core computed for the update it is running now, or None outside one
      .def("_core_lr_wd",
           [](optim::Optimizer& opt) -> py::object {
             auto& p = python_optimizer(opt, "_core_lr_wd");
             if (!p.in_core_step) return py::none();
             return py::make_tuple(p.current_lr, p.current_wd);
           })
      .def_property(
          "_base_lr", [](optim::Optimizer& opt) { return python_optimizer(opt, "_base_lr").base_lr(); },
          [](optim::Optimizer& opt, double lr) { python_optimizer(opt, "_base_lr").set_base_lr(lr); })
      .def("create_state", [](const optim::Optimizer&, int, const NDArray&) { return py::none(); })
      .def_property_readonly("name", &optim::Optimizer::name)
      .def_property("learning_rate", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate)
      .def_property("lr", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate)
      .def("set_learning_rate", &optim::Optimizer::set_learning_rate)
      .def_property_readonly("wd", &optim::Optimizer::wd)
      .def_property("rescale_grad", &optim::Optimizer::rescale_grad, &optim::Optimizer::set_rescale_grad)
      .def_property_readonly("num_update", &optim::Optimizer::num_update)
      .def("param", &optim::Optimizer::param)
      .def("set_param", [](optim::Optimizer& opt, const std::string& key,
                           py::object value) { opt.set_param(key, attr_string(value)); })
      .def("params", &optim::Optimizer::params)
      .def(
          "update",
          [](optim::Optimizer& opt, int index, NDArray weight, const NDArray& grad, py::object) {
            opt.update(index, weight, grad);
          },
          py::arg("index"), py::arg("weight"), py::arg("grad"), py::arg("state") = py::none())
      // What MXNet's Updater.states shows of the updates the core runs: the float32 master copy
      // of an index (or None) and its state arrays; every state as save_states' image.
      .def("_core_state",
           [](const optim::Optimizer& opt, int index) -> py::object {
             if (!opt.has_state(index)) return py::none();
             NDArray master = opt.master_weight(index);
             return py::make_tuple(master.is_none() ? py::object(py::none()) : py::cast(master), opt.state(index));
           })
      .def("_core_saved_states", [](const optim::Optimizer& opt) { return py::bytes(opt.save_states()); })
      // The per-index multipliers (a Trainer's parameters' lr_mult and wd_mult) and the rates
      // they give (MXNet's _get_lr, _get_wd)
      .def("_core_set_index_mults",
           [](optim::Optimizer& opt, std::map<int, double> lr_mult, std::map<int, double> wd_mult) {
             opt.set_lr_mult({}, std::move(lr_mult));
             opt.set_wd_mult({}, std::move(wd_mult));
           })
      .def("_core_get_lr", &optim::Optimizer::get_lr)
      .def("_core_get_wd", &optim::Optimizer::get_wd)
      .def("__repr__", [](const optim::Optimizer& opt) { return "<Optimizer " + opt.name() + ">"; });
  o.def(
      "create",
      [](const std::string& name, py::kwargs kwargs) {
        std::map<std::string, std::string> params;
        for (auto [k, v] : kwargs)
          if (!v.is_none()) params[k.cast<std::string>()] = attr_string(v);
        return std::shared_ptr<optim::Optimizer>(optim::create(name, params));
      },
      py::arg("name"));
  // The hyper-parameters of the core's optimizer `name`, or None when the core has none of it.
  o.def("_core_param_names", [](const std::string& name) -> py::object {
    const std::vector<std::string> known = optim::optimizer_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) return py::none();
    py::list names;
    for (const auto& [key, value] : optim::create(name)->params()) names.append(key);
    return names;
  });
  o.def("_set_lr_scheduler",
        [](optim::Optimizer& opt, std::shared_ptr<optim::LRScheduler> s) { opt.set_lr_scheduler(s); });

  auto l = m.def_submodule("lr_scheduler");
  // A scheduler from _serialize(), as its own class (pickling).
  l.def("_deserialize", [](const std::string& json) {
    return std::shared_ptr<optim::LRScheduler>(optim::LRScheduler::deserialize(json));
  });
  auto warmup = [](int steps, double begin_lr, const std::string& mode) {
    return optim::Warmup{steps, begin_lr, mode};
  };
  py::class_<optim::LRScheduler, std::shared_ptr<optim::LRScheduler>>(l, "LRScheduler")
      .def("__call__", &optim::LRScheduler::operator())
      .def("_serialize", &optim::LRScheduler::serialize)
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
