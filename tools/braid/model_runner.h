#pragma once
// A symbol file and its parameters run for inference over batches (braid eval, braid predict):
// one executor per batch size, labels of loss layers bound to zeros.
#include <map>
#include <string>

#include "braid/ndarray/ndarray.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/symbol.h"

namespace braid::cli {

class ModelRunner {
 public:
  /// Parameter names may carry MXNet's checkpoint prefixes arg:/aux: or be bare (Gluon export).
  ModelRunner(const std::string& symbol_file, const std::string& params_file, std::string data_name);
  /// Output 0 of the symbol for `batch` (batch axis first).
  NDArray run(const NDArray& batch);

 private:
  Symbol symbol_;
  std::string data_name_;
  std::map<std::string, NDArray> params_;
  std::map<std::string, Executor> executors_;  // by data shape
};

/// Pixels of an idx image file scaled to [0, 1], then (x - mean) / std; shape (N, 1, rows, cols).
NDArray load_images(const std::string& path, double mean, double std);

}  // namespace braid::cli
