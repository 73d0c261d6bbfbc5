#pragma once
/// Module.fit callbacks (MXNet's mx.callback).
#include <iostream>
#include <string>

#include "braid/module/module.h"

namespace braid::mod {

/// Every `frequent` batches prints "Epoch[e] Batch [a-b]\tSpeed: s samples/sec\tacc=v" (to
/// `out`), resetting the metric afterwards when auto_reset.
BatchEndCallback Speedometer(int64_t batch_size, int frequent = 50, bool auto_reset = true,
                             std::ostream& out = std::cerr);
/// Saves a checkpoint (symbol and parameters) every `period` epochs as prefix-%04d.params with
/// the 1-based epoch number, as MXNet does.
EpochEndCallback do_checkpoint(const std::string& prefix, int period = 1);

}  // namespace braid::mod
