#include "model_runner.h"

#include <algorithm>

#include "braid/base/error.h"

namespace braid::cli {

ModelRunner::ModelRunner(const std::string& symbol_file, const std::string& params_file, std::string data_name)
    : model_(symbol_file, params_file), data_name_(std::move(data_name)) {
  const auto& inputs = model_.inputs();
  BRAID_CHECK(std::find(inputs.begin(), inputs.end(), data_name_) != inputs.end(), symbol_file,
              " has no data input named '", data_name_, "'; pass its name with --data-name");
  BRAID_CHECK(inputs.size() == 1, symbol_file, " has ", inputs.size(), " data inputs; braid eval feeds one");
}

NDArray ModelRunner::run(const NDArray& batch) { return model_.run({{data_name_, batch}})[0]; }

}  // namespace braid::cli
