// braid.autograd: recording and training-mode switches, backward, grad, mark_variables.
#include "bindings.h"
#include "braid/autograd/autograd.h"

namespace braid::python {

void bind_autograd(py::module_& m) {
  auto ag = m.def_submodule("autograd");
  ag.def("set_recording", &autograd::set_recording);
  ag.def("is_recording", &autograd::is_recording);
  ag.def("set_training", &autograd::set_training);
  ag.def("is_training", &autograd::is_training);
  ag.def("backward", [](const std::vector<NDArray>& heads, const std::vector<std::optional<NDArray>>& head_grads,
                        bool retain_graph, bool train_mode) {
    std::vector<NDArray> grads;
    for (const auto& g : head_grads) grads.push_back(g.value_or(NDArray()));
    py::gil_scoped_release release;
    autograd::backward(heads, grads, retain_graph, train_mode);
  }, py::arg("heads"), py::arg("head_grads"), py::arg("retain_graph"), py::arg("train_mode"));
  ag.def("grad", [](const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
                    const std::vector<std::optional<NDArray>>& head_grads, bool retain_graph, bool train_mode) {
    std::vector<NDArray> grads;
    for (const auto& g : head_grads) grads.push_back(g.value_or(NDArray()));
    py::gil_scoped_release release;
    return autograd::grad(heads, variables, grads, retain_graph, train_mode);
  });
  ag.def("mark_variables", [](const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients,
                              const std::string& req) {
    autograd::mark_variables(variables, gradients, parse_grad_req(req));
  });
}

}  // namespace braid::python
