#include "braid/serving/served_model.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "batcher.h"
#include "braid/io/json_limits.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"

namespace braid::serving {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The only file of `dir` ending in `suffix`, or the last in name order (the highest epoch).
std::string file_ending(const std::string& dir, const std::string& suffix, bool last) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().ends_with(suffix)) found.push_back(e.path().string());
  BRAID_CHECK(!found.empty(), "model folder ", dir, " has no *", suffix, " file");
  std::sort(found.begin(), found.end());
  BRAID_CHECK(found.size() == 1 || last, "model folder ", dir, " has several *", suffix, " files; keep one");
  return found.back();
}

// The parameters of `symbol_file` (PREFIX-symbol.json): PREFIX-NNNN.params of the highest epoch,
// as MXNet's checkpoints and exports name them; else the folder's .params file.
std::string params_for(const std::string& dir, const std::string& symbol_file) {
  const std::string prefix = symbol_file.substr(0, symbol_file.size() - std::string("symbol.json").size());
  std::string best;
  long long best_epoch = -1;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || !path.starts_with(prefix) || !path.ends_with(".params")) continue;
    const std::string epoch = path.substr(prefix.size(), path.size() - prefix.size() - std::string(".params").size());
    if (epoch.empty() || epoch.size() > 9 || !std::all_of(epoch.begin(), epoch.end(), ::isdigit)) continue;
    if (std::stoll(epoch) > best_epoch) best_epoch = std::stoll(epoch), best = path;
  }
  return best.empty() ? file_ending(dir, ".params", true) : best;
}

std::vector<TensorSpec> specs(const json& list, const std::string& where) {
  std::vector<TensorSpec> out;
  BRAID_CHECK(list.is_array(), where, ": \"inputs\" must be an array of {name, datatype, shape}");
  for (const auto& s : list) {
    TensorSpec t;
    t.name = s.at("name").get<std::string>();
    t.dtype = dtype_of(s.value("datatype", "FP32"));
    t.shape = s.value("shape", std::vector<int64_t>{});
    out.push_back(t);
  }
  return out;
}

std::vector<int64_t> with_batch(const std::vector<int64_t>& shape, int64_t batch = -1) {
  std::vector<int64_t> s{batch};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

std::vector<int64_t> without_batch(const std::vector<int64_t>& shape) {
  return shape.empty() ? shape : std::vector<int64_t>(shape.begin() + 1, shape.end());
}

// Whether an input of shape `dims` (batch first) fits `spec` (without it; -1: any size).
bool fits(const std::vector<int64_t>& dims, const std::vector<int64_t>& spec) {
  if (spec.empty()) return true;
  if (dims.size() != spec.size() + 1) return false;
  for (size_t i = 0; i < spec.size(); ++i)
    if (spec[i] >= 0 && spec[i] != dims[i + 1]) return false;
  return true;
}

}  // namespace

