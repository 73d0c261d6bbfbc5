// mx.mod.Module, mx.model checkpoints, mx.callback and mx.metric.
#include "bindings.h"
#include "braid/base/error.h"
#include "braid/metric/metric.h"
#include "braid/module/callback.h"
#include "braid/module/module.h"

namespace braid::python {
namespace {

std::vector<io::DataDesc> descs(py::handle shapes) {
  std::vector<io::DataDesc> out;
  if (shapes.is_none()) return out;
  for (auto d : shapes) {
    if (py::isinstance<io::DataDesc>(d))
      out.push_back(d.cast<io::DataDesc>());
    else
      out.push_back(io::DataDesc{d[py::int_(0)].cast<std::string>(), to_shape(d[py::int_(1)])});
  }
  return out;
}

std::vector<std::string> names(py::handle v) {
  if (v.is_none()) return {};
  if (py::isinstance<py::str>(v)) return {v.cast<std::string>()};
  return v.cast<std::vector<std::string>>();
}

mod::ParamMap param_map(py::handle v) {
  mod::ParamMap out;
  if (v.is_none()) return out;
  for (auto [k, a] : py::reinterpret_borrow<py::dict>(v)) out[k.cast<std::string>()] = a.cast<NDArray>();
  return out;
}

py::dict py_params(const mod::ParamMap& m) {
  py::dict d;
  for (const auto& [k, v] : m) d[py::str(k)] = v;
  return d;
}

std::map<std::string, std::string> optimizer_params(py::handle v) {
  std::map<std::string, std::string> out;
  if (v.is_none()) return out;
  py::dict d = py::isinstance<py::dict>(v) ? py::reinterpret_borrow<py::dict>(v)
                                           : py::dict(py::reinterpret_borrow<py::object>(v));
  for (auto [k, x] : d)
    if (!x.is_none()) out[k.cast<std::string>()] = attr_string(x);
  return out;
}

std::variant<std::string, metric::MetricPtr> metric_of(py::handle m) {
  if (py::isinstance<py::str>(m)) return m.cast<std::string>();
  return m.cast<metric::MetricPtr>();
}

template <class Callback>
std::vector<Callback> callbacks(py::handle v) {
  if (v.is_none()) return {};
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) return v.cast<std::vector<Callback>>();
  return {v.cast<Callback>()};
}

py::list name_values(const std::vector<std::pair<std::string, double>>& nv) {
  py::list l;
  for (const auto& [n, v] : nv) l.append(py::make_tuple(n, v));
  return l;
}

}  // namespace

