// gluon.loss, gluon.Trainer and gluon.utils.
#include "bindings.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"

namespace braid::python {
namespace {

using gluon::HybridBlock;
using gluon::loss::LossOptions;
using OptName = std::optional<std::string>;

LossOptions loss_options(std::optional<double> weight, int batch_axis, OptName prefix) {
  return LossOptions{weight, batch_axis, std::move(prefix)};
}

/// Optimizer hyper-parameters in MXNet's spelling (strings), from a Python dict.
std::map<std::string, std::string> string_map(py::handle d) {
  std::map<std::string, std::string> out;
  if (d.is_none()) return out;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(d))
    if (!v.is_none()) out[k.cast<std::string>()] = attr_string(v);
  return out;
}

std::optional<bool> optional_bool(py::handle v) {
  if (v.is_none()) return std::nullopt;
  return v.cast<bool>();
}

gluon::KVStoreChoice kvstore_choice(py::handle kv) {
  if (kv.is_none()) return gluon::KVStoreChoice("");
  if (py::isinstance<py::str>(kv)) return gluon::KVStoreChoice(kv.cast<std::string>());
  return gluon::KVStoreChoice(kv.cast<std::shared_ptr<kv::KVStore>>());
}

}  // namespace

void bind_gluon_loss(py::module_& m) {
  auto g = m.attr("gluon").cast<py::module_>();
  auto l = g.def_submodule("loss");
  py::class_<gluon::loss::Loss, HybridBlock, std::shared_ptr<gluon::loss::Loss>>(l, "Loss");
  py::class_<gluon::loss::L2Loss, gluon::loss::Loss, std::shared_ptr<gluon::loss::L2Loss>>(l, "L2Loss")
      .def(py::init([](double weight, int batch_axis, OptName prefix) {
             return std::make_shared<gluon::loss::L2Loss>(loss_options(weight, batch_axis, prefix));
           }),
           py::arg("weight") = 1.0, py::arg("batch_axis") = 0, py::arg("prefix") = py::none());
  py::class_<gluon::loss::L1Loss, gluon::loss::Loss, std::shared_ptr<gluon::loss::L1Loss>>(l, "L1Loss")
      .def(py::init([](std::optional<double> weight, int batch_axis, OptName prefix) {
             return std::make_shared<gluon::loss::L1Loss>(loss_options(weight, batch_axis, prefix));
           }),
           py::arg("weight") = py::none(), py::arg("batch_axis") = 0, py::arg("prefix") = py::none());
  py::class_<gluon::loss::HuberLoss, gluon::loss::Loss, std::shared_ptr<gluon::loss::HuberLoss>>(l, "HuberLoss")
      .def(py::init([](double rho, std::optional<double> weight, int batch_axis, OptName prefix) {
             return std::make_shared<gluon::loss::HuberLoss>(rho, loss_options(weight, batch_axis, prefix));
           }),
           py::arg("rho") = 1.0, py::arg("weight") = py::none(), py::arg("batch_axis") = 0,
           py::arg("prefix") = py::none());
  auto softmax_ce = [](int axis, bool sparse_label, bool from_logits, std::optional<double> weight, int batch_axis,
                       OptName prefix) {
    return std::make_shared<gluon::loss::SoftmaxCrossEntropyLoss>(axis, sparse_label, from_logits,
                                                                  loss_options(weight, batch_axis, prefix));
  };
  py::class_<gluon::loss::SoftmaxCrossEntropyLoss, gluon::loss::Loss,
             std::shared_ptr<gluon::loss::SoftmaxCrossEntropyLoss>>
      sce(l, "SoftmaxCrossEntropyLoss");
  sce.def(py::init(softmax_ce), py::arg("axis") = -1, py::arg("sparse_label") = true, py::arg("from_logits") = false,
          py::arg("weight") = py::none(), py::arg("batch_axis") = 0, py::arg("prefix") = py::none());
  l.attr("SoftmaxCELoss") = sce;
  py::class_<gluon::loss::SigmoidBinaryCrossEntropyLoss, gluon::loss::Loss,
             std::shared_ptr<gluon::loss::SigmoidBinaryCrossEntropyLoss>>
      sbce(l, "SigmoidBinaryCrossEntropyLoss");
  sbce.def(py::init([](bool from_sigmoid, std::optional<double> weight, int batch_axis, OptName prefix) {
             return std::make_shared<gluon::loss::SigmoidBinaryCrossEntropyLoss>(
                 from_sigmoid, loss_options(weight, batch_axis, prefix));
           }),
           py::arg("from_sigmoid") = false, py::arg("weight") = py::none(), py::arg("batch_axis") = 0,
           py::arg("prefix") = py::none());
  l.attr("SigmoidBCELoss") = sbce;
  py::class_<gluon::loss::KLDivLoss, gluon::loss::Loss, std::shared_ptr<gluon::loss::KLDivLoss>>(l, "KLDivLoss")
      .def(py::init([](bool from_logits, int axis, std::optional<double> weight, int batch_axis, OptName prefix) {
             return std::make_shared<gluon::loss::KLDivLoss>(from_logits, axis,
                                                             loss_options(weight, batch_axis, prefix));
           }),
           py::arg("from_logits") = true, py::arg("axis") = -1, py::arg("weight") = py::none(),
           py::arg("batch_axis") = 0, py::arg("prefix") = py::none());

  py::class_<gluon::Trainer, std::shared_ptr<gluon::Trainer>>(g, "Trainer")
      .def(py::init([](const gluon::ParameterDict& params, py::object optimizer, py::object optimizer_params,
                       py::object kvstore, py::object compression_params, py::object update_on_kvstore) {
             BRAID_CHECK(compression_params.is_none(),
                         "Trainer(compression_params=...): set gradient compression on "
                         "the store (kv.set_gradient_compression) and pass the store as kvstore");
             if (py::isinstance<py::str>(optimizer))
               return std::make_shared<gluon::Trainer>(params, optimizer.cast<std::string>(),
                                                       string_map(optimizer_params), kvstore_choice(kvstore),
                                                       optional_bool(update_on_kvstore));
             BRAID_CHECK(optimizer_params.is_none() || py::len(optimizer_params) == 0,
                         "Trainer: optimizer_params must be empty when optimizer is an Optimizer object");
             return std::make_shared<gluon::Trainer>(params, optimizer.cast<std::shared_ptr<optim::Optimizer>>(),
                                                     kvstore_choice(kvstore), optional_bool(update_on_kvstore));
           }),
           py::arg("params"), py::arg("optimizer"), py::arg("optimizer_params") = py::none(),
           py::arg("kvstore") = "device", py::arg("compression_params") = py::none(),
           py::arg("update_on_kvstore") = py::none())
      .def("step", &gluon::Trainer::step, py::arg("batch_size"), py::arg("ignore_stale_grad") = false,
           py::call_guard<py::gil_scoped_release>())
      .def("allreduce_grads", &gluon::Trainer::allreduce_grads, py::call_guard<py::gil_scoped_release>())
      .def("update", &gluon::Trainer::update, py::arg("batch_size"), py::arg("ignore_stale_grad") = false,
           py::call_guard<py::gil_scoped_release>())
      .def_property("_scale", &gluon::Trainer::scale, &gluon::Trainer::set_scale)
      .def_property("stop_on_divergence", &gluon::Trainer::stop_on_divergence, &gluon::Trainer::set_stop_on_divergence)
      .def("_check_finite_gradients", &gluon::Trainer::check_finite_gradients, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("learning_rate", &gluon::Trainer::learning_rate)
      .def("set_learning_rate", &gluon::Trainer::set_learning_rate)
      .def_property_readonly(
          "optimizer", [](gluon::Trainer& t) { return &t.optimizer(); }, py::return_value_policy::reference_internal)
      .def("_core_kvstore", &gluon::Trainer::kvstore, py::call_guard<py::gil_scoped_release>())
      .def("_core_update_on_kvstore", &gluon::Trainer::update_on_kvstore, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("_kv_initialized", &gluon::Trainer::kv_initialized)
      .def("_reset_kvstore", &gluon::Trainer::reset_kvstore)
      .def_property_readonly("_params", &gluon::Trainer::params)
      .def("save_states", &gluon::Trainer::save_states)
      .def("load_states", &gluon::Trainer::load_states);

  auto u = g.def_submodule("utils");
  u.def("split_data", &gluon::utils::split_data, py::arg("data"), py::arg("num_slice"), py::arg("batch_axis") = 0,
        py::arg("even_split") = true);
  u.def(
      "split_and_load",
      [](py::object data, py::object ctx_list, int batch_axis, bool even_split) {
        NDArray d = py::isinstance<NDArray>(data) ? data.cast<NDArray>() : from_numpy(data, cpu(), std::nullopt);
        return gluon::utils::split_and_load(d, contexts(ctx_list), batch_axis, even_split);
      },
      py::arg("data"), py::arg("ctx_list"), py::arg("batch_axis") = 0, py::arg("even_split") = true);
  u.def(
      "clip_global_norm",
      [](std::vector<NDArray> arrays, double max_norm, bool check_isfinite) {
        return gluon::utils::clip_global_norm(arrays, max_norm, check_isfinite);
      },
      py::arg("arrays"), py::arg("max_norm"), py::arg("check_isfinite") = true);
}

}  // namespace braid::python
