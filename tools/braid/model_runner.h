#pragma once
// A symbol file and its parameters run for inference over batches (braid eval, braid predict),
// through serving::Model.
#include <map>
#include <string>

#include "braid/ndarray/ndarray.h"
#include "braid/serving/model.h"

namespace braid::cli {

class ModelRunner {
 public:
  /// Parameter names may carry MXNet's checkpoint prefixes arg:/aux: or be bare (Gluon export).
  ModelRunner(const std::string& symbol_file, const std::string& params_file, std::string data_name);
  /// Output 0 of the symbol for `batch` (batch axis first).
  NDArray run(const NDArray& batch);

 private:
  serving::Model model_;
  std::string data_name_;
};

}  // namespace braid::cli
