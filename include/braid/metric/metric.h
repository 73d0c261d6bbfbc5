#pragma once
/// Evaluation metrics (MXNet 1.x's mx.metric): every metric and the create() factory.
#include <map>
#include <string>
#include <vector>

#include "braid/metric/classification.h"
#include "braid/metric/eval_metric.h"
#include "braid/metric/loss.h"
#include "braid/metric/regression.h"

namespace braid::metric {

/// A metric by MXNet's registered name, case-insensitive: "acc"/"accuracy", "top_k_accuracy"/
/// "top_k_acc"/"topkaccuracy", "f1", "mae", "mse", "rmse", "ce"/"cross-entropy"/"crossentropy",
/// "loss", "composite". `kwargs` are the constructor's arguments as strings: "axis" (accuracy),
/// "top_k", "average" (f1), "eps" (ce), and "name" for all. Unknown names or arguments throw
/// listing the valid ones.
MetricPtr create(const std::string& name, const std::map<std::string, std::string>& kwargs = {});
/// A CompositeEvalMetric of create(name) for each name.
MetricPtr create(const std::vector<std::string>& names);

}  // namespace braid::metric
