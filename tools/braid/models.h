#pragma once
// The networks the CLI builds by name: the vision zoo's (resnet18_v1, ...) and the small ones
// (mlp, lenet, resnet-mini).
#include <cstdint>
#include <string>

#include "braid/base/shape.h"
#include "braid/gluon/block.h"

namespace braid::cli {

/// A network of `classes` outputs; an unknown name is an error listing the valid ones.
gluon::BlockPtr make_model(const std::string& name, int64_t classes);
/// One input image for `name`: (1, 1, 28, 28) for the small networks (Fashion-MNIST's), (1, 3,
/// 299, 299) for inceptionv3, else (1, 3, 224, 224).
Shape sample_shape(const std::string& name);

}  // namespace braid::cli
