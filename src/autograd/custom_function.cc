// autograd::record_custom_function: a user's function as one node of the recorded graph.
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "imperative/recorder.h"

namespace braid::autograd {

bool record_custom_function(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                            CustomBackward backward) {
  std::vector<Shape> shapes;
  for (const auto& a : inputs) shapes.push_back(a.shape());
  imperative::Recorder* recorder = imperative::recorder();
  if (!recorder) return false;
  return recorder->record_function(
      inputs, outputs,
      [backward = std::move(backward), shapes](const std::vector<NDArray>& out_grads, const std::vector<bool>& wanted,
                                               const std::vector<NDArray>&) {
        std::vector<NDArray> grads = backward(out_grads);
        BRAID_CHECK(grads.size() == shapes.size(), "custom function: backward returned ", grads.size(),
                    " gradients for ", shapes.size(), " inputs; return one per input (None for none)");
        for (size_t i = 0; i < grads.size(); ++i) {
          if (!wanted[i])
            grads[i] = NDArray();
          else
            BRAID_CHECK(grads[i].is_none() || grads[i].shape() == shapes[i], "custom function: the gradient of input ",
                        i, " has shape ", grads[i].shape(), " but the input has ", shapes[i]);
        }
        return grads;
      });
}

}  // namespace braid::autograd