ServedModel::ServedModel(std::string name, std::string version, const std::string& dir)
    : name_(std::move(name)), version_(std::move(version)) {
  const std::string symbol_file = file_ending(dir, "-symbol.json", false), params_file = params_for(dir, symbol_file);
  auto model = std::make_unique<Model>(symbol_file, params_file);
  const std::string config_path = dir + "/config.json";
  BatchingOptions batching;
  if (fs::exists(config_path)) {
    try {
      const json config = io::read_json_file(config_path);
      if (config.contains("inputs")) inputs_ = specs(config["inputs"], config_path);
      max_batch_size_ = config.value("max_batch_size", int64_t{0});
      batching.instances = config.value("instance_count", 1);
      if (config.contains("preprocess")) {
        const json& p = config["preprocess"];
        preprocess_ = true;
        scale_ = p.value("scale", 1.0);
        auto values = [&](const char* key, float fallback) {
          if (!p.contains(key)) return std::vector<float>{fallback};
          return p[key].is_array() ? p[key].get<std::vector<float>>() : std::vector<float>{p[key].get<float>()};
        };
        mean_ = values("mean", 0);
        std_ = values("std", 1);
        BRAID_CHECK(!mean_.empty() && !std_.empty(), config_path, ": preprocess mean and std need a value");
        for (float s : std_) BRAID_CHECK(s != 0, config_path, ": preprocess std must not be 0");
      }
      if (config.contains("dynamic_batching")) {
        const json& d = config["dynamic_batching"];
        batching.max_queue_delay_us = d.value("max_queue_delay_us", int64_t{0});
        batching.max_queue_size = d.value("max_queue_size", size_t{256});
      }
    } catch (const json::exception& e) {
      throw Error(cat(config_path, " is not a valid model config: ", e.what()));
    } catch (const RequestError& e) {
      throw Error(cat(config_path, ": ", e.what()));
    }
  }
  for (const auto& in : model->inputs())
    if (std::none_of(inputs_.begin(), inputs_.end(), [&](const TensorSpec& t) { return t.name == in; }))
      inputs_.push_back({in, DType::Float32, {}});
  for (const auto& t : inputs_)
    BRAID_CHECK(std::count(model->inputs().begin(), model->inputs().end(), t.name), config_path, " names input '",
                t.name, "', which is no data input of the model");
  // Shapes the config leaves open come from the symbol and the parameters; once every input's
  // shape is complete, one sample run tells the outputs' exactly.
  std::map<std::string, std::vector<int64_t>> given;
  for (const auto& t : inputs_)
    if (!t.shape.empty()) given[t.name] = with_batch(t.shape);
  const Model::Shapes known = model->known_shapes(given);
  for (auto& t : inputs_)
    if (t.shape.empty()) t.shape = without_batch(known.inputs.at(t.name));
  const bool complete = std::all_of(inputs_.begin(), inputs_.end(), [](const TensorSpec& t) {
    return !t.shape.empty() && std::none_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d < 0; });
  });
  std::vector<NDArray> sample;
  if (complete) {
    std::map<std::string, NDArray> feed;
    for (const auto& t : inputs_)
      feed[t.name] = nd::zeros(Shape(with_batch(t.shape, 1)), cpu(), preprocess_ ? DType::Float32 : t.dtype);
    sample = model->run(feed);
  }
  const auto names = model->outputs();
  for (size_t i = 0; i < names.size(); ++i) {
    TensorSpec t{names[i], DType::Float32, without_batch(known.outputs[i])};
    if (!sample.empty()) {
      t.dtype = sample[i].dtype();
      t.shape = without_batch(sample[i].shape().dims());
    }
    outputs_.push_back(t);
  }
  batching.max_batch_size = max_batch_size_;
  // The copy loaded here is the first instance, on cpu(0); instance i loads its own on cpu(i), so
  // that instances run their batches at once, the cores shared among them.
  batcher_ = std::make_unique<Batcher>(
      [&](int i) { return i == 0 ? std::move(model) : std::make_unique<Model>(symbol_file, params_file, cpu(i)); },
      batching);
}

ServedModel::~ServedModel() = default;

std::string ServedModel::batch_metrics(const std::string& labels) const {
  const Batcher::Stats s = batcher_->stats();
  std::string out = s.batch_rows.render("braid_batch_size", labels);
  out += s.queue_seconds.render("braid_queue_seconds", labels);
  out += s.compute_seconds.render("braid_compute_seconds", labels);
  out += cat("braid_queued_requests{", labels, "} ", s.queued, "\n");
  out += cat("braid_batched_requests{", labels, "} ", s.batched, "\n");
  return out;
}

