#pragma once
/// A model file for inference: an MXNet symbol (`*-symbol.json`, MXNet's or Braid's export) and
/// its parameters (`.params`, names bare or with MXNet's `arg:`/`aux:`), run on batches. The
/// inputs are the symbol's arguments that the parameter file does not hold, but for the labels of
/// loss layers (`softmax_label`), which are bound to zeros. One executor per set of input shapes;
/// `run` may be called from several threads (one at a time runs). The model runs on the CPU
/// context it is given: copies on different contexts run at once, each with its share of the
/// cores (see `nd::kernel_threads`).
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"

namespace braid::serving {

class Model {
 public:
  /// Throws naming the file when a file is unreadable, or a parameter is no input of the symbol.
  Model(const std::string& symbol_file, const std::string& params_file, Context ctx = cpu());

  /// The data inputs, in the symbol's order.
  const std::vector<std::string>& inputs() const { return inputs_; }
  std::vector<std::string> outputs() const { return symbol_.list_outputs(); }
  Context context() const { return ctx_; }

  /// Every output for `inputs` (all of them, batch axis first, one batch size).
  std::vector<NDArray> run(const std::map<std::string, NDArray>& inputs);

 private:
  Symbol symbol_;
  Context ctx_;
  std::vector<std::string> inputs_;
  std::map<std::string, NDArray> params_;
  std::mutex mu_;
  std::map<std::string, Executor> executors_;  // by the inputs' shapes
};

}  // namespace braid::serving
