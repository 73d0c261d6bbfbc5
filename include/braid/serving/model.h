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

  /// Shapes with the batch axis first and -1 for what is not known (an empty vector: not even
  /// the rank).
  struct Shapes {
    std::map<std::string, std::vector<int64_t>> inputs;
    std::vector<std::vector<int64_t>> outputs;
  };
  /// What the symbol and the parameters tell of the shapes, given some inputs' (`given`, -1
  /// where unknown). An input of unknown rank gets the lowest rank from 2 to 5 that the graph
  /// accepts, with the sizes the parameters fix: a convolutional net's image input comes out
  /// as (-1, C, -1, -1), an MLP's as (-1, features).
  Shapes known_shapes(const std::map<std::string, std::vector<int64_t>>& given = {}) const;

 private:
  Symbol symbol_;
  Context ctx_;
  std::vector<std::string> inputs_;
  std::map<std::string, NDArray> params_;
  std::mutex mu_;
  std::map<std::string, Executor> executors_;  // by the inputs' shapes
};

}  // namespace braid::serving
