#pragma once
/// MXNet's mx.io data iterators, the input of Module: a DataIter yields DataBatches of named
/// arrays, one epoch per pass, and reset() starts the next epoch.
///
///   io::NDArrayIter it({{"data", x}}, {{"softmax_label", y}}, 64, /*shuffle=*/true);
///   while (auto batch = it.next()) { ... batch->data[0], batch->label[0], batch->pad ... }
///   it.reset();
#include <optional>
#include <string>
#include <vector>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "braid/ndarray/ndarray.h"

namespace braid::io {

/// Name, shape (batch axis first) and dtype of one input (MXNet's DataDesc).
struct DataDesc {
  std::string name;
  Shape shape;
  DType dtype = DType::Float32;
  std::string layout = "NCHW";
};

/// One batch: the arrays in provide_data / provide_label order. `pad` counts the samples at the
/// end that only fill up the last batch (score and predict drop them); `index` the sample
/// indices when the iterator knows them.
struct DataBatch {
  std::vector<NDArray> data;
  std::vector<NDArray> label;
  int pad = 0;
  std::vector<int64_t> index;
};

class DataIter {
 public:
  virtual ~DataIter() = default;
  /// The next batch of this epoch, or nullopt at its end.
  virtual std::optional<DataBatch> next() = 0;
  /// Starts the next epoch.
  virtual void reset() = 0;
  virtual std::vector<DataDesc> provide_data() const = 0;
  virtual std::vector<DataDesc> provide_label() const = 0;
  virtual int64_t batch_size() const = 0;
};

}  // namespace braid::io
