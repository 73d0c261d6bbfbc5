#pragma once
/// One version of a served model: DIR/<model>/<version>/ of a repository (repository.h) holds `*-symbol.json` and a
/// `.params` file (MXNet's export, from MXNet or Braid; the highest epoch if several), and
/// optionally `config.json`:
///
///   {"inputs": [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}],  // without the batch
///    "max_batch_size": 64,              // rows a request, and a merged batch, may have (0: any)
///    "dynamic_batching": {"max_queue_delay_us": 500, "max_queue_size": 256},
///    "instance_count": 1,               // model copies running batches at once
///    "preprocess": {"scale": 0.00392156862745098, "mean": 0, "std": 1}}
///
/// With "preprocess", every input becomes float32 (x * scale - mean) / std before the model sees
/// it: clients may then send raw pixels as UINT8 (declare the input's datatype so). mean and std
/// are numbers or lists with one value per channel (the axis after the batch).
///
/// Requests of one model queue up and merge into batches (Batcher); without "dynamic_batching"
/// a batch takes what is already queued and waits for nothing.
#include <memory>
#include <string>
#include <vector>

#include "braid/serving/model.h"
#include "braid/serving/protocol.h"

namespace braid::serving {

class Batcher;

struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;  // without the batch axis; empty: not known
};

/// One version of a model, loaded.
class ServedModel {
 public:
  ServedModel(std::string name, std::string version, const std::string& dir);
  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::vector<TensorSpec>& inputs() const { return inputs_; }
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  int64_t max_batch_size() const { return max_batch_size_; }
  /// Refuses (RequestError 400 naming what is wrong) an input the model does not take: an unknown
  /// name, another datatype, a shape that does not fit, a batch over max_batch_size.
  void check_input(const std::string& input, DType dtype, const std::vector<int64_t>& shape) const;
  /// What a request to this model may hold: its inputs, each checked before it is allocated.
  RequestLimits request_limits() const;
  /// Checks the request against the inputs (RequestError 400 naming what is wrong) and runs it.
  std::vector<InferOutput> infer(const InferRequest& request);
  /// The batches run so far and the time spent, as Prometheus text with these labels.
  std::string batch_metrics(const std::string& labels) const;
  ~ServedModel();

 private:
  NDArray preprocessed(const NDArray& x) const;
  std::string name_, version_;
  std::unique_ptr<Batcher> batcher_;  // runs the requests
  std::vector<TensorSpec> inputs_, outputs_;
  int64_t max_batch_size_ = 0;  // 0: any
  bool preprocess_ = false;
  double scale_ = 1;
  std::vector<float> mean_{0}, std_{1};  // one value, or one per channel (axis 1)
};

}  // namespace braid::serving
