#include "model_runner.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"

namespace braid::cli {

ModelRunner::ModelRunner(const std::string& symbol_file, const std::string& params_file, std::string data_name)
    : symbol_(Symbol::load(symbol_file)), data_name_(std::move(data_name)) {
  auto inputs = symbol_.list_inputs();
  BRAID_CHECK(std::find(inputs.begin(), inputs.end(), data_name_) != inputs.end(), symbol_file,
              " has no input named '", data_name_, "'; pass its name with --data-name");
  io::NamedArrays file = io::load(params_file);
  BRAID_CHECK(!file.names.empty() || file.arrays.empty(), params_file, " holds unnamed arrays, not parameters");
  for (size_t i = 0; i < file.names.size(); ++i) {
    std::string name = file.names[i];
    if (name.rfind("arg:", 0) == 0 || name.rfind("aux:", 0) == 0) name = name.substr(4);
    BRAID_CHECK(std::find(inputs.begin(), inputs.end(), name) != inputs.end(), params_file, " holds '", name,
                "', which is no input of ", symbol_file, "; are these the parameters of another model?");
    params_[name] = file.arrays[i];
  }
}

NDArray ModelRunner::run(const NDArray& batch) {
  const std::string key = batch.shape().str();
  auto it = executors_.find(key);
  if (it == executors_.end()) {
    const int64_t n = batch.shape()[0];
    std::vector<NDArray> args, aux;
    for (const auto& name : symbol_.list_arguments()) {
      if (name == data_name_) {
        args.push_back(nd::zeros(batch.shape()));
      } else if (auto p = params_.find(name); p != params_.end()) {
        args.push_back(p->second);
      } else {
        // Labels of loss layers (softmax_label) are not needed for inference.
        BRAID_CHECK(name.size() >= 5 && name.ends_with("label"), "the parameter file has no value for '", name,
                    "'");
        args.push_back(nd::zeros(Shape{n}));
      }
    }
    for (const auto& name : symbol_.list_auxiliary_states()) {
      auto p = params_.find(name);
      BRAID_CHECK(p != params_.end(), "the parameter file has no value for the auxiliary state '", name, "'");
      aux.push_back(p->second);
    }
    it = executors_.emplace(key, Executor::bind(symbol_, cpu(), args, {}, {}, aux)).first;
  }
  Executor& ex = it->second;
  ex.forward(false, {{data_name_, batch}});
  return ex.outputs()[0];
}

NDArray load_images(const std::string& path, double mean, double std) {
  BRAID_CHECK(std != 0, "--std must not be 0");
  NDArray x = io::load_idx_images(path);
  if (mean != 0 || std != 1) {
    x -= mean;
    x /= std;
  }
  return x;
}

}  // namespace braid::cli