void bind_module(py::module_& m) {
  auto me = m.def_submodule("metric");
  py::class_<metric::EvalMetric, std::shared_ptr<metric::EvalMetric>>(me, "EvalMetric")
      .def_property_readonly("name", &metric::EvalMetric::name)
      .def(
          "update",
          [](metric::EvalMetric& e, py::object labels, py::object preds) {
            auto list = [](py::handle v) {
              return py::isinstance<NDArray>(v) ? std::vector<NDArray>{v.cast<NDArray>()}
                                                : v.cast<std::vector<NDArray>>();
            };
            e.update(list(labels), list(preds));
          },
          py::arg("labels"), py::arg("preds"))
      .def("reset", &metric::EvalMetric::reset)
      .def("reset_local", &metric::EvalMetric::reset_local)
      .def("get",
           [](const metric::EvalMetric& e) -> py::object {
             auto nv = e.get_name_value();
             if (nv.size() == 1) return py::make_tuple(nv[0].first, nv[0].second);
             py::list n, v;
             for (const auto& [a, b] : nv) {
               n.append(a);
               v.append(b);
             }
             return py::make_tuple(n, v);
           })
      .def("get_name_value", [](const metric::EvalMetric& e) { return name_values(e.get_name_value()); })
      .def("get_global_name_value", [](const metric::EvalMetric& e) { return name_values(e.get_global_name_value()); })
      .def_readonly("sum_metric", &metric::EvalMetric::sum_metric)
      .def_readonly("num_inst", &metric::EvalMetric::num_inst)
      .def("__repr__", [](const metric::EvalMetric& e) { return "EvalMetric: " + e.name(); });
  me.def(
      "create",
      [](py::object name, py::kwargs kwargs) {
        if (py::isinstance<py::list>(name)) return metric::create(name.cast<std::vector<std::string>>());
        std::map<std::string, std::string> kw;
        for (auto [k, v] : kwargs)
          if (!v.is_none()) kw[k.cast<std::string>()] = attr_string(v);
        return metric::create(name.cast<std::string>(), kw);
      },
      py::arg("metric"));

  auto c = m.def_submodule("callback");
  c.def("do_checkpoint", &mod::do_checkpoint, py::arg("prefix"), py::arg("period") = 1);

  auto md = m.def_submodule("module");
  py::class_<mod::Module, std::shared_ptr<mod::Module>>(md, "Module")
      .def(py::init([](const Symbol& symbol, py::object data_names, py::object label_names, py::object context,
                       py::object fixed_param_names, py::object logger, py::object work_load_list) {
             return std::make_shared<mod::Module>(symbol, names(data_names), names(label_names), contexts(context),
                                                  names(fixed_param_names));
           }),
           py::arg("symbol"), py::arg("data_names") = py::make_tuple("data"),
           py::arg("label_names") = py::make_tuple("softmax_label"), py::arg("context") = py::none(),
           py::arg("fixed_param_names") = py::none(), py::arg("logger") = py::none(),
           py::arg("work_load_list") = py::none())
      .def_property_readonly("symbol", &mod::Module::symbol)
      .def_property_readonly("binded", &mod::Module::binded)
      .def_property_readonly("params_initialized", &mod::Module::params_initialized)
      .def(
          "bind",
          [](mod::Module& mo, py::object data_shapes, py::object label_shapes, bool for_training, bool inputs_need_grad,
             bool force_rebind) {
            mo.bind(descs(data_shapes), descs(label_shapes), for_training, inputs_need_grad, force_rebind);
          },
          py::arg("data_shapes"), py::arg("label_shapes") = py::none(), py::arg("for_training") = true,
          py::arg("inputs_need_grad") = false, py::arg("force_rebind") = false)
      .def(
          "init_params",
          [](mod::Module& mo, py::object initializer, py::object arg_params, py::object aux_params, bool allow_missing,
             bool force_init) {
            auto init = initializer.is_none() ? std::make_shared<init::Uniform>(0.01) : init_of(initializer);
            mo.init_params(init, param_map(arg_params), param_map(aux_params), allow_missing, force_init);
          },
          py::arg("initializer") = py::none(), py::arg("arg_params") = py::none(), py::arg("aux_params") = py::none(),
          py::arg("allow_missing") = false, py::arg("force_init") = false)
      .def("get_params",
           [](const mod::Module& mo) {
             auto [a, x] = mo.get_params();
             return py::make_tuple(py_params(a), py_params(x));
           })
      .def(
          "set_params",
          [](mod::Module& mo, py::object arg_params, py::object aux_params, bool allow_missing) {
            mo.set_params(param_map(arg_params), param_map(aux_params), allow_missing);
          },
          py::arg("arg_params"), py::arg("aux_params") = py::none(), py::arg("allow_missing") = false)
      .def(
          "init_optimizer",
          [](mod::Module& mo, py::object kvstore, const std::string& optimizer, py::object params, bool force_init) {
            mo.init_optimizer(kvstore.is_none() ? "None" : kvstore.cast<std::string>(), optimizer,
                              optimizer_params(params), force_init);
          },
          py::arg("kvstore") = "local", py::arg("optimizer") = "sgd",
          py::arg("optimizer_params") = py::make_tuple(py::make_tuple("learning_rate", 0.01)),
          py::arg("force_init") = false)
      .def(
          "forward",
          [](mod::Module& mo, const io::DataBatch& batch, std::optional<bool> is_train) {
            py::gil_scoped_release release;
            mo.forward(batch, is_train);
          },
          py::arg("data_batch"), py::arg("is_train") = py::none())
      .def(
          "backward",
          [](mod::Module& mo, py::object out_grads) {
            std::vector<NDArray> g;
            if (!out_grads.is_none())
              g = py::isinstance<NDArray>(out_grads) ? std::vector<NDArray>{out_grads.cast<NDArray>()}
                                                     : out_grads.cast<std::vector<NDArray>>();
            py::gil_scoped_release release;
            mo.backward(g);
          },
          py::arg("out_grads") = py::none())
      .def("update", &mod::Module::update, py::call_guard<py::gil_scoped_release>())
      .def("update_metric", [](const mod::Module& mo, metric::EvalMetric& e,
                               std::vector<NDArray> labels) { mo.update_metric(e, labels); })
      .def(
          "get_outputs", [](const mod::Module& mo, bool) { return mo.get_outputs(); },
          py::arg("merge_multi_context") = true)
      .def(
          "get_input_grads", [](const mod::Module& mo, bool) { return mo.get_input_grads(); },
          py::arg("merge_multi_context") = true)
      .def(
          "fit",
          [](mod::Module& mo, io::DataIter& train_data, io::DataIter* eval_data, py::object eval_metric,
             py::object epoch_end_callback, py::object batch_end_callback, py::object kvstore,
             const std::string& optimizer, py::object params, py::object initializer, py::object arg_params,
             py::object aux_params, bool allow_missing, bool force_rebind, bool force_init, int begin_epoch,
             py::object num_epoch) {
            BRAID_CHECK(!num_epoch.is_none(), "Module.fit: please specify number of epochs (num_epoch)");
            mod::FitOptions o;
            o.eval_data = eval_data;
            o.eval_metric = metric_of(eval_metric);
            o.epoch_end_callback = callbacks<mod::EpochEndCallback>(epoch_end_callback);
            o.batch_end_callback = callbacks<mod::BatchEndCallback>(batch_end_callback);
            o.kvstore = kvstore.is_none() ? "None" : kvstore.cast<std::string>();
            o.optimizer = optimizer;
            o.optimizer_params = optimizer_params(params);
            if (!initializer.is_none()) o.initializer = init_of(initializer);
            o.arg_params = param_map(arg_params);
            o.aux_params = param_map(aux_params);
            o.allow_missing = allow_missing;
            o.force_rebind = force_rebind;
            o.force_init = force_init;
            o.begin_epoch = begin_epoch;
            o.num_epoch = num_epoch.cast<int>();
            py::gil_scoped_release release;
            mo.fit(train_data, o);
          },
          py::arg("train_data"), py::arg("eval_data") = nullptr, py::arg("eval_metric") = "acc",
          py::arg("epoch_end_callback") = py::none(), py::arg("batch_end_callback") = py::none(),
          py::arg("kvstore") = "local", py::arg("optimizer") = "sgd",
          py::arg("optimizer_params") = py::make_tuple(py::make_tuple("learning_rate", 0.01)),
          py::arg("initializer") = py::none(), py::arg("arg_params") = py::none(), py::arg("aux_params") = py::none(),
          py::arg("allow_missing") = false, py::arg("force_rebind") = false, py::arg("force_init") = false,
          py::arg("begin_epoch") = 0, py::arg("num_epoch") = py::none())
      .def(
          "score",
          [](mod::Module& mo, io::DataIter& eval_data, py::object eval_metric, int num_batch) {
            std::shared_ptr<metric::EvalMetric> e = py::isinstance<py::str>(eval_metric)
                                                        ? metric::create(eval_metric.cast<std::string>())
                                                        : eval_metric.cast<std::shared_ptr<metric::EvalMetric>>();
            {
              py::gil_scoped_release release;
              mo.score(eval_data, *e, num_batch);
            }
            return name_values(e->get_name_value());
          },
          py::arg("eval_data"), py::arg("eval_metric"), py::arg("num_batch") = 0)
      .def(
          "predict",
          [](mod::Module& mo, io::DataIter& eval_data, int num_batch) -> py::object {
            std::vector<NDArray> out;
            {
              py::gil_scoped_release release;
              out = mo.predict(eval_data, num_batch);
            }
            return out.size() == 1 ? py::cast(out[0]) : py::cast(out);
          },
          py::arg("eval_data"), py::arg("num_batch") = 0)
      .def("save_checkpoint", &mod::Module::save_checkpoint, py::arg("prefix"), py::arg("epoch"),
           py::arg("save_optimizer_states") = false)
      .def_static(
          "load",
          [](const std::string& prefix, int epoch, bool load_optimizer_states, py::object data_names,
             py::object label_names, py::object context) {
            return std::make_shared<mod::Module>(mod::Module::load(
                prefix, epoch, load_optimizer_states, names(data_names), names(label_names), contexts(context)));
          },
          py::arg("prefix"), py::arg("epoch"), py::arg("load_optimizer_states") = false,
          py::arg("data_names") = py::make_tuple("data"), py::arg("label_names") = py::make_tuple("softmax_label"),
          py::arg("context") = py::none());
  md.def("save_checkpoint",
         [](const std::string& prefix, int epoch, const Symbol& symbol, py::object arg_params, py::object aux_params) {
           mod::save_checkpoint(prefix, epoch, symbol, param_map(arg_params), param_map(aux_params));
         });
  md.def("load_checkpoint", [](const std::string& prefix, int epoch) {
    auto [s, a, x] = mod::load_checkpoint(prefix, epoch);
    return py::make_tuple(s, py_params(a), py_params(x));
  });
}

}  // namespace braid::python
