// braid.autograd: recording and training-mode switches, backward, grad, mark_variables.
#include "braid/autograd/autograd.h"
#include "bindings.h"
#include "braid/autograd/get_symbol.h"

namespace braid::python {

void bind_autograd(py::module_& m) {
  auto ag = m.def_submodule("autograd");
  ag.def("set_recording", &autograd::set_recording);
  ag.def("is_recording", &autograd::is_recording);
  ag.def("set_training", &autograd::set_training);
  ag.def("is_training", &autograd::is_training);
  ag.def("get_symbol", &autograd::get_symbol, py::arg("x"));
  ag.def(
      "backward",
      [](const std::vector<NDArray>& heads, const std::vector<std::optional<NDArray>>& head_grads, bool retain_graph,
         bool train_mode) {
        std::vector<NDArray> grads;
        for (const auto& g : head_grads) grads.push_back(g.value_or(NDArray()));
        py::gil_scoped_release release;
        autograd::backward(heads, grads, retain_graph, train_mode);
      },
      py::arg("heads"), py::arg("head_grads"), py::arg("retain_graph"), py::arg("train_mode"));
  ag.def(
      "grad",
      [](const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
         const std::vector<std::optional<NDArray>>& head_grads, bool retain_graph, bool train_mode, bool create_graph) {
        std::vector<NDArray> grads;
        for (const auto& g : head_grads) grads.push_back(g.value_or(NDArray()));
        py::gil_scoped_release release;
        return autograd::grad(heads, variables, grads, retain_graph, train_mode, create_graph);
      },
      py::arg("heads"), py::arg("variables"), py::arg("head_grads"), py::arg("retain_graph"), py::arg("train_mode"),
      py::arg("create_graph") = false);
  ag.def("record_custom_function",
         [](const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs, py::function backward) {
           auto fn = hold(std::move(backward));
           return autograd::record_custom_function(inputs, outputs, [fn](const std::vector<NDArray>& out_grads) {
             py::gil_scoped_acquire gil;
             py::tuple args(out_grads.size());
             for (size_t i = 0; i < out_grads.size(); ++i) args[i] = py::cast(out_grads[i]);
             py::object r = (*fn)(*args);
             std::vector<NDArray> grads;
             auto one = [](py::handle g) { return g.is_none() ? NDArray() : g.cast<NDArray>(); };
             if (py::isinstance<NDArray>(r) || r.is_none())
               grads.push_back(one(r));
             else
               for (auto g : r) grads.push_back(one(g));
             return grads;
           });
         });
  ag.def("mark_variables",
         [](const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients, const std::string& req) {
           autograd::mark_variables(variables, gradients, parse_grad_req(req));
         });
}

}  // namespace braid::python
