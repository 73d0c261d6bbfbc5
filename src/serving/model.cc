#include "braid/serving/model.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"

namespace braid::serving {
namespace {

// Labels of loss layers (softmax_label): not needed for inference.
bool is_label(const std::string& name) { return name.size() >= 5 && name.ends_with("label"); }

}  // namespace

Model::Model(const std::string& symbol_file, const std::string& params_file, Context ctx)
    : symbol_(Symbol::load(symbol_file)), ctx_(ctx) {
  const auto args = symbol_.list_inputs();
  io::NamedArrays file = io::load(params_file);
  BRAID_CHECK(!file.names.empty() || file.arrays.empty(), params_file, " holds unnamed arrays, not parameters");
  for (size_t i = 0; i < file.names.size(); ++i) {
    std::string name = file.names[i];
    if (name.rfind("arg:", 0) == 0 || name.rfind("aux:", 0) == 0) name = name.substr(4);
    BRAID_CHECK(std::find(args.begin(), args.end(), name) != args.end(), params_file, " holds '", name,
                "', which is no input of ", symbol_file, "; are these the parameters of another model?");
    params_[name] = file.arrays[i].as_in_context(ctx_);
  }
  for (const auto& name : symbol_.list_arguments())
    if (!params_.count(name) && !is_label(name)) inputs_.push_back(name);
  for (const auto& name : symbol_.list_auxiliary_states())
    BRAID_CHECK(params_.count(name), params_file, " has no value for the auxiliary state '", name, "' of ",
                symbol_file);
  BRAID_CHECK(!inputs_.empty(), symbol_file, ": every argument has a value in ", params_file,
              "; no data input is left");
}

std::vector<NDArray> Model::run(const std::map<std::string, NDArray>& inputs) {
  std::string key;
  int64_t batch = -1;
  for (const auto& name : inputs_) {
    auto it = inputs.find(name);
    BRAID_CHECK(it != inputs.end(), "the model needs input '", name, "'");
    BRAID_CHECK(it->second.ndim() >= 1, "input '", name, "' needs a batch axis");
    BRAID_CHECK(batch < 0 || it->second.shape()[0] == batch, "input '", name, "' has ", it->second.shape()[0],
                " rows but another input has ", batch);
    batch = it->second.shape()[0];
    key += name + it->second.shape().str();
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto ex = executors_.find(key);
  if (ex == executors_.end()) {
    std::vector<NDArray> args, aux;
    for (const auto& name : symbol_.list_arguments()) {
      if (auto in = inputs.find(name); in != inputs.end() && !params_.count(name))
        args.push_back(nd::zeros(in->second.shape(), ctx_));
      else if (auto p = params_.find(name); p != params_.end())
        args.push_back(p->second);
      else
        args.push_back(nd::zeros(Shape{batch}, ctx_));  // a label
    }
    for (const auto& name : symbol_.list_auxiliary_states()) aux.push_back(params_.at(name));
    ex = executors_.emplace(key, Executor::bind(symbol_, ctx_, args, {}, {}, aux)).first;
  }
  std::map<std::string, NDArray> feed;
  for (const auto& name : inputs_) feed[name] = inputs.at(name);
  ex->second.forward(false, feed);
  std::vector<NDArray> outs;
  for (const auto& o : ex->second.outputs()) {
    outs.push_back(o.copy());  // the executor's buffers are reused by the next batch
    outs.back().wait_to_read();
  }
  return outs;
}

}  // namespace braid::serving
