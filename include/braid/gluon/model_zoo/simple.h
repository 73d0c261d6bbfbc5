#pragma once
/// Small networks for 28x28 grey images (Fashion-MNIST, MNIST), as `braid train --model` names them:
///   mlp          784-256-256-classes, ReLU
///   lenet        conv 20 5x5 relu, maxpool 2, conv 50 5x5 relu, maxpool 2, dense 128 relu, dense
///   resnet-mini  conv 16 3x3 + BN + relu, two residual units of 16 and 32 channels (the second
///                strided, with a 1x1 projection), global average pool, dense
#include <string>
#include <vector>

#include "braid/gluon/block.h"

namespace braid::gluon::model_zoo {

/// The network `name`; throws naming the valid ones.
BlockPtr get_simple_model(const std::string& name, int classes = 10);
std::vector<std::string> simple_model_names();

}  // namespace braid::gluon::model_zoo
