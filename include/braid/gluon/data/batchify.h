#pragma once
/// Samples and batches of the data pipeline, and the default way of joining samples into a batch
/// (MXNet's default_batchify_fn).
#include <functional>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::gluon::data {

/// One sample: its fields, e.g. {image, label}. A label is a 0-d array (shape ()).
using Sample = std::vector<NDArray>;
/// One batch: field k of every sample stacked along a new axis 0.
using Batch = std::vector<NDArray>;
using BatchifyFn = std::function<Batch(const std::vector<Sample>&)>;

/// Stacks field k of every sample along a new axis 0 (nd::stack), for each k. All samples must
/// have the same number of fields and, per field, the same shape and dtype.
Batch default_batchify(const std::vector<Sample>& samples);

}  // namespace braid::gluon::data