NDArray ServedModel::preprocessed(const NDArray& x) const {
  NDArray f = x.dtype() == DType::Float32 ? x.copy() : x.astype(DType::Float32);
  if (scale_ != 1) f *= scale_;
  // One value, or one per channel: shaped (1, C, 1, ...) to broadcast over the input.
  auto per_channel = [&](const std::vector<float>& v) {
    std::vector<int64_t> shape(static_cast<size_t>(f.ndim()), 1);
    if (v.size() > 1) {
      if (f.ndim() < 2 || f.shape()[1] != static_cast<int64_t>(v.size()))
        throw RequestError(400,
                           cat("the model's preprocessing has ", v.size(), " channel values but the input's shape ",
                               f.shape().str(), " has ", f.ndim() < 2 ? 0 : f.shape()[1], " channels"));
      shape[1] = static_cast<int64_t>(v.size());
    }
    return nd::array<float>(v, Shape(shape));
  };
  if (mean_.size() > 1 || mean_[0] != 0) f = nd::invoke1("broadcast_sub", {f, per_channel(mean_)});
  if (std_.size() > 1 || std_[0] != 1) f = nd::invoke1("broadcast_div", {f, per_channel(std_)});
  return f;
}

void ServedModel::check_input(const std::string& input, DType dtype, const std::vector<int64_t>& shape) const {
  auto spec = std::find_if(inputs_.begin(), inputs_.end(), [&](const TensorSpec& t) { return t.name == input; });
  if (spec == inputs_.end()) {
    std::string valid;
    for (const auto& t : inputs_) valid += (valid.empty() ? "" : ", ") + t.name;
    throw RequestError(400, cat("model '", name_, "' has no input '", input, "'; its inputs: ", valid));
  }
  if (dtype != spec->dtype)
    throw RequestError(400, cat("input '", input, "' is ", datatype_of(dtype), " but model '", name_, "' takes ",
                                datatype_of(spec->dtype)));
  if (shape.empty()) throw RequestError(400, cat("input '", input, "' needs a batch axis first"));
  if (!fits(shape, spec->shape))
    throw RequestError(400, cat("input '", input, "' has shape ", Shape(shape).str(), " but model '", name_, "' takes ",
                                Shape(with_batch(spec->shape)).str(), " (-1: any size)"));
  if (max_batch_size_ > 0 && shape[0] > max_batch_size_)
    throw RequestError(400,
                       cat("a batch of ", shape[0], " is over model '", name_, "''s max_batch_size ", max_batch_size_));
}

RequestLimits ServedModel::request_limits() const {
  return {inputs_.size(), [this](const std::string& input, DType dtype, const std::vector<int64_t>& shape) {
            check_input(input, dtype, shape);
          }};
}

std::vector<InferOutput> ServedModel::infer(const InferRequest& request) {
  std::map<std::string, NDArray> feed;
  int64_t batch = -1;
  for (const auto& in : request.inputs) {
    check_input(in.name, in.data.dtype(), in.data.shape().dims());
    if (feed.count(in.name)) throw RequestError(400, cat("input '", in.name, "' is given twice"));
    const int64_t rows = in.data.shape()[0];
    if (batch >= 0 && rows != batch)
      throw RequestError(400, cat("input '", in.name, "' has a batch of ", rows, " but another input ", batch));
    batch = rows;
    feed[in.name] = preprocess_ ? preprocessed(in.data) : in.data;
  }
  for (const auto& t : inputs_)
    if (!feed.count(t.name)) throw RequestError(400, cat("model '", name_, "' needs input '", t.name, "'"));
  for (const auto& o : request.outputs)
    if (std::none_of(outputs_.begin(), outputs_.end(), [&](const TensorSpec& t) { return t.name == o; }))
      throw RequestError(400, cat("model '", name_, "' has no output '", o, "'"));
  std::vector<NDArray> results = batcher_->run(std::move(feed));
  std::vector<InferOutput> out;
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (request.outputs.empty() || std::count(request.outputs.begin(), request.outputs.end(), outputs_[i].name))
      out.push_back({outputs_[i].name, results[i]});
  return out;
}

}  // namespace braid::serving
