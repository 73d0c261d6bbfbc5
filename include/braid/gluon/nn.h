#pragma once
/// Every Gluon layer (MXNet's mxnet.gluon.nn), for `using namespace braid::gluon;` code.
#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/embedding.h"
#include "braid/gluon/nn/flatten.h"
#include "braid/gluon/nn/lambda.h"
#include "braid/gluon/nn/layer_norm.h"
#include "braid/gluon/nn/pooling.h"
#include "braid/gluon/nn/sequential.h"
